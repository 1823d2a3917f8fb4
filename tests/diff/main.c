/*
 * Differential tests: for each splice plan, the original code and the patched
 * code (every byte the plan writes applied, trampolines mapped in the module
 * area, a stub instrument recording its pt_regs) run under Unicorn from the
 * same random registers and memory, entering at the site, until control
 * leaves the function. Registers, flags, memory, exit address and fault must
 * match, and the instrument must have seen the registers of the site.
 *
 *   tests/diff [IMAGE SYMBOLS]       real kernel functions + generated code
 */
#include <execinfo.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu.h"
#include "gen.h"
#include "kernel.h"
#include "splice.h"
#include "request.h"
#include "verify_check.h"

struct tally {
	size_t runs, diverged, looping, sites[3], bounce[4], bugs[3], functions;
	size_t by_template[GILK_TRAMP_NKINDS], flags_dead[GILK_TRAMP_NKINDS];
	/* count plans run with the flags claimed dead where the planner
	 * found them live, and how many of those runs diverged */
	size_t mutant_runs[GILK_TRAMP_NKINDS], mutants_caught[GILK_TRAMP_NKINDS];
	struct vc_tally verify;
};

/* How a plan runs: which template, and whether its flags liveness is the
 * planner's or a mutant's that claims them dead. */
struct run_opts {
	enum gilk_tramp_kind tmpl;
	uint64_t counter;
	bool mutant;
	int task;	/* count_task: which of task_tests[] */
};

/* Count_task's filters, each one test of the emulated task (pid TASK_PID,
 * tgid TASK_TGID, comm the name at comm_off) as the shell compiles it, and
 * whether that task passes. The names span the three widths compared
 * (gilk_comm_width()), each equal, and unequal in the last byte compared. */
static const struct {
	uint8_t op, field;
	uint64_t value;
	const char *str;
	uint32_t comm_off;
	bool eq, passes;
} task_tests[] = {
	{ GILK_FOP_EQ, GILK_FF_TID, TASK_PID, NULL, 0, true, true },
	{ GILK_FOP_EQ, GILK_FF_PID, TASK_TGID, NULL, 0, false, false },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, TASK_COMM, TASK_COMM_OFF, true, true },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, "nobody", TASK_COMM_OFF, true, false },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, "diff-task-2", TASK_COMM_OFF, false, true },
	{ GILK_FOP_EQ, GILK_FF_TID, TASK_TGID, NULL, 0, true, false },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, "diff-ta", TASK_COMM_OFF, true, false },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, TASK_COMM8, TASK_COMM8_OFF, true, true },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, "dt-7chX", TASK_COMM8_OFF, true, false },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, TASK_COMM4, TASK_COMM4_OFF, false, false },
	{ GILK_FOP_STR_EQ, GILK_FF_COMM, 0, "dt", TASK_COMM4_OFF, true, false },
};

/* FIELD == V (eq) or != V, then the two RETs. */
static void task_filter(struct gilk_filter *f, int k)
{
	memset(f, 0, sizeof(*f));
	f->len = 3;
	f->test[0] = (struct gilk_filter_test){
		.op = task_tests[k].op, .field = task_tests[k].field,
		.mask = task_tests[k].str ? 0 : ~0ull,
		.value = task_tests[k].value, .jt = task_tests[k].eq ? 0 : 1,
		.jf = task_tests[k].eq ? 1 : 0 };
	if (task_tests[k].str)
		snprintf(f->str[0], sizeof(f->str[0]), "%s", task_tests[k].str);
	f->test[1] = (struct gilk_filter_test){ .op = GILK_FOP_RET, .value = 1 };
	f->test[2] = (struct gilk_filter_test){ .op = GILK_FOP_RET, .value = 0 };
}

/* Mutations of each plan the code checker must refuse. */
#define MUTATIONS_PER_PLAN 2

struct code_src {
	const uint8_t *base;
	uint64_t lo, hi;
};

static const uint8_t *code_byte(void *ctx, uint64_t a)
{
	struct code_src *c = ctx;

	return a >= c->lo && a < c->hi ? c->base + (a - c->lo) : NULL;
}

static void hexdump(FILE *f, const char *what, uint64_t addr, const uint8_t *b, size_t n)
{
	fprintf(f, "    %s at 0x%" PRIx64 ":", what, addr);
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %02x", b[i]);
	fprintf(f, "\n");
}

static void dump_state(FILE *f, const char *what, const struct emu_state *s)
{
	static const char *const n[EMU_NREGS] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "fl",
	};

	fprintf(f, "    %s:", what);
	for (int i = 0; i < EMU_NREGS; i++)
		fprintf(f, "%s %s=%" PRIx64, i % 6 ? "" : "\n     ", n[i], s->regs[i]);
	fprintf(f, "\n");
}

/*
 * Runs one plan: original on a, patched on b (patches applied, then undone).
 * fn_lo/fn_hi bound the function: leaving it ends a run.
 */
static bool template_ok(const struct run_opts *o, const struct emu_state *s,
			const struct splice_plan *p, const struct emu_result *ra,
			const struct emu_result *rb, char *msg, size_t len)
{
	switch (p->bug != BUG_NONE ? GILK_TRAMP_FULL : o->tmpl) {
	case GILK_TRAMP_COUNT:
		if (rb->counted == ra->site_hits && rb->instrument_calls == 0)
			return true;
		snprintf(msg, len, "counter %" PRIu64 " after %u passes through the site, %u calls",
			 rb->counted, ra->site_hits, rb->instrument_calls);
		return false;
	case GILK_TRAMP_COUNT_TASK: {
		bool pass = task_tests[o->task].passes;

		if (rb->instrument_calls == 0 && rb->counted == (pass ? ra->site_hits : 0) &&
		    rb->filtered == (pass ? 0 : ra->site_hits))
			return true;
		snprintf(msg, len, "counted %" PRIu64 ", filtered %" PRIu64 " after %u passes "
			 "through the site (the task %s), %u calls", rb->counted, rb->filtered,
			 ra->site_hits, pass ? "passes" : "does not pass", rb->instrument_calls);
		return false;
	}
	case GILK_TRAMP_TSC:
		return emu_tsc_ok(rb, ra->site_hits, msg, len);
	case GILK_TRAMP_SCRATCH:
		return emu_scratch_ok(rb, msg, len);
	default:
		return emu_instrument_ok(s, p->region.addr, rb, msg, len);
	}
}

static void run_plan(struct emu *a, struct emu *b, const struct splice_plan *plan,
		     uint64_t fn_lo, uint64_t fn_hi, uint64_t *rng, int states,
		     const char *name, const struct vc_text *vt,
		     const struct run_opts *o, struct tally *t)
{
	struct splice_plan mutant;
	const struct splice_plan *p = plan;
	struct splice_code code;
	enum splice_reason why;
	struct gilk_filter filter;
	const struct gilk_reserve res = {
		.tramp = TRAMP_ADDR, .evict_tramp = EVICT_ADDR,
		.handler = STUB_ADDR, .ctx = INSTR_CTX, .tsc_ring = TSC_RING_ADDR,
		.cpu_number = CPU_NUMBER_OFF, .preempt_count = PREEMPT_COUNT_OFF,
		.current_task = CURRENT_TASK_OFF, .task_pid = TASK_PID_OFF,
		.task_tgid = TASK_TGID_OFF,
		.task_comm = o->tmpl == GILK_TRAMP_COUNT_TASK && task_tests[o->task].comm_off ?
			     task_tests[o->task].comm_off : TASK_COMM_OFF,
		.counter = o->counter, .filtered = o->counter + 8,	/* as struct gilk_counts */
	};
	struct template tpl;
	struct splice_params sp = { .tramp = TRAMP_ADDR, .evict_tramp = EVICT_ADDR,
				    .header = &tpl.header };
	/* which template the trampoline got: full for a BUG/WARN replay */
	enum gilk_tramp_kind got = p->bug != BUG_NONE ? GILK_TRAMP_FULL : o->tmpl;

	if (o->tmpl == GILK_TRAMP_COUNT_TASK)
		task_filter(&filter, o->task);
	if (!template_init(&tpl, o->tmpl, &res, false,
			   o->tmpl == GILK_TRAMP_COUNT_TASK ? &filter : NULL)) {
		t->diverged++;
		fprintf(stderr, "FAIL-DETAIL %s: filter %d is no inline test of the task\n",
			name, o->task);
		return;
	}
	if (o->mutant) {
		mutant = *plan;
		mutant.flags_dead = true;
		p = &mutant;
	}
	if (splice_emit(p, &sp, &code, &why)) {
		t->diverged++;
		fprintf(stderr, "FAIL-DETAIL %s: plan at 0x%" PRIx64 " could not be emitted: %s\n",
			name, p->region.addr, splice_reason_str(why));
		return;
	}
	/* what live splicing reserves for it must hold it */
	if (code.tramp_len > template_tramp_size(p, o->tmpl) ||
	    code.evict_tramp_len > splice_evict_tramp_size(p)) {
		t->diverged++;
		fprintf(stderr, "FAIL-DETAIL %s: plan at 0x%" PRIx64 " emits %zu+%zu trampoline bytes, "
			"more than the %zu+%zu reserved for it\n", name, p->region.addr,
			(size_t)code.tramp_len, (size_t)code.evict_tramp_len,
			template_tramp_size(p, o->tmpl), splice_evict_tramp_size(p));
		return;
	}
	if (!o->mutant)
		vc_check_plan(p, &sp, &tpl, &code, o->tmpl == GILK_TRAMP_COUNT_TASK ? &filter : NULL,
			      vt, MUTATIONS_PER_PLAN, &t->verify);
	emu_write(b, TRAMP_ADDR, code.tramp, code.tramp_len);
	if (code.evict_tramp_len)
		emu_write(b, EVICT_ADDR, code.evict_tramp, code.evict_tramp_len);
	for (size_t i = 0; i < code.npatch; i++)
		emu_write(b, code.patches[i].addr, code.patches[i].bytes, code.patches[i].len);
	b->tramp_entry = TRAMP_ADDR;
	b->reloc_entry = TRAMP_ADDR + code.reloc_off;
	a->bug_site = b->bug_site = p->bug != BUG_NONE ? p->region.addr : 0;
	a->bug_warn = b->bug_warn = p->bug == BUG_WARN;
	a->count_site = p->region.addr;
	b->counter_addr = got == GILK_TRAMP_COUNT || got == GILK_TRAMP_COUNT_TASK ?
			  GS_BASE + o->counter : 0;
	b->filtered_addr = got == GILK_TRAMP_COUNT_TASK ? GS_BASE + o->counter + 8 : 0;
	b->tsc_ring = got == GILK_TRAMP_TSC ? TSC_RING_ADDR : 0;
	emu_reset_allowed(a);
	emu_allow(a, fn_lo, fn_hi);
	emu_reset_allowed(b);
	emu_allow(b, fn_lo, fn_hi);
	emu_allow(b, TRAMP_AREA, TRAMP_AREA + TRAMP_AREA_SIZE);
	if (p->mode == SPLICE_BOUNCE && (p->slot < fn_lo || p->slot >= fn_hi))
		emu_allow(b, p->slot, p->slot + 5);

	for (int k = 0; k < states; k++) {
		struct emu_state s;
		struct emu_result ra, rb;
		uint64_t seed = rng_next(rng);
		char msg[256];

		emu_random_state(rng, &s);
		emu_run(a, p->region.addr, &s, seed, &ra);
		if (ra.step_limit) {
			t->looping++;
			continue;
		}
		/* The original finished within its budget; the patched code
		 * runs the trampoline on every pass through the site (a full
		 * header is about 50 instructions: a site that loops to itself
		 * thousands of times needs more than a flat budget). */
		b->max_steps = a->max_steps * 40;
		if (b->max_steps < a->steps + (uint64_t)ra.site_hits * 128)
			b->max_steps = a->steps + (uint64_t)ra.site_hits * 128;
		emu_run(b, p->region.addr, &s, seed, &rb);
		t->runs++;
		/* A fault in relocated code is the same fault, moved. */
		if (rb.exit_addr >= TRAMP_AREA && rb.exit_addr < TRAMP_AREA + TRAMP_AREA_SIZE) {
			uint64_t o = splice_original_addr(p, &sp, &code, rb.exit_addr);

			if (o)
				rb.exit_addr = o;
		}
		/* Dead flags are dead to the code: a run that ends in a fault
		 * before they are written hands them to the fault handler,
		 * which returns them as they were (or oopses). */
		if ((got == GILK_TRAMP_COUNT || got == GILK_TRAMP_TSC || got == GILK_TRAMP_COUNT_TASK) &&
		    p->flags_dead &&
		    ra.err != UC_ERR_OK &&
		    ra.err == rb.err)
			rb.end.regs[16] = ra.end.regs[16];
		if (o->mutant) {
			t->mutant_runs[got]++;
			t->mutants_caught[got] += !emu_same(a, &ra, b, &rb, msg, sizeof(msg));
			continue;
		}
		if (emu_same(a, &ra, b, &rb, msg, sizeof(msg)) &&
		    template_ok(o, &s, p, &ra, &rb, msg, sizeof(msg)))
			continue;
		if (t->diverged++ < 10) {
			fprintf(stderr, "FAIL-DETAIL %s: %s splice at 0x%" PRIx64 " diverges: %s\n",
				name, splice_mode_name(p->mode), p->region.addr, msg);
			hexdump(stderr, "region", p->region.addr, p->region.orig, p->region.len);
			for (size_t i = 0; i < code.npatch; i++)
				hexdump(stderr, "patch", code.patches[i].addr,
					code.patches[i].bytes, code.patches[i].len);
			hexdump(stderr, "relocated", TRAMP_ADDR + code.reloc_off,
				code.tramp + code.reloc_off, code.tramp_len - code.reloc_off);
			fprintf(stderr, "    exits: original 0x%" PRIx64 " (%s), patched 0x%" PRIx64 " (%s), instrument calls %u\n",
				ra.exit_addr, uc_strerror(ra.err), rb.exit_addr, uc_strerror(rb.err),
				rb.instrument_calls);
			dump_state(stderr, "start", &s);
			dump_state(stderr, "original end", &ra.end);
			dump_state(stderr, "patched end", &rb.end);
		}
	}
	for (size_t i = code.npatch; i-- > 0;)
		emu_write(b, code.patches[i].addr, code.patches[i].orig, code.patches[i].len);
	a->bug_site = b->bug_site = 0;
	a->count_site = 0;
	b->counter_addr = 0;
	b->filtered_addr = 0;
	b->tsc_ring = 0;
	if (o->mutant)
		return;
	t->by_template[got]++;
	t->flags_dead[got] += p->flags_dead;
	t->sites[p->mode]++;
	t->bugs[p->bug]++;
	if (p->mode == SPLICE_BOUNCE)
		t->bounce[p->bounce_kind]++;
}

/*
 * Every plan with the full template, and with one of the others in turn
 * (count with a counter near and far, scratch, tsc), and every third with
 * count_task; a count, tsc or count_task plan whose flags are live also
 * runs as a mutant that claims them dead.
 */
static void run_templates(struct emu *a, struct emu *b, const struct splice_plan *p,
			  uint64_t fn_lo, uint64_t fn_hi, uint64_t *rng, int states,
			  const char *name, const struct vc_text *vt, size_t turn,
			  struct tally *t)
{
	static const struct run_opts other[] = {
		{ GILK_TRAMP_COUNT, COUNTER_NEAR, false, 0 },
		{ GILK_TRAMP_SCRATCH, 0, false, 0 },
		{ GILK_TRAMP_COUNT, COUNTER_FAR, false, 0 },
		{ GILK_TRAMP_TSC, 0, false, 0 },
	};
	const struct run_opts full = { GILK_TRAMP_FULL, 0, false, 0 };
	size_t nother = sizeof(other) / sizeof(other[0]);
	struct run_opts o = other[turn % nother];
	/* count_task on every third plan, each of its filters in turn, the
	 * counter near and far; from states of its own, so that the other
	 * templates' runs are the ones they always were */
	struct run_opts task = {
		GILK_TRAMP_COUNT_TASK, turn % 6 == 3 ? COUNTER_FAR : COUNTER_NEAR, false,
		(int)((turn / 3) % (sizeof(task_tests) / sizeof(task_tests[0])))
	};
	uint64_t task_rng = *rng ^ 0x5deece66dull;

	run_plan(a, b, p, fn_lo, fn_hi, rng, states, name, vt, &full, t);
	if (p->bug != BUG_NONE)
		return;
	run_plan(a, b, p, fn_lo, fn_hi, rng, states, name, vt, &o, t);
	if ((o.tmpl == GILK_TRAMP_COUNT || o.tmpl == GILK_TRAMP_TSC) && !p->flags_dead) {
		o.mutant = true;
		run_plan(a, b, p, fn_lo, fn_hi, rng, states, name, vt, &o, t);
	}
	if (turn % 3)
		return;
	run_plan(a, b, p, fn_lo, fn_hi, &task_rng, states, name, vt, &task, t);
	if (!p->flags_dead) {
		task.mutant = true;
		run_plan(a, b, p, fn_lo, fn_hi, &task_rng, states, name, vt, &task, t);
	}
}

static int kernel_suite(const char *image, const char *symbols, struct tally *t)
{
	static struct cfg_window w;
	struct emu a, b;
	struct flag_defs fd;
	struct kernel k;
	struct gerr e;
	const struct ksym **funcs;
	size_t nfunc, stride, want = 2200;
	uint64_t rng = 0x5eed;
	struct code_src src;

	if (kernel_open(&k, image, symbols, &e)) {
		fprintf(stderr, "diff: %s\n", e.msg);
		return -1;
	}
	src.lo = k.text_start;
	src.hi = k.text_end;
	src.base = kimage_ptr(k.img, k.text_start, (size_t)(k.text_end - k.text_start));
	nfunc = symtab_functions(k.syms, k.text_start, k.text_end, NULL, 0);
	funcs = calloc(nfunc, sizeof(*funcs));
	symtab_functions(k.syms, k.text_start, k.text_end, funcs, nfunc);
	stride = nfunc / want ? nfunc / want : 1;
	if (emu_open(&a) || emu_open(&b) || flag_defs_open(&fd)) {
		fprintf(stderr, "diff: cannot start Unicorn\n");
		return -1;
	}
	a.flag_defs = &fd;
	for (size_t f = 0; f < nfunc; f += stride) {
		struct splice_env env;
		const struct cfg *g;

		if (kernel_window(&k, funcs[f]->addr, 160, &w, &e))
			continue;
		kernel_env(&k, &w, &env);
		env.tramp_hint = TRAMP_ADDR;
		g = w.view[0];
		if (emu_map_code(&a, g->start - 4096, g->end + 4096, code_byte, &src) ||
		    emu_map_code(&b, g->start - 4096, g->end + 4096, code_byte, &src)) {
			fprintf(stderr, "diff: cannot map %s\n", funcs[f]->name);
			continue;
		}
		if (t->functions++ % 500 == 0)
			printf("kernel: function %zu, %s\n", t->functions, funcs[f]->name);
		struct vc_text vt = { .byte = code_byte, .ctx = &src, .syms = k.syms,
				      .facts = k.facts, .cfg = g };

		/* one image: its walk memory kept across functions, as a
		 * batch over many keeps it (and evicts functions from it) */
		if (!t->verify.memo)
			vc_memo_reset(&t->verify);
		for (size_t i = 0; i < g->nblocks; i++) {
			struct splice_plan p;
			uint64_t site = splice_site_for_block(&env, g->blocks[i].start);

			if (splice_plan(&env, site, &p))
				continue;
			run_templates(&a, &b, &p, g->start, g->end, &rng, 2, funcs[f]->name, &vt,
				      i, t);
		}
	}
	emu_close(&a);
	emu_close(&b);
	flag_defs_close(&fd);
	window_free(&w);
	free(funcs);
	kernel_close(&k);
	return 0;
}

static int generated_suite(size_t count, struct tally *t)
{
	struct emu a, b;
	struct flag_defs fd;
	uint64_t rng = 0xc0ffee;
	uint8_t buf[GEN_MAX + 64];
	struct code_src src = { buf, GEN_BASE, GEN_BASE + sizeof(buf) };
	struct decoder *dec;
	struct cfg g;
	struct gerr e;

	memset(&g, 0, sizeof(g));
	if (emu_open(&a) || emu_open(&b) || decoder_open(&dec, &e) || flag_defs_open(&fd))
		return -1;
	a.flag_defs = &fd;
	memset(buf, 0xcc, sizeof(buf));
	if (emu_map_code(&a, GEN_BASE, GEN_BASE + 0x1000, code_byte, &src) ||
	    emu_map_code(&b, GEN_BASE, GEN_BASE + 0x1000, code_byte, &src))
		return -1;
	for (size_t n = 0; n < count; n++) {
		size_t len = gen_function(&rng, buf);
		const struct cfg *view[1] = { &g };
		struct splice_env env = { .cfgs = view, .ncfg = 1, .tramp_hint = TRAMP_ADDR };
		char name[64];

		if (cfg_build(&g, dec, buf, GEN_BASE, GEN_BASE + len, NULL, 0, &e))
			continue;
		emu_write(&a, GEN_BASE, buf, len);
		emu_write(&b, GEN_BASE, buf, len);
		snprintf(name, sizeof(name), "generated #%zu", n);
		if (t->functions++ % 20000 == 0)
			printf("generated: sequence %zu\n", n);
		/* One site per sequence: a block start, chosen at random. */
		if (g.nblocks) {
			struct splice_plan p;
			size_t bi = rng_next(&rng) % g.nblocks;

			struct vc_text vt = { .byte = code_byte, .ctx = &src,
					      .func_start = GEN_BASE,
					      .func_end = GEN_BASE + len, .cfg = &g };

			vc_memo_reset(&t->verify);
			if (splice_plan(&env, g.blocks[bi].start, &p) == 0)
				run_templates(&a, &b, &p, GEN_BASE, GEN_BASE + len, &rng, 1, name,
					      &vt, n, t);
		}
	}
	cfg_free(&g);
	decoder_close(dec);
	emu_close(&a);
	emu_close(&b);
	flag_defs_close(&fd);
	return 0;
}

static int passed, failed;

/*
 * What the comparison leaves out: only the flags an instruction's last
 * writer left undefined (btr: OF, SF, AF, PF; shl by cl: AF; add: none),
 * never one it defined; and a later writer defines them again.
 */
static bool flag_defs_right(char *why, size_t len)
{
	static const uint8_t btr[] = { 0x48, 0x0f, 0xb3, 0xc8 };	/* btr rax, rcx */
	static const uint8_t add[] = { 0x48, 0x01, 0xc8 };		/* add rax, rcx */
	static const uint8_t shl[] = { 0x48, 0xd3, 0xe0 };		/* shl rax, cl */
	struct flag_defs fd;
	uint16_t w1, u1, w2, u2, w3, u3, after;

	if (flag_defs_open(&fd)) {
		snprintf(why, len, "cannot open Capstone");
		return false;
	}
	flag_defs_of(&fd, 0x1000, btr, sizeof(btr), &w1, &u1);
	flag_defs_of(&fd, 0x1000, add, sizeof(add), &w2, &u2);	/* same address */
	flag_defs_of(&fd, 0x2000, shl, sizeof(shl), &w3, &u3);
	flag_defs_close(&fd);
	after = (uint16_t)((u1 & ~w2) | u2);
	snprintf(why, len, "btr writes 0x%x undefined 0x%x; add 0x%x, 0x%x; shl 0x%x, 0x%x",
		 w1, u1, w2, u2, w3, u3);
	return (u1 & 0x800) && !(u1 & 0x1) && (w1 & 0x1) && u2 == 0 && (w2 & 0x8c5) == 0x8c5 &&
	       after == 0 && (u3 & 0x10) && !(u3 & 0x1);
}

static void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "PASS" : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

/* Each template ran, count and tsc both with and without saving the flags,
 * and flags claimed dead where they are live show in the runs of each. */
static void templates_report(const char *suite, const struct tally *t)
{
	static const enum gilk_tramp_kind inl[] = { GILK_TRAMP_COUNT, GILK_TRAMP_TSC, GILK_TRAMP_COUNT_TASK };
	static const char *const name[GILK_TRAMP_NKINDS] = {
		[GILK_TRAMP_FULL] = "full", [GILK_TRAMP_SCRATCH] = "scratch",
		[GILK_TRAMP_COUNT] = "count", [GILK_TRAMP_TSC] = "tsc",
		[GILK_TRAMP_COUNT_TASK] = "count_task",
	};
	char line[256];

	printf("templates, %s: full %zu, scratch %zu, count %zu (flags dead at %zu), tsc %zu (flags dead at %zu), count_task %zu (flags dead at %zu)\n",
	       suite, t->by_template[GILK_TRAMP_FULL], t->by_template[GILK_TRAMP_SCRATCH], t->by_template[GILK_TRAMP_COUNT],
	       t->flags_dead[GILK_TRAMP_COUNT], t->by_template[GILK_TRAMP_TSC], t->flags_dead[GILK_TRAMP_TSC],
	       t->by_template[GILK_TRAMP_COUNT_TASK], t->flags_dead[GILK_TRAMP_COUNT_TASK]);
	snprintf(line, sizeof(line), "differential: %s plans run with every template, count, tsc and count_task with and without the flags saved",
		 suite);
	check(t->by_template[GILK_TRAMP_FULL] && t->by_template[GILK_TRAMP_SCRATCH] &&
	      t->flags_dead[GILK_TRAMP_COUNT] && t->by_template[GILK_TRAMP_COUNT] > t->flags_dead[GILK_TRAMP_COUNT] &&
	      t->flags_dead[GILK_TRAMP_TSC] && t->by_template[GILK_TRAMP_TSC] > t->flags_dead[GILK_TRAMP_TSC] &&
	      t->flags_dead[GILK_TRAMP_COUNT_TASK] &&
	      t->by_template[GILK_TRAMP_COUNT_TASK] > t->flags_dead[GILK_TRAMP_COUNT_TASK], line);
	for (size_t i = 0; i < sizeof(inl) / sizeof(inl[0]); i++) {
		enum gilk_tramp_kind tt = inl[i];

		snprintf(line, sizeof(line), "differential: %s %s plans with flags wrongly claimed dead diverge (%zu of %zu runs)",
			 suite, name[tt], t->mutants_caught[tt], t->mutant_runs[tt]);
		check(t->mutants_caught[tt] > 0, line);
	}
}

/* The code checker's verdicts on a suite's plans and their mutations. */
static void verify_report(const char *suite, const struct vc_tally *v)
{
	char line[256];
	int n = 0;

	printf("checker, %s: %zu plans accepted, %zu refused; %zu mutations, %zu refused (",
	       suite, v->accepted, v->refused_plans, v->mutations, v->mutations_refused);
	for (unsigned k = 0; k < vc_mutation_kinds(); k++)
		n += printf("%s%s %zu", n ? ", " : "", vc_mutation_name(k), v->by_kind[k]);
	printf(")\n");
	snprintf(line, sizeof(line), "checker: every %s plan passes gilk.ko's code checker (%zu)",
		 suite, v->accepted);
	check(v->refused_plans == 0 && v->accepted >= 10000, line);
	printf("checker, %s: templates full %zu, scratch %zu, count %zu, count saving the flags %zu, tsc %zu, tsc saving the flags %zu, count_task %zu, count_task saving the flags %zu; count, tsc or count_task without saving live flags: %zu proposed, %zu refused, %zu dead by the checker's walk; tsc without its ring: %zu proposed, %zu refused\n",
	       suite, v->by_template[GILK_TRAMP_FULL], v->by_template[GILK_TRAMP_SCRATCH], v->by_template[GILK_TRAMP_COUNT],
	       v->by_template[GILK_TRAMP_COUNT_FLAGS], v->by_template[GILK_TRAMP_TSC], v->by_template[GILK_TRAMP_TSC_FLAGS],
	       v->by_template[GILK_TRAMP_COUNT_TASK], v->by_template[GILK_TRAMP_COUNT_TASK_FLAGS],
	       v->unsaved, v->unsaved_refused, v->unsaved_checker_dead,
	       v->ringless, v->ringless_refused);
	snprintf(line, sizeof(line), "checker: every %s count, tsc or count_task trampoline that leaves live flags unsaved is refused (%zu)",
		 suite, v->unsaved_refused);
	check(v->unsaved_refused > 0 && v->unsaved == v->unsaved_refused + v->unsaved_checker_dead, line);
	snprintf(line, sizeof(line), "checker: %s plans accepted with each of the %d templates",
		 suite, (int)GILK_TRAMP_NKINDS);
	n = 0;
	for (int k = 0; k < GILK_TRAMP_NKINDS; k++)
		n += v->by_template[k] > 0;
	check(n == GILK_TRAMP_NKINDS, line);
	snprintf(line, sizeof(line), "checker: every %s tsc trampoline without a ring reserved is refused (%zu)",
		 suite, v->ringless_refused);
	check(v->ringless > 0 && v->ringless == v->ringless_refused, line);
	snprintf(line, sizeof(line), "checker: every mutation of a %s plan is refused (%zu)",
		 suite, v->mutations);
	check(v->mutations == v->mutations_refused && v->mutations >= 10000, line);
	printf("checker, %s: %zu splices joining a plan's site accepted, %zu refused; %zu mutations of them, %zu refused\n",
	       suite, v->join_accepted, v->join_refused, v->join_mutations, v->join_mutations_refused);
	snprintf(line, sizeof(line), "checker: a splice joining each %s plan's site is accepted (%zu)",
		 suite, v->join_accepted);
	check(v->join_refused == 0 && v->join_accepted >= 1000, line);
	snprintf(line, sizeof(line), "checker: every mutation of a splice joining a %s plan's site is refused (%zu)",
		 suite, v->join_mutations);
	check(v->join_mutations == v->join_mutations_refused && v->join_mutations >= 1000, line);
	printf("checker, %s: %zu verdicts again with a batch's walk memory, %zu otherwise\n",
	       suite, v->memo_checks, v->memo_differ);
	snprintf(line, sizeof(line), "checker: a batch's walk memory changes no %s verdict (%zu)",
		 suite, v->memo_checks);
	check(v->memo_differ == 0 && v->memo_checks >= 10000, line);
	if (!strcmp(suite, "kernel")) {
		printf("checker, %s: %zu verdicts with a jump label before the site flipped since the walk memory's marks (%zu refused from the start), %zu let pass where a walk from the start refuses\n",
		       suite, v->flip_checks, v->flip_refused, v->flip_looser);
		snprintf(line, sizeof(line), "checker: a jump label flipped in a batch makes the walk memory no looser (%zu)",
			 v->flip_checks);
		check(v->flip_looser == 0 && v->flip_refused >= 1000, line);
	}
}

/* A hand-made case: its line, and why it failed. */
static void check_case(bool (*run)(char *why, size_t len), const char *line)
{
	char why[256] = "";
	bool ok = run(why, sizeof(why));

	if (!ok)
		printf("FAIL-DETAIL %s\n", why);
	check(ok, line);
}

/*
 * A crash (in the harness or in Unicorn) leaves a backtrace in the log
 * beside the last progress line, instead of a log that stdio's buffer took
 * with it.
 */
static void on_crash(int sig)
{
	void *frames[48];
	int n = backtrace(frames, 48);
	static const char head[] = "CRASH: the differential harness died; backtrace:\n";

	if (write(STDOUT_FILENO, head, sizeof(head) - 1) < 0)
		_exit(128 + sig);
	backtrace_symbols_fd(frames, n, STDOUT_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void report_crashes(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	void *warm[1];

	backtrace(warm, 1);	/* loads libgcc now, not inside the handler */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_crash);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

int main(int argc, char **argv)
{
	const char *image = argc > 1 ? argv[1] : "build/cache/ref/vmlinuz";
	const char *symbols = argc > 2 ? argv[2] : "build/cache/ref/kallsyms";
	size_t ngen = argc > 3 ? strtoul(argv[3], NULL, 0) : 120000;
	struct tally kt = { .verify.rng = 0x7e51f1 }, gt = { .verify.rng = 0x9e7 };
	char line[256];

	report_crashes();
	if (kernel_suite(image, symbols, &kt)) {
		check(false, "differential: reference kernel functions load");
	} else {
		printf("kernel: %zu functions, %zu sites (jmp %zu, bounce via padding %zu, via eviction %zu; BUG replayed %zu, WARN %zu), %zu runs, %zu looping, %zu diverged\n",
		       kt.functions, kt.sites[SPLICE_JMP] + kt.sites[SPLICE_BOUNCE],
		       kt.sites[SPLICE_JMP], kt.bounce[BOUNCE_PADDING], kt.bounce[BOUNCE_EVICT],
		       kt.bugs[BUG_BUG], kt.bugs[BUG_WARN], kt.runs, kt.looping, kt.diverged);
		check(kt.functions >= 2000, "differential: at least 2000 kernel functions sampled");
		check(kt.bounce[BOUNCE_PADDING] > 0 && kt.bounce[BOUNCE_EVICT] > 0,
		      "differential: kernel sample includes bounced and evicted sites");
		check(kt.bugs[BUG_BUG] > 0 && kt.bugs[BUG_WARN] > 0,
		      "differential: kernel sample includes replayed BUG and WARN sites");
		snprintf(line, sizeof(line), "differential: kernel functions, zero divergences in %zu runs", kt.runs);
		check(kt.diverged == 0 && kt.runs > 0, line);
		templates_report("kernel", &kt);
	}
	if (generated_suite(ngen, &gt)) {
		check(false, "differential: generated sequences run");
	} else {
		printf("generated: %zu sequences, %zu sites (jmp %zu, bounce via padding %zu, via eviction %zu), %zu runs, %zu looping, %zu diverged\n",
		       gt.functions, gt.sites[SPLICE_JMP] + gt.sites[SPLICE_BOUNCE],
		       gt.sites[SPLICE_JMP], gt.bounce[BOUNCE_PADDING], gt.bounce[BOUNCE_EVICT],
		       gt.runs, gt.looping, gt.diverged);
		check(gt.functions >= 100000, "differential: at least 100k generated sequences");
		snprintf(line, sizeof(line), "differential: generated sequences, zero divergences in %zu runs", gt.runs);
		check(gt.diverged == 0 && gt.runs > 0, line);
		templates_report("generated", &gt);
	}
	check_case(vc_vex_copied,
		   "checker: VEX instructions that look like branches are copied, not relocated as branches");
	check_case(vc_table_labels_refused,
		   "checker: a label of a computed goto's table (indexed, REX.X too) in a region is refused; no index or fs, no table");
	check_case(vc_emulate_prefix_no_edge,
		   "checker: a neighbour's ud2; .ascii \"xen\" is no branch (the planner's reading); \"xeo\" is one");
	check_case(vc_region_in_symbol,
		   "checker: a region whose padding tail runs into the next symbol (a sealed endbr) is refused");
	check_case(vc_endbr_refused,
		   "checker: a request that displaces an endbr64 is refused");
	check_case(vc_slot_not_return_address,
		   "checker: a bounce slot at a call's return address is refused; the planner puts none there");
	check_case(vc_cs_jmp_relocated,
		   "checker: a cs-prefixed jmp, relocated one byte shorter, is taken");
	check_case(vc_edges_refused,
		   "checker: a branch (of the function or a neighbour) or a hidden edge into what a splice overwrites, or into its bounce slot, is refused");
	{
		char why[160] = "";
		bool ok = flag_defs_right(why, sizeof(why));

		if (!ok)
			printf("FAIL-DETAIL %s\n", why);
		check(ok, "differential: only the flags an instruction leaves undefined are left out of the comparison");
	}
	verify_report("kernel", &kt.verify);
	verify_report("generated", &gt.verify);
	vc_memo_free(&kt.verify);
	vc_memo_free(&gt.verify);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
