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
/* What the decoder records of each kind of x86-64 instruction. */
struct decoded {
	const char *what;
	uint8_t bytes[INSN_MAX];
	uint8_t len, kind, disp_off, imm_off, imm_size;
	uint64_t target, table;
	unsigned nop : 1, mem_rsp : 1, table_jump : 1, idle : 1, sys : 1;
};

static void decode_records_each_kind(void **s)
{
	static const struct decoded want[] = {
		{ .what = "call rel32", .bytes = { 0xe8, 0x10, 0, 0, 0 }, .len = 5,
		  .kind = IK_CALL, .imm_off = 1, .imm_size = 4, .target = F + 0x15 },
		{ .what = "jmp rel8 to itself", .bytes = { 0xeb, 0xfe }, .len = 2,
		  .kind = IK_JMP, .imm_off = 1, .imm_size = 1, .target = F },
		{ .what = "je rel32", .bytes = { 0x0f, 0x84, 0, 1, 0, 0 }, .len = 6,
		  .kind = IK_JCC, .imm_off = 2, .imm_size = 4, .target = F + 0x106 },
		{ .what = "jrcxz", .bytes = { 0xe3, 0x02 }, .len = 2,
		  .kind = IK_LOOP, .imm_off = 1, .imm_size = 1, .target = F + 4 },
		{ .what = "xbegin", .bytes = { 0xc7, 0xf8, 0x20, 0, 0, 0 }, .len = 6,
		  .kind = IK_XBEGIN, .imm_off = 2, .imm_size = 4, .target = F + 0x26 },
		{ .what = "call rax", .bytes = { 0xff, 0xd0 }, .len = 2, .kind = IK_CALL_IND },
		{ .what = "jmp [rax*8 + table]", .bytes = { 0xff, 0x24, 0xc5, 0, 0x10, 0, 0x81 },
		  .len = 7, .kind = IK_JMP_IND, .table = 0xffffffff81001000ull, .table_jump = 1 },
		{ .what = "mov rax, gs:[rax*8 + disp]: no table",
		  .bytes = { 0x65, 0x48, 0x8b, 0x04, 0xc5, 0, 0x10, 0, 0 }, .len = 9,
		  .kind = IK_PLAIN },
		{ .what = "mov rax, [rip + disp]", .bytes = { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 },
		  .len = 7, .kind = IK_PLAIN, .disp_off = 3 },
		{ .what = "lea rax, [rip + disp]", .bytes = { 0x48, 0x8d, 0x05, 0x10, 0, 0, 0 },
		  .len = 7, .kind = IK_PLAIN, .disp_off = 3 },
		{ .what = "mov [rsp + 8], rax", .bytes = { 0x48, 0x89, 0x44, 0x24, 0x08 },
		  .len = 5, .kind = IK_PLAIN, .mem_rsp = 1 },
		{ .what = "push rax: its stack slot is no operand", .bytes = { 0x50 }, .len = 1,
		  .kind = IK_PLAIN },
		{ .what = "ret", .bytes = { 0xc3 }, .len = 1, .kind = IK_RET },
		{ .what = "ret 8", .bytes = { 0xc2, 0x08, 0 }, .len = 3, .kind = IK_RET },
		{ .what = "far ret", .bytes = { 0xcb }, .len = 1, .kind = IK_TRAP_EXIT },
		{ .what = "iretq", .bytes = { 0x48, 0xcf }, .len = 2, .kind = IK_TRAP_EXIT },
		{ .what = "int3", .bytes = { 0xcc }, .len = 1, .kind = IK_INT3 },
		{ .what = "ud2", .bytes = { 0x0f, 0x0b }, .len = 2, .kind = IK_UD2 },
		{ .what = "ud1 with its ModRM", .bytes = { 0x0f, 0xb9, 0xcc }, .len = 3,
		  .kind = IK_UD2 },
		{ .what = "rdpkru", .bytes = { 0x0f, 0x01, 0xee }, .len = 3, .kind = IK_PLAIN },
		{ .what = "nop", .bytes = { 0x90 }, .len = 1, .kind = IK_PLAIN, .nop = 1 },
		{ .what = "nopw 0(rax, rax)", .bytes = { 0x66, 0x0f, 0x1f, 0x44, 0, 0 }, .len = 6,
		  .kind = IK_PLAIN, .nop = 1 },
		{ .what = "endbr64 is no nop", .bytes = { 0xf3, 0x0f, 0x1e, 0xfa }, .len = 4,
		  .kind = IK_PLAIN },
		{ .what = "hlt", .bytes = { 0xf4 }, .len = 1, .kind = IK_PLAIN, .idle = 1 },
		{ .what = "mwaitx", .bytes = { 0x0f, 0x01, 0xfb }, .len = 3, .kind = IK_PLAIN,
		  .idle = 1 },
		{ .what = "syscall", .bytes = { 0x0f, 0x05 }, .len = 2, .kind = IK_PLAIN, .sys = 1 },
		{ .what = "int 0x80", .bytes = { 0xcd, 0x80 }, .len = 2, .kind = IK_TRAP_EXIT,
		  .sys = 1 },
	};
	static const uint8_t bad[] = { 0x06, 0x90 };	/* push es: not in 64-bit mode */
	struct decoder *d;
	struct insn in;
	struct gerr e;

	(void)s;
	assert_int_equal(decoder_open(&d, &e), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct decoded *w = &want[i];

		print_message("%s\n", w->what);
		assert_int_equal(decode_one(d, w->bytes, sizeof(w->bytes), F, &in), 0);
		assert_int_equal(in.len, w->len);
		assert_int_equal(in.kind, w->kind);
		assert_int_equal(in.target, w->target);
		assert_int_equal(in.disp_off, w->disp_off);
		assert_int_equal(in.imm_off, w->imm_off);
		assert_int_equal(in.imm_size, w->imm_size);
		assert_int_equal(in.table, w->table);
		assert_int_equal(in.nop, w->nop);
		assert_int_equal(in.mem_rsp, w->mem_rsp);
		assert_int_equal(in.table_jump, w->table_jump);
		assert_int_equal(insn_is_idle(&in), w->idle);
		assert_int_equal(insn_is_trap_or_sys(&in), w->sys);
	}
	assert_int_equal(decode_one(d, bad, sizeof(bad), F, &in), -1);
	decoder_close(d);
}

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

/* mov eax,1; ret; then run int3; then xor eax,eax; ret */
static uint8_t *with_filler(size_t run, size_t *len)
{
	uint8_t *b = malloc(run + 9);

	assert_non_null(b);
	memcpy(b, (const uint8_t[]){ 0xb8, 1, 0, 0, 0, 0xc3 }, 6);
	memset(b + 6, 0xcc, run);
	memcpy(b + 6 + run, (const uint8_t[]){ 0x31, 0xc0, 0xc3 }, 3);
	*len = run + 9;
	return b;
}

static void long_int3_filler_is_padding_not_decoded(void **s)
{
	size_t len, run = 10000;
	uint8_t *b = with_filler(run, &len);
	uint64_t tail = F + 6 + run, ext[] = { tail };
	struct decoder *d;
	struct cfg g;
	struct gerr e;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open(&d, &e), 0);
	assert_int_equal(cfg_build(&g, d, b, F, F + len, ext, 1, &e), 0);
	assert_int_equal(g.nfiller, 1);
	assert_true(g.filler[0].start == F + 6 + CFG_FILLER_KEEP);
	assert_true(g.filler[0].end == tail - CFG_FILLER_KEEP);
	assert_int_equal(g.ninsn, 2 + 2 * CFG_FILLER_KEEP + 2);
	assert_int_equal(cfg_insn_count(&g), 2 + run + 2);
	/* padding is what it was with every int3 decoded: one run */
	assert_int_equal(g.npadding, 1);
	assert_true(g.padding[0].start == F + 6 && g.padding[0].end == tail);
	assert_int_equal(g.nblocks, 2);
	assert_true(g.blocks[1].start == tail && g.blocks[1].reachable);
	assert_int_equal(g.misaligned, 0);
	assert_int_equal(cfg_insn_at(&g, tail - CFG_FILLER_KEEP), 2 + CFG_FILLER_KEEP);
	assert_int_equal(cfg_insn_containing(&g, F + 6 + run / 2), -1);

	/* a run no longer than CFG_FILLER_LONG is decoded whole */
	free(b);
	b = with_filler(CFG_FILLER_LONG, &len);
	assert_int_equal(cfg_build(&g, d, b, F, F + len, NULL, 0, &e), 0);
	assert_int_equal(g.nfiller, 0);
	assert_int_equal(g.ninsn, 2 + CFG_FILLER_LONG + 2);
	free(b);
	cfg_free(&g);
	decoder_close(d);
}

static void filler_something_lands_in_is_decoded(void **s)
{
	size_t len, run = 10000;
	uint8_t *b = with_filler(run, &len);
	uint64_t ext[] = { F + 6 + run / 2 };
	struct decoder *d;
	struct cfg g;
	struct gerr e;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open(&d, &e), 0);
	assert_int_equal(cfg_build(&g, d, b, F, F + len, ext, 1, &e), 0);
	assert_int_equal(g.nfiller, 0);
	assert_int_equal(g.ninsn, 2 + run + 2);
	assert_int_equal(g.misaligned, 0);
	/* the int3 landed on is a block, as any target is */
	assert_true(cfg_block_at(&g, ext[0]) >= 0);
	assert_int_equal(g.npadding, 2);
	free(b);
	cfg_free(&g);
	decoder_close(d);
}

const struct CMUnitTest cfg_tests[] = {
	cmocka_unit_test(long_int3_filler_is_padding_not_decoded),
	cmocka_unit_test(filler_something_lands_in_is_decoded),
	cmocka_unit_test(blocks_edges_padding),
	cmocka_unit_test(unreachable_code_is_a_block),
	cmocka_unit_test(emulation_prefix_is_one_instruction),
	cmocka_unit_test(decode_records_each_kind),
};
const size_t cfg_ntests = sizeof(cfg_tests) / sizeof(cfg_tests[0]);
