/* Unit tests: arm64 kernels read (core/decode_arm64.c, an Image placed by
 * its symbols, its blocks). Words are little-endian, as the Image holds them;
 * the expected text is binutils' (aarch64-linux-gnu-objdump) for the same
 * word. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cfg.h"
#include "kernel.h"
#include "reloc_arm64.h"
#include "splice.h"
#include "textfacts.h"
#include "unit.h"

#define A 0xffff800008123400ull

static int decode_word(struct decoder *d, uint32_t w, uint64_t addr, struct insn *in)
{
	uint8_t b[4];

	memcpy(b, &w, 4);
	return decode_one(d, b, 4, addr, in);
}

static void branch_kinds_and_targets(void **s)
{
	static const struct {
		uint32_t w;
		enum insn_kind kind;
		int64_t target;		/* from A; 0: none */
	} t[] = {
		{ 0x14000002, IK_JMP, 8 },		/* b .+8 */
		{ 0x17fffffd, IK_JMP, -12 },		/* b .-12 */
		{ 0x54000101, IK_JCC, 0x20 },		/* b.ne .+0x20 */
		{ 0x34000080, IK_JCC, 0x10 },		/* cbz w0, .+0x10 */
		{ 0xb5ffffe1, IK_JCC, -4 },		/* cbnz x1, .-4 */
		{ 0x36f800a0, IK_JCC, 0x14 },		/* tbz w0, #31, .+0x14: not the bit */
		{ 0x94000010, IK_CALL, 0x40 },		/* bl .+0x40 */
		{ 0xd63f0020, IK_CALL_IND, 0 },		/* blr x1 */
		{ 0xd61f0040, IK_JMP_IND, 0 },		/* br x2 */
		{ 0xd65f03c0, IK_RET, 0 },		/* ret */
		{ 0xd69f03e0, IK_TRAP_EXIT, 0 },	/* eret */
		{ 0xd4210000, IK_UD2, 0 },		/* brk #0x800: BUG() */
		{ 0x00000000, IK_UD2, 0 },		/* udf #0 */
		{ 0xd2800020, IK_PLAIN, 0 },		/* mov x0, #1 */
	};
	struct decoder *d;
	struct gerr e;
	struct insn in;

	(void)s;
	assert_int_equal(decoder_open_arch(&d, ARCH_ARM64, &e), 0);
	assert_int_equal(decoder_arch(d), ARCH_ARM64);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(decode_word(d, t[i].w, A, &in), 0);
		assert_int_equal(in.len, 4);
		assert_int_equal(in.arch, ARCH_ARM64);
		assert_int_equal(in.kind, t[i].kind);
		assert_int_equal(insn_has_target(&in), t[i].target != 0);
		if (t[i].target)
			assert_true(in.target == A + (uint64_t)t[i].target);
		assert_false(in.pcrel);
	}
	/* an instruction lies on a 4-byte boundary */
	assert_int_equal(decode_word(d, 0xd65f03c0, A + 2, &in), -1);
	decoder_close(d);
}

static void pc_relative_idle_traps(void **s)
{
	struct decoder *d;
	struct gerr e;
	struct insn in;

	(void)s;
	assert_int_equal(decoder_open_arch(&d, ARCH_ARM64, &e), 0);
	assert_int_equal(decode_word(d, 0x90000000, A, &in), 0);	/* adrp x0, . */
	assert_true(in.pcrel);
	assert_int_equal(decode_word(d, 0x10000040, A, &in), 0);	/* adr x0, .+8 */
	assert_true(in.pcrel);
	assert_int_equal(decode_word(d, 0x58000040, A, &in), 0);	/* ldr x0, .+8 */
	assert_true(in.pcrel);
	assert_int_equal(decode_word(d, 0xf9400020, A, &in), 0);	/* ldr x0, [x1] */
	assert_false(in.pcrel);
	assert_int_equal(decode_word(d, 0xf8408420, A, &in), 0);	/* ldr x0, [x1], #8 */
	assert_false(in.pcrel);
	assert_int_equal(decode_word(d, 0xd503201f, A, &in), 0);	/* nop */
	assert_true(in.nop);
	assert_int_equal(decode_word(d, 0xd503207f, A, &in), 0);	/* wfi */
	assert_true(insn_is_idle(&in));
	assert_int_equal(decode_word(d, 0xd4000001, A, &in), 0);	/* svc #0 */
	assert_true(insn_is_trap_or_sys(&in));
	assert_true(insn_falls_through(&in));
	assert_int_equal(decode_word(d, 0xd4210000, A, &in), 0);	/* brk */
	assert_true(insn_is_trap_or_sys(&in));
	assert_false(insn_falls_through(&in));
	/* SVE, which neither Capstone 4 nor gilk decodes: undecodable */
	assert_int_equal(decode_word(d, 0x85bb5800, A, &in), -1);
	decoder_close(d);
}

static void text_as_binutils_prints_it(void **s)
{
	static const struct {
		uint32_t w;
		const char *text;
	} t[] = {
		{ 0xd503233f, "paciasp" },
		{ 0xd50323bf, "autiasp" },
		{ 0xd503245f, "bti c" },
		{ 0xd503249f, "bti j" },
		/* ARMv8.1's atomics, past Capstone 4 */
		{ 0x88e57c62, "casa w5, w2, [x3]" },
		{ 0x88e4fc02, "casal w4, w2, [x0]" },
		{ 0x88a47c62, "cas w4, w2, [x3]" },
		{ 0xb8610001, "ldaddl w1, w1, [x0]" },
		{ 0xb821001f, "stadd w1, [x0]" },
		{ 0xf820303f, "stset x0, [x1]" },
		{ 0xf821101f, "stclr x1, [x0]" },
		{ 0xb8e00020, "ldaddal w0, w0, [x1]" },
		{ 0xf8e08020, "swpal x0, x0, [x1]" },
		{ 0x38e08020, "swpalb w0, w0, [x1]" },
		{ 0x48207c82, "casp x0, x1, x2, x3, [x4]" },
		{ 0x483e7fdc, "casp x30, xzr, x28, x29, [x30]" },
		{ 0x00000000, "udf #0" },
	};
	struct decoder *d;
	struct gerr e;
	struct insn in;
	char buf[96];

	(void)s;
	assert_int_equal(decoder_open_arch(&d, ARCH_ARM64, &e), 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(decode_word(d, t[i].w, A, &in), 0);
		assert_int_equal(decode_text(d, &in, buf, sizeof(buf)), 0);
		assert_string_equal(buf, t[i].text);
	}
	decoder_close(d);
}

/* bti c; cbz x0, 3f; 2: mov x0, #1; ret; 3: casal w4, w2, [x0]; b 2b */
static const uint32_t fn[] = {
	0xd503245f, 0xb4000060, 0xd2800020, 0xd65f03c0, 0x88e4fc02, 0x17fffffd,
};

/* An arm64 planning environment over one CFG (view[0]) and facts tf, with
 * trampolines 1 MiB past A. */
static void arm64_env(struct splice_env *env, const struct cfg **view, const struct textfacts *tf)
{
	memset(env, 0, sizeof(*env));
	env->cfgs = view;
	env->ncfg = 1;
	env->facts = tf;
	env->arch = ARCH_ARM64;
	env->tramp_hint = A + (1u << 20);
}

/* A switch as GCC writes it for arm64: the table's byte, a base, br. The br
 * is a jump through a table (its targets unseen), not a tail call. */
static void switch_table_is_seen(void **s)
{
	static const uint32_t sw[] = {
		0xb0000001,	/* adrp x1, table */
		0x91000021,	/* add x1, x1, #0 */
		0x38604821,	/* ldrb w1, [x1, w0, uxtw] */
		0x10000060,	/* adr x0, .+12 */
		0x8b218801,	/* add x1, x0, w1, sxtb #2 */
		0xd61f0020,	/* br x1 */
		0xd65f03c0,	/* ret */
	};
	static const uint32_t tail[] = {
		0xf9400021,	/* ldr x1, [x1] */
		0xd61f0020,	/* br x1: a tail call */
	};
	struct decoder *d;
	struct cfg g;
	struct gerr e;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open_arch(&d, ARCH_ARM64, &e), 0);
	assert_int_equal(cfg_build(&g, d, (const uint8_t *)sw, A, A + sizeof(sw), NULL, 0, &e), 0);
	assert_true(g.jump_table && g.insns[5].table_jump);
	{
		/* and still planned: a site is one instruction, which a branch
		 * from an unseen table can only land on whole */
		const struct cfg *view[1] = { &g };
		struct textfacts *tf = textfacts_new();
		struct splice_env env;
		struct splice_plan p;

		textfacts_finish(tf);
		arm64_env(&env, view, tf);
		assert_int_equal(splice_plan(&env, A + 8, &p), 0);
		assert_int_equal(splice_plan(&env, A + 24, &p), 0);
		textfacts_free(tf);
	}
	{
		/* its table read (kernel.c): the br's block leads to each
		 * target, the targets are leaders, nothing is unseen */
		static const uint64_t targets[] = { A + 24 };
		const struct cfg_table t = { A + 20, targets, 1 };
		ssize_t b;

		assert_int_equal(cfg_build_tables(&g, d, (const uint8_t *)sw, A, A + sizeof(sw),
						  NULL, 0, &t, 1, &e), 0);
		assert_false(g.jump_table);
		b = cfg_block_at(&g, A + 20);
		assert_true(b >= 0 && g.blocks[b].nsucc == 1);
		assert_true(g.blocks[g.edges[g.blocks[b].edge_first].to].start == A + 24);
		assert_true(g.blocks[cfg_block_at(&g, A + 24)].reachable);
		/* a table for another jump reads nothing for this one */
		assert_int_equal(cfg_build_tables(&g, d, (const uint8_t *)sw, A, A + sizeof(sw),
						  NULL, 0, &(struct cfg_table){ A + 16, targets, 1 },
						  1, &e), 0);
		assert_true(g.jump_table);
	}
	assert_int_equal(cfg_build(&g, d, (const uint8_t *)tail, A, A + sizeof(tail), NULL, 0, &e), 0);
	assert_false(g.jump_table);
	cfg_free(&g);
	decoder_close(d);
}

static void blocks_of_a_function(void **s)
{
	struct decoder *d;
	struct cfg g;
	struct gerr e;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open_arch(&d, ARCH_ARM64, &e), 0);
	assert_int_equal(cfg_build(&g, d, (const uint8_t *)fn, A, A + sizeof(fn), NULL, 0, &e), 0);
	assert_int_equal(g.bad_addr, 0);
	assert_int_equal(g.nblocks, 3);
	assert_true(g.blocks[0].start == A && g.blocks[0].end == A + 8);
	assert_true(g.blocks[1].start == A + 8 && g.blocks[1].end == A + 16);
	assert_true(g.blocks[2].start == A + 16 && g.blocks[2].end == A + 24);
	assert_int_equal(g.blocks[0].nsucc, 2);
	assert_int_equal(g.blocks[1].nsucc, 0);
	assert_int_equal(g.blocks[2].nsucc, 1);
	assert_true(cfg_is_target(&g, A + 8) && cfg_is_target(&g, A + 16));
	cfg_free(&g);
	decoder_close(d);
}

/* An Image: the 64-byte header ("ARM\x64" at 0x38), _stext 64 KiB on, then
 * three copies of fn; kallsyms names them (shift bytes off, for symbols
 * that are not the Image's). */
static void write_image(char *img, char *syms, uint64_t stext, unsigned shift)
{
	static uint8_t buf[0x10000 + 3 * sizeof(fn)];
	FILE *f;
	int fd;

	memset(buf, 0, sizeof(buf));
	memcpy(buf + 0x38, "ARM\x64", 4);
	for (int i = 0; i < 3; i++)
		memcpy(buf + 0x10000 + i * sizeof(fn), fn, sizeof(fn));
	fd = mkstemp(img);
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	fd = mkstemp(syms);
	f = fdopen(fd, "w");
	fprintf(f, "%016llx T _stext\n", (unsigned long long)stext);
	for (int i = 0; i < 3; i++)
		fprintf(f, "%016llx t f%d\n", (unsigned long long)(stext + shift + i * sizeof(fn)), i);
	/* as in Debian's kallsyms: _etext is data */
	fprintf(f, "%016llx D _etext\n", (unsigned long long)(stext + 3 * sizeof(fn)));
	fclose(f);
}

static void image_placed_by_its_symbols(void **s)
{
	char img[] = "/tmp/gilk-unit-XXXXXX", syms[] = "/tmp/gilk-unit-XXXXXX";
	const uint64_t stext = 0xffff800008010000ull;
	struct kernel k;
	struct cfg g;
	struct gerr e;

	(void)s;
	memset(&g, 0, sizeof(g));
	write_image(img, syms, stext, 0);
	assert_int_equal(kernel_open(&k, img, syms, &e), 0);
	assert_int_equal(k.arch, ARCH_ARM64);
	assert_int_equal(kimage_kind(k.img), KIMAGE_ARM64);
	assert_true(k.text_start == stext && k.text_end == stext + 3 * sizeof(fn));
	/* the Image's first byte is _text, 64 KiB below _stext */
	assert_memory_equal(kimage_ptr(k.img, stext - 0x10000 + 0x38, 4), "ARM\x64", 4);
	if (kernel_cfg(&k, stext + sizeof(fn), &g, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(g.nblocks, 3);
	cfg_free(&g);
	kernel_close(&k);
	unlink(img);
	unlink(syms);
}

static void image_refused_under_wrong_symbols(void **s)
{
	char img[] = "/tmp/gilk-unit-XXXXXX", syms[] = "/tmp/gilk-unit-XXXXXX";
	const uint64_t stext = 0xffff800008010000ull;
	struct kernel k;
	struct gerr e;

	(void)s;
	/* functions 8 bytes off: they start mid-code */
	write_image(img, syms, stext, 8);
	assert_int_equal(kernel_open(&k, img, syms, &e), -1);
	assert_non_null(strstr(e.msg, "does not hold the code the symbols name"));
	unlink(img);
	unlink(syms);
}

static void big_endian_image_refused(void **s)
{
	char img[] = "/tmp/gilk-unit-XXXXXX";
	uint8_t h[128] = { 0 };
	struct kimage *k;
	struct gerr e;
	int fd = mkstemp(img);

	(void)s;
	memcpy(h + 0x38, "ARM\x64", 4);
	h[0x30] = 1;
	assert_int_equal(write(fd, h, sizeof(h)), (ssize_t)sizeof(h));
	close(fd);
	assert_int_equal(kimage_open(img, &k, &e), -1);
	assert_non_null(strstr(e.msg, "big-endian"));
	unlink(img);
}

/* What the relocator refuses, and the reach of its branches; what it
 * writes is proven under emulation (tests/diff_arm64.c). */
static void relocation_refusals_and_reach(void **s)
{
	static const uint32_t refused[] = {
		0x5c000040,	/* ldr d0, literal: no general register */
		0x9c000040,	/* ldr q0, literal */
		0xc8027c20,	/* stxr w2, x0, [x1] */
		0xd4210000,	/* brk #0x800 */
		0x00000000,	/* udf #0 */
		0xd4000001,	/* svc #0 */
		0xd69f03e0,	/* eret */
		0xd73f0820,	/* blraa x1, x0 */
		0x5800005f,	/* ldr xzr, literal */
		0xc8200440,	/* stxp w0, x0, x1, [x2]: a pair exclusive */
		0xd69f0bff,	/* eretaa */
		0xd69f0fff,	/* eretab */
		0xd6bf03e0,	/* drps */
		0x54000050,	/* bc.eq (Armv8.8): no inverse written */
	};
	uint32_t out[RELOC_ARM64_MAX];
	size_t n;

	(void)s;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(reloc_arm64(refused[i], A, A + 0x1000, out, &n), RELOC_UNSUPPORTED);
	/* ldar (acquire, not exclusive) is copied; so are the exclusive
	 * loads, after which only the b back runs */
	assert_int_equal(reloc_arm64(0xc8dffc20, A, A + 0x1000, out, &n), RELOC_OK);
	assert_true(n == 1 && out[0] == 0xc8dffc20);
	assert_int_equal(reloc_arm64(0xc85f7c20, A, A + 0x1000, out, &n), RELOC_OK);	/* ldxr */
	assert_true(n == 1 && out[0] == 0xc85f7c20);
	assert_int_equal(reloc_arm64(0xc87f0440, A, A + 0x1000, out, &n), RELOC_OK);	/* ldxp */
	assert_int_equal(reloc_arm64(0x48207c82, A, A + 0x1000, out, &n), RELOC_OK);	/* casp */
	/* a b whose target a trampoline 200 MiB away cannot reach */
	assert_int_equal(reloc_arm64(0x14000002, A, A + (200ull << 20), out, &n), RELOC_BRANCH_RANGE);
	assert_int_equal(reloc_arm64(0x54000101, A, A + (200ull << 20), out, &n), RELOC_BRANCH_RANGE);
	/* 127 MiB reaches */
	assert_int_equal(reloc_arm64(0x14000002, A, A + (127ull << 20), out, &n), RELOC_OK);
	assert_true(a64_b_reaches(A, A - (128ull << 20)) && !a64_b_reaches(A, A + (128ull << 20)));
	/* a misaligned address is no instruction's */
	assert_int_equal(reloc_arm64(0xd503201f, A + 2, A + 0x1000, out, &n), RELOC_UNSUPPORTED);
	/* bl: x30 from a literal (8-byte aligned), then b: the callee returns
	 * to the original code */
	assert_int_equal(reloc_arm64(0x94000010, A, A + 0x1000, out, &n), RELOC_OK);
	assert_true((out[0] & 0xff00001f) == 0x5800001e && (out[1] & 0xfc000000) == 0x14000000);
	assert_true(((A + 0x1000 + (n - 2) * 4) & 7) == 0);
	assert_true(((uint64_t)out[n - 1] << 32 | out[n - 2]) == A + 4);
}

/* The planner on arm64: a site is one instruction; ftrace's nops, landing
 * pads, the inside of an LL/SC loop, BUG() traps and the kernel's reserved
 * bytes are refused, each with its own reason. */
static const uint32_t llsc_fn[] = {
	0xd503201f,	/* +0  nop          ftrace's two */
	0xd503201f,	/* +4  nop */
	0xd503233f,	/* +8  paciasp */
	0xc85f7c20,	/* +12 ldxr x0, [x1]  the loop's head */
	0x91000400,	/* +16 add x0, x0, #1 */
	0xc8027c20,	/* +20 stxr w2, x0, [x1] */
	0x35ffffa2,	/* +24 cbnz w2, +12 */
	0xd503201f,	/* +28 nop          a jump label's */
	0xd4210000,	/* +32 brk #0x800   a BUG() */
	0xd65f03c0,	/* +36 ret */
};

static const uint32_t pad_fn[] = {
	0xd503245f,	/* bti c */
	0xd503233f,	/* paciasp: not the function's start here */
	0xd65f03c0,	/* ret */
};

static enum splice_reason plan_at(const struct splice_env *env, uint64_t a, struct splice_plan *p)
{
	return splice_plan(env, a, p) ? p->reason : SPLICE_OK;
}

static void planner_sites_and_refusals(void **s)
{
	struct textfacts *tf = textfacts_new();
	const struct cfg *view[1];
	struct splice_env env;
	struct splice_plan p;
	struct decoder *d;
	struct cfg g;
	struct gerr e;
	uint32_t w;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(decoder_open_arch(&d, ARCH_ARM64, &e), 0);
	assert_int_equal(textfacts_add_range(tf, A, A + 8, RES_FTRACE), 0);
	assert_int_equal(textfacts_add_range(tf, A + 28, A + 32, RES_JUMP_LABEL), 0);
	assert_int_equal(textfacts_add_bug(tf, A + 32, 4, false), 0);
	textfacts_finish(tf);
	assert_int_equal(cfg_build(&g, d, (const uint8_t *)llsc_fn, A, A + sizeof(llsc_fn),
				   NULL, 0, &e), 0);
	view[0] = &g;
	arm64_env(&env, view, tf);

	/* without the kernel's tables nothing is planned */
	env.no_tables = true;
	assert_int_equal(plan_at(&env, A + 16, &p), SR_NO_TABLES);
	env.no_tables = false;
	/* the entry block is spliced past ftrace's nops and the paciasp after
	 * them, at the function's own first instruction; the paciasp (no
	 * landing pad there) may be planned by address, relocated as itself */
	assert_true(splice_site_for_block(&env, A) == A + 12);
	assert_int_equal(plan_at(&env, A, &p), SR_FTRACE);
	assert_int_equal(plan_at(&env, A + 8, &p), SPLICE_OK);
	assert_true(p.mode == SPLICE_JMP && p.region.len == 4 && p.region.ninsn == 1);
	memcpy(&w, p.region.orig, 4);
	assert_true(w == 0xd503233f);
	/* the loop's head, the exclusive load, is a site; what follows it up
	 * to the store is not; after the store it is again */
	assert_int_equal(plan_at(&env, A + 12, &p), SPLICE_OK);
	assert_int_equal(plan_at(&env, A + 16, &p), SR_EXCLUSIVE);
	assert_int_equal(plan_at(&env, A + 20, &p), SR_EXCLUSIVE);
	assert_int_equal(plan_at(&env, A + 24, &p), SPLICE_OK);
	assert_int_equal(plan_at(&env, A + 28, &p), SR_JUMP_LABEL);
	assert_int_equal(plan_at(&env, A + 32, &p), SR_UD2);
	assert_int_equal(plan_at(&env, A + 36, &p), SPLICE_OK);
	assert_int_equal(plan_at(&env, A + 2, &p), SR_NOT_BOUNDARY);
	cfg_free(&g);

	/* a bti, and the paciasp a function starts with, are landing pads:
	 * spliced past, refused at */
	memset(&g, 0, sizeof(g));
	assert_int_equal(cfg_build(&g, d, (const uint8_t *)pad_fn, A + 0x1000,
				   A + 0x1000 + sizeof(pad_fn), NULL, 0, &e), 0);
	assert_int_equal(plan_at(&env, A + 0x1000, &p), SR_LANDING_PAD);
	assert_true(splice_site_for_block(&env, A + 0x1000) == A + 0x1004);
	assert_int_equal(plan_at(&env, A + 0x1004, &p), SPLICE_OK);
	cfg_free(&g);
	memset(&g, 0, sizeof(g));
	assert_int_equal(cfg_build(&g, d, (const uint8_t *)(pad_fn + 1), A + 0x1000,
				   A + 0x1008, NULL, 0, &e), 0);
	assert_int_equal(plan_at(&env, A + 0x1000, &p), SR_LANDING_PAD);
	assert_true(splice_site_for_block(&env, A + 0x1000) == A + 0x1004);
	cfg_free(&g);
	textfacts_free(tf);
	decoder_close(d);
}

const struct CMUnitTest arm64_tests[] = {
	cmocka_unit_test(planner_sites_and_refusals),
	cmocka_unit_test(relocation_refusals_and_reach),
	cmocka_unit_test(branch_kinds_and_targets),
	cmocka_unit_test(pc_relative_idle_traps),
	cmocka_unit_test(text_as_binutils_prints_it),
	cmocka_unit_test(blocks_of_a_function),
	cmocka_unit_test(switch_table_is_seen),
	cmocka_unit_test(image_placed_by_its_symbols),
	cmocka_unit_test(image_refused_under_wrong_symbols),
	cmocka_unit_test(big_endian_image_refused),
};
const size_t arm64_ntests = sizeof(arm64_tests) / sizeof(arm64_tests[0]);
