/* switch_arm64: a switch's table read where its address and bound were set
 * blocks before the dispatch, and left unread where a path says otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cfg.h"
#include "decode.h"
#include "switch_arm64.h"
#include "unit.h"

#define FN 0xffff800008010000ull	/* where each function is built */
#define TABLE 0xffff800008234560ull	/* its table: another page, as in .rodata */
#define PANIC 0xffff800008000100ull	/* a callee that never returns */
#define OTHER 0xffff800008000200ull	/* one that does */

/* A function under construction: its words and where the next goes. */
struct fn {
	uint32_t w[64];
	size_t n;
};

static uint64_t pc(const struct fn *f)
{
	return FN + 4 * f->n;
}

static void put(struct fn *f, uint32_t w)
{
	f->w[f->n++] = w;
}

static uint32_t rel(uint64_t from, uint64_t to, unsigned bits)
{
	return (uint32_t)((int64_t)(to - from) / 4) & ((1u << bits) - 1);
}

static void adrp(struct fn *f, unsigned rd, uint64_t to)
{
	uint64_t imm = (to >> 12) - (pc(f) >> 12);

	put(f, 0x90000000u | (uint32_t)(imm & 3) << 29 | (uint32_t)((imm >> 2) & 0x7ffff) << 5 | rd);
}

static void add_imm(struct fn *f, unsigned rd, unsigned rn, unsigned imm)
{
	put(f, 0x91000000u | imm << 10 | rn << 5 | rd);
}

/* the table's address into rd, as GCC loads it */
static void table_into(struct fn *f, unsigned rd)
{
	adrp(f, rd, TABLE);
	add_imm(f, rd, rd, TABLE & 0xfff);
}

static void ldr_w(struct fn *f, unsigned rt, unsigned rn)	/* ldr wt, [xn] */
{
	put(f, 0xb9400000u | rn << 5 | rt);
}

static void cmp_w(struct fn *f, unsigned rn, unsigned imm)
{
	put(f, 0x7100001fu | imm << 10 | rn << 5);
}

static void bcond(struct fn *f, unsigned cond, uint64_t to)
{
	put(f, 0x54000000u | rel(pc(f), to, 19) << 5 | cond);
}

static void b(struct fn *f, uint64_t to)
{
	put(f, 0x14000000u | rel(pc(f), to, 26));
}

static void bl(struct fn *f, uint64_t to)
{
	put(f, 0x94000000u | rel(pc(f), to, 26));
}

static void cbz_w(struct fn *f, unsigned rt, uint64_t to)
{
	put(f, 0x34000000u | rel(pc(f), to, 19) << 5 | rt);
}

/* ldrb wi, [xt, wi, uxtw]; adr x1, base (right after the br);
 * add x0, x1, wi, sxtb #2; br x0. Returns base. */
static uint64_t dispatch(struct fn *f, unsigned rt, unsigned ri)
{
	put(f, 0x38604800u | ri << 16 | rt << 5 | ri);
	put(f, 0x10000000u | 12 << 3 | 1);	/* adr x1, .+12 */
	put(f, 0x8b208800u | ri << 16 | 1 << 5 | 0);
	put(f, 0xd61f0000u | 0 << 5);
	return pc(f);
}

/* Two cases (the table sends 0 and 2 to the first, 1 and 3 to the
 * second), both back to loop; then out: ret. */
static void cases(struct fn *f, uint64_t loop, uint64_t *out)
{
	b(f, loop);			/* case 0 */
	add_imm(f, 19, 19, 4);		/* case 1 */
	b(f, loop);
	*out = pc(f);
	put(f, 0xd65f03c0u);		/* ret */
}

static const uint8_t table_bytes[4] = { 0, 1, 0, 1 };

static const uint8_t *bytes(void *ctx, uint64_t addr, size_t len)
{
	(void)ctx;
	return addr == TABLE && len <= sizeof(table_bytes) ? table_bytes : NULL;
}

static bool never_returns(void *ctx, uint64_t target)
{
	(void)ctx;
	return target == PANIC;
}

/* Builds f, reads its switches; the br's block's successors, or -1 when the
 * table stayed unread. */
static int successors(const struct fn *f, bool noreturn_known)
{
	const struct switch_image img = { bytes, noreturn_known ? never_returns : NULL, NULL };
	const uint8_t *code = (const uint8_t *)f->w;
	struct decoder *d;
	struct cfg g;
	struct gerr e;
	int n = -1;

	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open_arch(&d, ARCH_ARM64, &e), 0);
	assert_int_equal(cfg_build(&g, d, code, FN, FN + 4 * f->n, NULL, 0, &e), 0);
	assert_true(g.jump_table);
	assert_int_equal(switch_arm64_read(d, &g, code, NULL, 0, &img, &e), 0);
	for (size_t i = 0; i < g.ninsn && !g.jump_table; i++)
		if (g.insns[i].table_jump)
			n = g.blocks[cfg_block_at(&g, g.insns[i].addr)].nsucc;
	cfg_free(&g);
	decoder_close(d);
	return n;
}

static uint64_t at(unsigned i)
{
	return FN + 4 * i;
}

/*
 * The table's address kept in x21 from the prologue across the loop, the
 * index bounded by a cmp and b.hi a block before the dispatch: read, two
 * cases. With x21 set to another address on one path into the loop
 * (variant 1), or a path into the dispatch past the bound (variant 2), it
 * stays unread.
 */
static void kept_in_a_register(void **s)
{
	struct fn f;
	uint64_t out;

	(void)s;
	for (int variant = 0; variant < 3; variant++) {
		f.n = 0;
		table_into(&f, 21);			/* 0, 1 */
		if (variant)
			cbz_w(&f, 3, at(variant == 1 ? 4 : 10));
		else
			put(&f, 0xd503201fu);		/* nop */
		b(&f, at(6));
		add_imm(&f, 21, 21, 8);			/* 4: another address */
		b(&f, at(6));
		ldr_w(&f, 0, 19);			/* 6: the loop */
		cmp_w(&f, 0, 3);
		bcond(&f, 0x8, at(17));			/* b.hi out */
		cbz_w(&f, 2, at(10));			/* a block between */
		dispatch(&f, 21, 0);			/* 10 */
		cases(&f, at(6), &out);			/* 14 */
		assert_int_equal(out, at(17));
		assert_int_equal(successors(&f, true), variant == 0 ? 2 : -1);
	}
}

/*
 * Spilled: the address stored to [sp, #16] in the prologue, loaded back at
 * the dispatch, a call in the loop between. Read; unread where the stack's
 * address below the slot was handed out (the callee may write the slot).
 */
static void spilled_to_the_stack(void **s)
{
	struct fn f;
	uint64_t out;

	(void)s;
	for (int escapes = 0; escapes < 2; escapes++) {
		f.n = 0;
		put(&f, 0xd10083ffu);			/* sub sp, sp, #32 */
		table_into(&f, 0);			/* 1, 2 */
		put(&f, 0xf9000be0u);			/* str x0, [sp, #16] */
		if (escapes)
			add_imm(&f, 20, 31, 8);		/* add x20, sp, #8 */
		else
			put(&f, 0xd503201fu);
		bl(&f, OTHER);				/* 5: the loop; x0-x18 clobbered */
		ldr_w(&f, 3, 19);
		cmp_w(&f, 3, 3);
		bcond(&f, 0x8, at(17));
		put(&f, 0xf9400be2u);			/* ldr x2, [sp, #16] */
		dispatch(&f, 2, 3);			/* 10 */
		cases(&f, at(5), &out);			/* 14 */
		assert_int_equal(out, at(17));
		assert_int_equal(successors(&f, true), escapes ? -1 : 2);
	}
}

/*
 * A path that calls a function that never returns goes nowhere, though the
 * CFG falls through it into the loop: read when the callee is known as
 * such. The bound is on a copy of the index (mov w3, w0 before the cmp).
 */
static void noreturn_and_a_copied_index(void **s)
{
	struct fn f = { .n = 0 };
	uint64_t out;

	(void)s;
	table_into(&f, 21);		/* 0, 1 */
	cbz_w(&f, 2, at(4));
	b(&f, at(6));
	put(&f, 0xaa0303f5u);		/* 4: mov x21, x3, not the table */
	bl(&f, PANIC);
	ldr_w(&f, 0, 19);		/* 6: the loop */
	put(&f, 0x2a0003e3u);		/* mov w3, w0 */
	cmp_w(&f, 0, 3);
	bcond(&f, 0x8, at(17));
	dispatch(&f, 21, 3);		/* 10 */
	cases(&f, at(6), &out);		/* 14 */
	assert_int_equal(out, at(17));
	assert_int_equal(successors(&f, true), 2);
	assert_int_equal(successors(&f, false), -1);
}

const struct CMUnitTest switch_arm64_tests[] = {
	cmocka_unit_test(kept_in_a_register),
	cmocka_unit_test(spilled_to_the_stack),
	cmocka_unit_test(noreturn_and_a_copied_index),
};
const size_t switch_arm64_ntests = sizeof(switch_arm64_tests) / sizeof(switch_arm64_tests[0]);
