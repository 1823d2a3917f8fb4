/*
 * The arm64 relocator (core/reloc_arm64.c), differentially: every form it
 * rewrites, generated with random fields, runs under Unicorn's AArch64 mode
 * twice from the same random registers, flags and memory: the original word
 * at its address, and its relocated form in a trampoline 64 MiB away,
 * followed by the b back to the word after the original. Where each ends
 * (the branch target or the next word), every general register, sp and
 * NZCV must match. Planted bugs in the relocated form (an adrp one page
 * off, a branch 4 bytes off, a conditional branch not inverted, a literal
 * load through the wrong address) must be caught every time.
 *   test-diff-arm64 [CASES]     CASES per form (500 unless told)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicorn/unicorn.h>

#include "reloc_arm64.h"

#define SITE   0x08123400ull			/* the original word */
#define NEAR   (SITE & ~0x3fffffull)		/* 4 MiB around it, mapped */
#define NEAR_LEN 0x400000ull
#define TRAMP  (SITE + 0x4000000ull)		/* 64 MiB away */
#define TRAMP_PAGE (TRAMP & ~0xfffull)
#define STACK  0x20000000ull

enum mutation { M_NONE, M_ADRP_PAGE, M_BRANCH_OFF, M_NOT_INVERTED, M_LITERAL_OFF };

struct state {
	uint64_t x[31], sp, nzcv, pc;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int xreg(int i)
{
	return i == 29 ? UC_ARM64_REG_X29 : i == 30 ? UC_ARM64_REG_X30 : UC_ARM64_REG_X0 + i;
}

static void set_state(uc_engine *uc, const struct state *s)
{
	for (int i = 0; i < 31; i++)
		uc_reg_write(uc, xreg(i), &s->x[i]);
	uc_reg_write(uc, UC_ARM64_REG_SP, &s->sp);
	uc_reg_write(uc, UC_ARM64_REG_NZCV, &s->nzcv);
}

static void get_state(uc_engine *uc, struct state *s)
{
	for (int i = 0; i < 31; i++)
		uc_reg_read(uc, xreg(i), &s->x[i]);
	uc_reg_read(uc, UC_ARM64_REG_SP, &s->sp);
	uc_reg_read(uc, UC_ARM64_REG_NZCV, &s->nzcv);
	uc_reg_read(uc, UC_ARM64_REG_PC, &s->pc);
}

struct bounds {
	uint64_t lo, hi;
};

/* stops the relocated run where it leaves the trampoline (an empty
 * trampoline: the original's run, which stops by its count) */
static void on_code(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	const struct bounds *b = user;

	(void)size;
	if (b->hi > b->lo && (addr < b->lo || addr >= b->hi))
		uc_emu_stop(uc);
}

/* One emulator for every run: the 4 MiB around the site (random bytes, the
 * literals the loads read), the trampoline's page, a stack. No instruction
 * run here stores, so only the words a run writes change between runs. */
struct machine {
	uc_engine *uc;
	uc_hook hook;
	struct bounds tramp;
};

static int machine_open(struct machine *m, const uint8_t *near)
{
	if (uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &m->uc) != UC_ERR_OK)
		return -1;
	uc_mem_map(m->uc, NEAR, NEAR_LEN, UC_PROT_ALL);
	uc_mem_map(m->uc, TRAMP_PAGE, 0x1000, UC_PROT_ALL);
	uc_mem_map(m->uc, STACK, 0x10000, UC_PROT_ALL);
	uc_mem_write(m->uc, NEAR, near, NEAR_LEN);
	m->tramp.lo = m->tramp.hi = TRAMP;
	uc_hook_add(m->uc, &m->hook, UC_HOOK_CODE, on_code, &m->tramp, 1, 0);
	return 0;
}

/* code at addr, and no translation of what was there before */
static void put_code(struct machine *m, uint64_t addr, const uint32_t *code, size_t n)
{
	uc_mem_write(m->uc, addr, code, n * 4);
	uc_ctl_remove_cache(m->uc, addr, addr + n * 4);
}

/* Runs w at SITE (original), or its relocation (with a mutation) at TRAMP;
 * 0, or -1 when it could not run. */
static int run(struct machine *m, uint32_t w, bool relocated, enum mutation mut,
	       const struct state *in, struct state *out)
{
	uint32_t code[RELOC_ARM64_MAX + 1];
	size_t n;
	int rc;

	set_state(m->uc, in);
	if (!relocated) {
		put_code(m, SITE, &w, 1);
		m->tramp.hi = m->tramp.lo;	/* the hook stops nothing: one step */
		rc = uc_emu_start(m->uc, SITE, 0, 0, 1) == UC_ERR_OK ? 0 : -1;
		get_state(m->uc, out);
		return rc;
	}
	if (reloc_arm64(w, SITE, TRAMP, code, &n) != RELOC_OK)
		return -1;
	switch (mut) {
	case M_ADRP_PAGE:	/* the literal is the last two words */
		code[n - 2] += 0x1000;
		break;
	case M_LITERAL_OFF:
		code[n - 2] += 8;
		break;
	case M_BRANCH_OFF:	/* the b is the last word */
		code[n - 1] += 1;
		break;
	case M_NOT_INVERTED:
		code[0] ^= (w & 0xff000000u) == 0x54000000u ? 1 : 0x01000000u;
		break;
	case M_NONE:
		break;
	}
	code[n] = a64_b(TRAMP + n * 4, SITE + 4);
	put_code(m, TRAMP, code, n + 1);
	m->tramp.hi = TRAMP + (n + 1) * 4;
	rc = uc_emu_start(m->uc, TRAMP, 0, 0, 64) == UC_ERR_OK ? 0 : -1;
	get_state(m->uc, out);
	return rc;
}

static bool same(const struct state *a, const struct state *b)
{
	return !memcmp(a->x, b->x, sizeof(a->x)) && a->sp == b->sp &&
	       (a->nzcv & 0xf0000000u) == (b->nzcv & 0xf0000000u) && a->pc == b->pc;
}

/* A random state: registers hold small and large values, some 0, one
 * pointing near the site, flags random. */
static void random_state(struct state *s)
{
	for (int i = 0; i < 31; i++) {
		uint64_t r = rnd();

		s->x[i] = r % 4 == 0 ? 0 : r % 4 == 1 ? r >> 40 : r;
	}
	s->sp = STACK + 0x8000;
	s->nzcv = (rnd() & 0xf) << 28;
}

/* A word offset within ±range bytes, never 0 */
static int64_t offset(int64_t range)
{
	int64_t o = (int64_t)(rnd() % (uint64_t)(range / 4)) * 4 - range / 2;

	return o ? o : 4;
}

enum form { F_B, F_BL, F_BLR, F_BCOND, F_CBZ, F_TBZ, F_ADR, F_ADRP, F_LDR_LIT, F_PRFM, F_PLAIN,
	F_NFORMS };
static const char *const form_names[F_NFORMS] = {
	"b", "bl", "blr (all but x16)", "b.cond", "cbz/cbnz", "tbz/tbnz", "adr", "adrp",
	"ldr/ldrsw literal", "prfm literal", "plain (copied)",
};

static uint32_t imm19(int64_t off)
{
	return (uint32_t)((off >> 2) & 0x7ffff) << 5;
}

static uint32_t generate(enum form f)
{
	unsigned rt = (unsigned)(rnd() % 31);

	switch (f) {
	case F_B:
		return 0x14000000u | (uint32_t)((offset(0x200000) >> 2) & 0x3ffffff);
	case F_BL:
		return 0x94000000u | (uint32_t)((offset(0x200000) >> 2) & 0x3ffffff);
	case F_BLR:
		return 0xd63f0000u | rt << 5;
	case F_BCOND:
		return 0x54000000u | imm19(offset(0x200000)) | (uint32_t)(rnd() % 16);
	case F_CBZ:
		return (rnd() & 1 ? 0x80000000u : 0) | 0x34000000u | (rnd() & 1 ? 0x01000000u : 0) |
		       imm19(offset(0x200000)) | rt;
	case F_TBZ: {
		unsigned bit = (unsigned)(rnd() % 64);

		return (bit >> 5) << 31 | 0x36000000u | (rnd() & 1 ? 0x01000000u : 0) |
		       (bit & 31) << 19 | (uint32_t)((offset(0x10000) >> 2) & 0x3fff) << 5 | rt;
	}
	case F_ADR: case F_ADRP: {
		uint32_t imm = (uint32_t)(rnd() & 0x1fffff);

		return (f == F_ADRP ? 0x90000000u : 0x10000000u) | (imm & 3) << 29 |
		       (imm >> 2) << 5 | rt;
	}
	case F_LDR_LIT: {
		static const uint32_t opc[3] = { 0x18000000u, 0x58000000u, 0x98000000u };

		return opc[rnd() % 3] | imm19(offset(0x200000)) | rt;
	}
	case F_PRFM:
		return 0xd8000000u | imm19(offset(0x200000)) | (uint32_t)(rnd() % 32);
	default: {
		unsigned n = (unsigned)(rnd() % 31), m = (unsigned)(rnd() % 31);

		switch (rnd() % 4) {
		case 0: return 0x8b000000u | m << 16 | n << 5 | rt;		/* add */
		case 1: return 0xf1000000u | (uint32_t)(rnd() % 4096) << 10 | n << 5 | rt; /* subs */
		case 2: return 0x9a800000u | m << 16 | (uint32_t)(rnd() % 16) << 12 | n << 5 | rt; /* csel */
		default: return 0xd2800000u | (uint32_t)(rnd() & 0xffff) << 5 | rt; /* movz */
		}
	}
	}
}

/* Whether the original's run a and the relocated one b ended the same;
 * blr's relocation takes x16 (reloc_arm64.h). */
static bool same_for(enum form f, const struct state *a, struct state *b)
{
	if (f == F_BLR)
		b->x[16] = a->x[16];
	return same(a, b);
}

static const enum mutation planted[F_NFORMS] = {
	[F_B] = M_BRANCH_OFF, [F_BL] = M_LITERAL_OFF, [F_BLR] = M_LITERAL_OFF,
	[F_BCOND] = M_NOT_INVERTED,
	[F_CBZ] = M_NOT_INVERTED, [F_TBZ] = M_NOT_INVERTED, [F_ADR] = M_LITERAL_OFF,
	[F_ADRP] = M_ADRP_PAGE, [F_LDR_LIT] = M_LITERAL_OFF,
};

int main(int argc, char **argv)
{
	int cases = argc > 1 ? atoi(argv[1]) : 500, pass = 0, fail = 0;
	uint8_t *near = malloc(NEAR_LEN);
	struct machine m;

	if (!near || cases <= 0) {
		fprintf(stderr, "usage: test-diff-arm64 [CASES]\n");
		return 2;
	}
	for (size_t i = 0; i < NEAR_LEN; i++)
		near[i] = (uint8_t)rnd();
	if (machine_open(&m, near)) {
		fprintf(stderr, "test-diff-arm64: Unicorn has no AArch64\n");
		return 1;
	}
	for (int f = 0; f < F_NFORMS; f++) {
		int diverged = 0, caught = 0, mutants = 0;
		uint32_t first = 0;

		for (int c = 0; c < cases; c++) {
			uint32_t w = generate((enum form)f);
			struct state in, a, b;

			random_state(&in);
			/* cbz/tbz: half the time the tested register's value is 0 */
			if ((f == F_CBZ || f == F_TBZ) && rnd() & 1)
				in.x[w & 31] = 0;
			/* blr: to a mapped word near the site */
			if (f == F_BLR)
				in.x[(w >> 5) & 31] = SITE + (uint64_t)offset(0x100000);
			if (run(&m, w, false, M_NONE, &in, &a) || run(&m, w, true, M_NONE, &in, &b) ||
			    !same_for((enum form)f, &a, &b)) {
				if (!diverged++)
					first = w;
				continue;
			}
			if (planted[f] == M_NONE)
				continue;
			mutants++;
			if (run(&m, w, true, planted[f], &in, &b) || !same_for((enum form)f, &a, &b))
				caught++;
		}
		printf("%s %s: %d cases, original and relocated the same", diverged ? "FAIL" : "PASS",
		       form_names[f], cases);
		if (diverged)
			printf(" but in %d (first: %08x)", diverged, first);
		putchar('\n');
		diverged ? fail++ : pass++;
		if (planted[f] != M_NONE) {
			bool ok = mutants > 0 && caught == mutants;

			printf("%s %s: a planted bug caught in %d of %d\n", ok ? "PASS" : "FAIL",
			       form_names[f], caught, mutants);
			ok ? pass++ : fail++;
		}
	}
	uc_close(m.uc);
	free(near);
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
