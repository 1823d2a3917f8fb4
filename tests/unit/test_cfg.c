/* Unit tests: basic blocks, edges and padding (core/cfg.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

const struct CMUnitTest cfg_tests[] = {
	cmocka_unit_test(blocks_edges_padding),
	cmocka_unit_test(unreachable_code_is_a_block),
};
const size_t cfg_ntests = sizeof(cfg_tests) / sizeof(cfg_tests[0]);
