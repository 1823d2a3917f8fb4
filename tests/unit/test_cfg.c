/* Unit tests: basic blocks, edges and padding (core/cfg.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cfg.h"
#include "unit.h"

#define F 0xffffffff81002000ull

static void blocks_edges_padding(void **s)
{
	static const uint8_t b[] = {
		0x85, 0xff,             /* 0 test edi,edi      block 0 */
		0x74, 0x06,             /* 2 je 10 */
		0xb8, 1, 0, 0, 0,       /* 4 mov eax,1         block 1 */
		0xc3,                   /* 9 ret */
		0x31, 0xc0,             /* 10 xor eax,eax      block 2 */
		0xe2, 0xfc,             /* 12 loop 10 */
		0xc3,                   /* 14 ret              block 3 */
		0xcc,                   /* 15 int3: padding */
		0x0f, 0x1f, 0x00,       /* 16 nopl: padding */
		0x0f, 0x0b,             /* 19 ud2 (external target) block 4 */
		0xcc, 0xcc,             /* 21 padding */
	};
	uint64_t ext[] = { F + 19, F + 0x9999 };
	struct decoder *d;
	struct cfg g;
	struct gerr e;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open(&d, &e), 0);
	assert_int_equal(cfg_build(&g, d, b, F, F + sizeof(b), ext, 2, &e), 0);
	assert_int_equal(g.nblocks, 5);
	assert_true(g.blocks[0].start == F && g.blocks[0].end == F + 4);
	assert_true(g.blocks[1].start == F + 4 && g.blocks[1].end == F + 10);
	assert_true(g.blocks[2].start == F + 10 && g.blocks[2].end == F + 14);
	assert_true(g.blocks[3].start == F + 14);
	assert_true(g.blocks[4].start == F + 19);
	/* block 0: taken to 2, falls to 1; block 2: loops to itself, falls to 3 */
	assert_int_equal(g.blocks[0].nsucc, 2);
	assert_int_equal(g.blocks[1].nsucc, 0);
	assert_int_equal(g.blocks[2].nsucc, 2);
	assert_true(g.blocks[4].reachable);
	assert_true(g.blocks[3].reachable);
	assert_int_equal(g.npadding, 2);
	assert_true(g.padding[0].start == F + 15 && g.padding[0].end == F + 19);
	assert_true(g.padding[1].start == F + 21);
	assert_true(cfg_is_target(&g, F + 10));
	assert_false(cfg_is_target(&g, F + 4));
	assert_int_equal(cfg_insn_at(&g, F + 5), -1);
	assert_int_equal(cfg_block_at(&g, F + 16), -1);
	assert_int_equal(cfg_insn_containing(&g, F + 6), 2);
	cfg_free(&g);
	decoder_close(d);
}

static void unreachable_code_is_a_block(void **s)
{
	/* ret; then real code nothing branches to: a block, not reachable */
	static const uint8_t b[] = { 0xc3, 0xb8, 1, 0, 0, 0, 0xc3 };
	struct decoder *d;
	struct cfg g;
	struct gerr e;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open(&d, &e), 0);
	assert_int_equal(cfg_build(&g, d, b, F, F + sizeof(b), NULL, 0, &e), 0);
	assert_int_equal(g.nblocks, 2);
	assert_false(g.blocks[1].reachable);
	cfg_free(&g);
	decoder_close(d);
}

/*
 * Xen's and KVM's emulation prefix, ud2 then "xen" or "kvm", makes the
 * instruction after it one instruction (the kernel's decoder reads it so,
 * and xen_cpuid holds one): the "xen" is not a js, whose made-up target
 * refused the next function, xen_read_cr0, as branched into mid-instruction.
 */
static void emulation_prefix_is_one_instruction(void **s)
{
	static const uint8_t b[] = {
		0x53,                               /* 0 push rbx */
		0x0f, 0x0b, 0x78, 0x65, 0x6e,       /* 1 ud2; .ascii "xen" */
		0x0f, 0xa2,                         /* 6   cpuid */
		0x0f, 0x0b, 0x6b, 0x76, 0x6d,       /* 8 ud2; .ascii "kvm" */
		0x0f, 0xa2,                         /* 13  cpuid */
		0x5b,                               /* 15 pop rbx */
		0xc3,                               /* 16 ret */
	};
	/* a ud2 followed by other bytes is a ud2 */
	static const uint8_t plain[] = { 0x0f, 0x0b, 0x78, 0x65, 0x6f, 0x0f, 0xa2 };
	uint64_t *t = NULL;
	size_t nt = 0, capt = 0;
	struct decoder *d;
	struct insn in;
	struct cfg g;
	struct gerr e;
	char text[96];

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open(&d, &e), 0);
	assert_int_equal(decode_one(d, b + 1, sizeof(b) - 1, F + 1, &in), 0);
	assert_int_equal(in.len, 7);
	assert_true(in.emulate);
	assert_int_equal(in.kind, IK_PLAIN);
	assert_int_equal(decode_text(d, &in, text, sizeof(text)), 0);
	assert_string_equal(text, "ud2; .ascii \"xen\"; cpuid");
	assert_int_equal(decode_one(d, b + 8, sizeof(b) - 8, F + 8, &in), 0);
	assert_int_equal(in.len, 7);
	assert_true(in.emulate);
	/* cut short, the prefix has no instruction after it: a ud2 */
	assert_int_equal(decode_one(d, b + 1, 5, F + 1, &in), 0);
	assert_int_equal(in.len, 2);
	assert_false(in.emulate);
	assert_int_equal(decode_one(d, plain, sizeof(plain), F, &in), 0);
	assert_int_equal(in.len, 2);
	assert_int_equal(in.kind, IK_UD2);

	assert_int_equal(cfg_build(&g, d, b, F, F + sizeof(b), NULL, 0, &e), 0);
	assert_int_equal(g.ninsn, 5);
	assert_int_equal(g.nblocks, 1);
	assert_int_equal(g.misaligned, 0);
	/* a neighbour's scan: no js into what follows */
	assert_int_equal(cfg_collect_targets(d, b, F, F + sizeof(b), F, F + 0x100, &t, &nt,
					     &capt), 0);
	assert_int_equal(nt, 0);
	free(t);
	cfg_free(&g);
	decoder_close(d);
}

const struct CMUnitTest cfg_tests[] = {
	cmocka_unit_test(blocks_edges_padding),
	cmocka_unit_test(unreachable_code_is_a_block),
	cmocka_unit_test(emulation_prefix_is_one_instruction),
};
const size_t cfg_ntests = sizeof(cfg_tests) / sizeof(cfg_tests[0]);
