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
 * With --kernel, the same for the sites the planner plans in a sample of a
 * real kernel's functions: each site's own word, at its own address (less
 * the top half, which Unicorn does not map), the kernel's bytes around it,
 * registers random or pointing at mapped memory; what each run stores is
 * compared too, and undone between runs.
 *   test-diff-arm64 [CASES]                      CASES per form (500)
 *   test-diff-arm64 --kernel IMAGE SYMBOLS [N]   N functions spread over the
 *                                                text (all of them unless told)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicorn/unicorn.h>

#include "kernel.h"
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

/* What a run stored: where, how much, the value, and what was there (to
 * undo it before the next run). */
struct store {
	uint64_t addr, value, old;
	int size;
};

#define STORES_MAX 16

/* One emulator for every run: the 4 MiB around the site (random bytes, the
 * literals the loads read), the trampoline's page, a stack; any other page
 * is mapped when first touched, holding the kernel's bytes where its image
 * lies (below, at its address less alias) and hashed bytes elsewhere. */
struct machine {
	uc_engine *uc;
	uc_hook hook, unmapped, written;
	struct bounds tramp;
	uc_context *fresh;	/* the CPU as opened: each run starts from it, so
				 * a system register one wrote is not seen by
				 * the next */
	struct kernel *k;	/* --kernel */
	uint64_t alias;
	uint64_t next_tramp;	/* --kernel: where the next trampoline goes */
	struct store stores[STORES_MAX];
	int nstores;
};

/* Mapped in chunks this large: Unicorn holds only so many mappings. */
#define CHUNK 0x200000ull

static bool on_unmapped(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
			int64_t value, void *user)
{
	const struct machine *m = user;
	uint64_t base = addr & ~(CHUNK - 1);
	uint8_t *buf = malloc(CHUNK);
	struct gerr e;

	(void)type, (void)size, (void)value;
	if (!buf || base >= (1ull << 47) || uc_mem_map(uc, base, CHUNK, UC_PROT_ALL) != UC_ERR_OK) {
		free(buf);
		return false;
	}
	for (uint64_t o = 0; o < CHUNK; o += 0x1000)
		if (!m->k || kimage_read(m->k->img, base + o + m->alias, buf + o, 0x1000, &e))
			for (size_t i = 0; i < 0x1000; i += 8) {
				uint64_t h = (base + o + i) * 0x9e3779b97f4a7c15ull;

				memcpy(buf + o + i, &h, 8);
			}
	uc_mem_write(uc, base, buf, CHUNK);
	free(buf);
	return true;
}

static void on_write(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
		     int64_t value, void *user)
{
	struct machine *m = user;
	struct store *st;

	(void)type;
	if (m->nstores == STORES_MAX)
		return;
	st = &m->stores[m->nstores++];
	st->addr = addr;
	st->size = size;
	st->value = (uint64_t)value;
	st->old = 0;
	uc_mem_read(uc, addr, &st->old, (size_t)(size < 8 ? size : 8));
}

/* Puts back what the last run stored, newest first. */
static void undo_stores(struct machine *m)
{
	while (m->nstores > 0) {
		const struct store *st = &m->stores[--m->nstores];

		uc_mem_write(m->uc, st->addr, &st->old, (size_t)(st->size < 8 ? st->size : 8));
	}
}

static int machine_open(struct machine *m, const uint8_t *near)
{
	memset(m, 0, sizeof(*m));
	if (uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &m->uc) != UC_ERR_OK)
		return -1;
	uc_mem_map(m->uc, NEAR, NEAR_LEN, UC_PROT_ALL);
	uc_mem_map(m->uc, TRAMP_PAGE, 0x1000, UC_PROT_ALL);
	uc_mem_map(m->uc, STACK, 0x10000, UC_PROT_ALL);
	uc_mem_write(m->uc, NEAR, near, NEAR_LEN);
	m->tramp.lo = m->tramp.hi = TRAMP;
	uc_hook_add(m->uc, &m->hook, UC_HOOK_CODE, on_code, &m->tramp, 1, 0);
	uc_hook_add(m->uc, &m->unmapped, UC_HOOK_MEM_UNMAPPED, (void *)on_unmapped, m, 1, 0);
	uc_hook_add(m->uc, &m->written, UC_HOOK_MEM_WRITE, (void *)on_write, m, 1, 0);
	if (uc_context_alloc(m->uc, &m->fresh) != UC_ERR_OK ||
	    uc_context_save(m->uc, m->fresh) != UC_ERR_OK)
		return -1;
	return 0;
}

/* code at addr (its page mapped first, if need be), and no translation of
 * what was there before. With --kernel no address is written twice with
 * other code (each trampoline has its own, and a site's word is the
 * image's): Unicorn 2.0 crashes removing translations once many ranges
 * are mapped, and flushing them all for each run is slow. */
static void put_code(struct machine *m, uint64_t addr, const uint32_t *code, size_t n)
{
	if (uc_mem_write(m->uc, addr, code, n * 4) != UC_ERR_OK &&
	    on_unmapped(m->uc, UC_MEM_WRITE_UNMAPPED, addr, 4, 0, m))
		uc_mem_write(m->uc, addr, code, n * 4);
	if (!m->k)
		uc_ctl_remove_cache(m->uc, addr, addr + n * 4);
}

/* Runs w at site (original), or its relocation (with a mutation) at tramp;
 * 0, or -1 when it could not run. What it stored stays in m->stores until
 * undo_stores(). */
static int run_at(struct machine *m, uint64_t site, uint64_t tramp, uint32_t w, bool relocated,
		  enum mutation mut, const struct state *in, struct state *out)
{
	uint32_t code[RELOC_ARM64_MAX + 1];
	size_t n;
	int rc;

	uc_context_restore(m->uc, m->fresh);
	set_state(m->uc, in);
	m->nstores = 0;
	if (!relocated) {
		put_code(m, site, &w, 1);
		m->tramp.lo = m->tramp.hi = tramp; /* the hook stops nothing: one step */
		rc = uc_emu_start(m->uc, site, 0, 0, 1) == UC_ERR_OK ? 0 : -1;
		get_state(m->uc, out);
		return rc;
	}
	if (reloc_arm64(w, site, tramp, code, &n) != RELOC_OK)
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
	code[n] = a64_b(tramp + n * 4, site + 4);
	put_code(m, tramp, code, n + 1);
	m->tramp.lo = tramp;
	m->tramp.hi = tramp + (n + 1) * 4;
	rc = uc_emu_start(m->uc, tramp, 0, 0, 64) == UC_ERR_OK ? 0 : -1;
	get_state(m->uc, out);
	return rc;
}

static int run(struct machine *m, uint32_t w, bool relocated, enum mutation mut,
	       const struct state *in, struct state *out)
{
	int rc = run_at(m, SITE, TRAMP, w, relocated, mut, in, out);

	undo_stores(m);
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

/* --kernel: the planted bug for a real word of a relocated form, by the
 * form (as planted[]); M_NONE for words copied as they are and prfm. */
static enum mutation planted_for(uint32_t w)
{
	if ((w & 0x7c000000u) == 0x14000000u)		/* b, bl */
		return w & 0x80000000u ? M_LITERAL_OFF : M_BRANCH_OFF;
	if ((w & 0xfffffc1fu) == 0xd63f0000u)		/* blr */
		return M_LITERAL_OFF;
	if ((w & 0xff000010u) == 0x54000000u ||		/* b.cond */
	    (w & 0x7c000000u) == 0x34000000u)		/* cbz, cbnz, tbz, tbnz */
		return M_NOT_INVERTED;
	if ((w & 0x9f000000u) == 0x90000000u)		/* adrp */
		return M_ADRP_PAGE;
	if ((w & 0x9f000000u) == 0x10000000u)		/* adr */
		return M_LITERAL_OFF;
	if ((w & 0x3f000000u) == 0x18000000u && (w >> 30) != 3)	/* ldr, ldrsw literal */
		return M_LITERAL_OFF;
	return M_NONE;
}

/* A conditional branch to the next instruction (page_ext_put's cbz x0, .+4):
 * taken or not, it goes on there, so the planted bug of an uninverted
 * condition changes nothing a run can see. */
static bool branches_to_next(uint32_t w)
{
	if ((w & 0xff000010u) == 0x54000000u || (w & 0x7e000000u) == 0x34000000u)
		return ((w >> 5) & 0x7ffffu) == 1;	/* b.cond, cbz, cbnz: imm19 */
	if ((w & 0x7e000000u) == 0x36000000u)
		return ((w >> 5) & 0x3fffu) == 1;	/* tbz, tbnz: imm14 */
	return false;
}

/* A literal load whose planted bug reads 8 bytes further than the word it
 * should: where memory holds the same there, no run can tell them apart. */
static bool literal_load_twin(struct machine *m, uint64_t site, uint32_t w)
{
	uint64_t a = site + (uint64_t)((int64_t)((int32_t)(w << 8) >> 13) * 4), x, y;

	if ((w & 0x3f000000u) != 0x18000000u)
		return false;
	return uc_mem_read(m->uc, a, &x, 8) != UC_ERR_OK ||
	       uc_mem_read(m->uc, a + 8, &y, 8) != UC_ERR_OK || x == y;
}

static bool same_stores(const struct store *a, int na, const struct store *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (a[i].addr != b[i].addr || a[i].size != b[i].size || a[i].value != b[i].value)
			return false;
	return true;
}

/* Registers for a real instruction, which mostly loads and stores through
 * them: three in four point into memory (8-byte aligned, within 64 KiB of
 * 1 GiB), the rest 0 or random. */
static void kernel_state(struct state *s)
{
	random_state(s);
	for (int i = 0; i < 31; i++)
		if (rnd() % 4)
			s->x[i] = 0x40000000ull + (rnd() % 0x2000) * 8;
}

/* mrs of the generic timer's counters (cntpct_el0, cntvct_el0 and their
 * self-synchronized forms): the time, which no two runs read the same. */
static bool reads_counter(uint32_t w)
{
	unsigned op2 = (w >> 5) & 7;

	return (w & 0xffffff00u) == 0xd53be000u && (op2 == 1 || op2 == 2 || op2 == 5 || op2 == 6);
}

/* One site: the original and its relocation from the same state, compared
 * (registers, flags, where they end, what they stored); then the planted
 * bug, where its form has one. 0 the same, 1 they differ, -1 the original
 * does not run under Unicorn (a system register, an exception). */
static int kernel_case(struct machine *m, uint64_t site, uint32_t w, int *mutants, int *caught)
{
	uint64_t at = site - m->alias, tramp = m->next_tramp, mutant = tramp + 64;
	struct store sa[STORES_MAX];
	struct state in, a, b;
	enum mutation mut = planted_for(w);
	int na, rc;

	m->next_tramp += 128;
	kernel_state(&in);
	if (run_at(m, at, tramp, w, false, M_NONE, &in, &a)) {
		undo_stores(m);
		return -1;
	}
	na = m->nstores;
	memcpy(sa, m->stores, sizeof(sa));
	undo_stores(m);
	rc = run_at(m, at, tramp, w, true, M_NONE, &in, &b);
	if ((w & 0xfffffc1fu) == 0xd63f0000u)	/* blr takes x16 */
		b.x[16] = a.x[16];
	if (reads_counter(w))
		b.x[w & 31] = a.x[w & 31];
	rc = rc || !same(&a, &b) || !same_stores(sa, na, m->stores, m->nstores);
	undo_stores(m);
	if (rc || mut == M_NONE || (mut == M_LITERAL_OFF && literal_load_twin(m, at, w)) ||
	    (mut == M_NOT_INVERTED && branches_to_next(w)))
		return rc;
	(*mutants)++;
	if (run_at(m, at, mutant, w, true, mut, &in, &b) || !same(&a, &b) ||
	    !same_stores(sa, na, m->stores, m->nstores))
		(*caught)++;
	else if (*mutants - *caught <= 10)
		fprintf(stderr, "planted bug not caught: 0x%" PRIx64 " (%08" PRIx32 ", mutation %d)\n",
			site, w, (int)mut);
	undo_stores(m);
	return 0;
}

/* The planned sites of n functions spread over the kernel's text. */
static int kernel_mode(const char *image, const char *symbols, size_t want)
{
	static struct cfg_window win;
	size_t nfunc, nf = 0, nsites = 0, nskipped = 0, ndiff = 0;
	const struct ksym **funcs;
	int mutants = 0, caught = 0, fail = 0;
	uint64_t first = 0;
	struct machine m;
	struct kernel k;
	struct gerr e;
	uint8_t *near = calloc(1, NEAR_LEN);

	if (!near || kernel_open(&k, image, symbols, &e)) {
		fprintf(stderr, "test-diff-arm64: %s\n", near ? e.msg : "out of memory");
		return 1;
	}
	if (k.arch != ARCH_ARM64 || k.no_tables || machine_open(&m, near)) {
		fprintf(stderr, "test-diff-arm64: %s is not an arm64 kernel planned with its tables\n", image);
		return 1;
	}
	m.k = &k;
	m.alias = 0xffff7fff00000000ull;
	/* trampolines of 128 bytes each, from 1 MiB past the text on: within
	 * a b's reach of it for the 640,000 sites a kernel has */
	m.next_tramp = k.text_end - m.alias + 0x100000;
	nfunc = symtab_functions(k.syms, k.text_start, k.text_end, NULL, 0);
	funcs = calloc(nfunc ? nfunc : 1, sizeof(*funcs));
	nfunc = symtab_functions(k.syms, k.text_start, k.text_end, funcs, nfunc);
	for (size_t f = 0; f < nfunc && nf < want; f += nfunc / want ? nfunc / want : 1, nf++) {
		struct splice_env env;
		const struct cfg *g;

		if (kernel_window(&k, funcs[f]->addr, 160, &win, &e))
			continue;
		kernel_env(&k, &win, &env);
		g = win.view[0];
		for (size_t b = 0; b < g->nblocks; b++) {
			struct splice_plan p;
			uint32_t w;
			int rc;

			if (splice_plan(&env, splice_site_for_block(&env, g->blocks[b].start), &p))
				continue;
			memcpy(&w, p.region.orig, 4);
			nsites++;
			rc = kernel_case(&m, p.region.addr, w, &mutants, &caught);
			nskipped += rc < 0;
			if (rc > 0 && !ndiff++)
				first = p.region.addr;
			if (rc > 0 && ndiff <= 10)
				fprintf(stderr, "diverged: %s+0x%" PRIx64 " (%08" PRIx32 ")\n",
					funcs[f]->name, p.region.addr - g->start, w);
		}
	}
	printf("%s kernel: %zu sites planned in %zu functions, original and relocated the same",
	       ndiff ? "FAIL" : "PASS", nsites, nf);
	if (ndiff)
		printf(" but at %zu (first: 0x%" PRIx64 ")", ndiff, first);
	printf("\n");
	fail += ndiff > 0;
	/* a run Unicorn cannot make proves nothing: most must run */
	printf("%s kernel: %zu of %zu sites run under Unicorn (the rest read system registers or trap)\n",
	       nsites && nskipped * 10 <= nsites ? "PASS" : "FAIL", nsites - nskipped, nsites);
	fail += !(nsites && nskipped * 10 <= nsites);
	printf("%s kernel: a planted bug caught at %d of %d pc-relative sites\n",
	       mutants > 0 && caught == mutants ? "PASS" : "FAIL", caught, mutants);
	fail += !(mutants > 0 && caught == mutants);
	printf("%d passed, %d failed\n", 3 - fail, fail);
	uc_context_free(m.fresh);
	uc_close(m.uc);
	kernel_close(&k);
	free(funcs);
	free(near);
	return fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	int cases = argc > 1 ? atoi(argv[1]) : 500, pass = 0, fail = 0;
	uint8_t *near;
	struct machine m;

	if (argc >= 4 && !strcmp(argv[1], "--kernel"))
		return kernel_mode(argv[2], argv[3], argc > 4 ? (size_t)atoi(argv[4]) : SIZE_MAX);
	near = malloc(NEAR_LEN);
	if (!near || cases <= 0) {
		fprintf(stderr, "usage: test-diff-arm64 [CASES] | --kernel IMAGE SYMBOLS [FUNCTIONS]\n");
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
	uc_context_free(m.fresh);
	uc_close(m.uc);
	free(near);
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
