/*
 * bench-live: make bench's figures from the running kernel, in the lab
 * (QEMU TCG: absolute times are the emulator's, ratios are what to read).
 * Each figure is measured against its reference in the same run, a median
 * over rounds, and printed as one "bench:" line (report.h).
 *
 * Per hit: the workload is getppid(); a probe's cost per hit is the median,
 * over rounds, of the time per call with it minus the mean of the runs
 * without it right before and right after (the probe is put on and taken
 * off every round: the lab shares its CPUs, and a base from minutes
 * earlier drifts), and every figure is taken in turn with its reference,
 * round by round, so that both see the same drift; each line gives the
 * spread over the rounds, and a figure inside it says so (report.h). Three
 * sites, each named on the "sites:" line:
 *   block  getppid's entry block, where gilk splices it (past the ftrace
 *          nop): gilk count, tsc, regs (jmp, and trap: the same reached
 *          through an int3), a kprobe event there with optimization off
 *          (int3), bpftrace's kprobe there;
 *   opt    the first instruction of getppid past the block site where the
 *          kernel optimizes a kprobe ([OPTIMIZED] in debugfs): gilk count
 *          and tsc against that optimized kprobe event, and tsc against it
 *          recording (tracing on: an event into the trace buffer a hit, as
 *          tsc writes one into gilk's);
 *   entry  a function getppid calls, that has BTF: gilk count at its
 *          entry block, a kprobe event at function+0 (through ftrace),
 *          bpftrace's kprobe (also ftrace) and kfunc (a BPF trampoline);
 *          gilk's hello there (an event with the pid) in turn with
 *          bpftrace's kfunc printing the pid; and hello fetching the
 *          task's name (a string read a hit) in turn with bpftrace's kfunc
 *          printing curtask->comm; a count by comm, a histogram of the
 *          pid and a count by stack in gilk.ko's maps, each in turn with
 *          bpftrace's kfunc keeping the same map (@k[comm] = count(),
 *          @h = hist(pid), @s[kstack] = count()).
 * Turnaround: one splice against one kprobe event (defined and enabled);
 * a 100-block batch against as many kprobe events and bpftrace's attach
 * time for the same probes; the networking-core coverage batch (the
 * shell's coverage command, timed as a user runs it, and unsplice all
 * after it); live planning of a
 * function against offline planning of it from /proc/kcore.
 * Preemption: the longest time FACTS runs with preemption off (walking a
 * module's tables), against the longest whole FACTS call.
 * Memory: trampoline bytes per splice and module memory, from gilk.ko,
 * with 10,000 splices; the live shell's peak RSS with all of kallsyms.
 *
 *   bench-live [--per-hit | --preempt-off | --turnaround] [CALLS [RUNS]]
 *      (100000 calls, 7 runs; --per-hit: only those figures, as the guest
 *      suite runs it; --preempt-off, --turnaround: only those)
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kernel_lines.h"
#include "ktypes.h"
#include "live.h"
#include "report.h"
#include "site_filter.h"
#include "tracers.h"

#define RUNS_MAX 99
#define ROUNDS 7		/* of each turnaround figure: the grace period varies */
#define BATCH 100
#define BLOCKS_MAX 1024	/* of the batch's function */
#define MANY 10000
#define MANY_SITES 11000	/* some refuse: enough for MANY to plan */
#define PAGE 4096.0
#define WORKLOAD "__x64_sys_getppid"
/* getppid's callees with BTF, the first that bpftrace's kfunc takes */
static const char *const kfunc_targets[] = { "__task_pid_nr_ns", "__rcu_read_lock" };
#define BATCH_FUNCTION "tcp_v4_rcv"
/* The networking core of the README's scale figures. */
#define NETCORE "'tcp_*' 'udp*' 'ip_*' 'ipv4_*' 'inet_*' '__inet_*' '*netif_*' " \
	"'dev_*' '__dev_*' 'skb_*' '__skb_*' 'sock_*' 'sk_*' '__sk_*' 'napi_*' " \
	"'neigh_*' 'fib_*' 'icmp_*' 'raw_*' '__tcp_*' '__udp*' '__ip_*' 'net_*'"

struct bench {
	struct live lv;
	int calls, runs;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ns per getppid() over one run of b->calls. */
static double one_run(const struct bench *b)
{
	double t0 = now();

	for (int i = 0; i < b->calls; i++)
		syscall(SYS_getppid);
	return (now() - t0) * 1e9 / b->calls;
}

/* Median ns per getppid() over the runs. */
static double per_call(const struct bench *b)
{
	double t[RUNS_MAX];

	for (int r = 0; r < b->runs; r++)
		t[r] = one_run(b);
	return bench_median(t, (size_t)b->runs);
}

/* Where a long run is (stderr: the figures stay apart on stdout). */
static void progress(const char *what)
{
	fprintf(stderr, "bench-live: %s\n", what);
}

static void fail(const char *figure, const struct gerr *e)
{
	fprintf(stderr, "bench-live: %s: %s\n", figure, e->msg);
}

/*
 * A probe put on and taken off again for every probed run: each probed run
 * is set against the unprobed runs right before and right after it, and the
 * figure is the median of those differences. The lab shares its CPUs with
 * whatever else the host runs, and a drift over the minutes of a whole
 * figure moved both sides of a difference taken once by more than a count
 * splice costs (a negative figure in run 5).
 */
struct probe {
	const char *figure;
	/* 0, or -1 with e set; off() also checks the hits one run made */
	int (*on)(struct bench *b, struct probe *p, struct gerr *e);
	int (*off)(struct bench *b, struct probe *p, struct gerr *e);
	struct splice_plan plan;
	const char *instrument, *where;
	const struct gilk_filter *filter;	/* a splice's, or NULL */
	const struct gilk_fetch *fetch;		/* a splice's, or NULL */
	const struct gilk_agg *agg;		/* a splice's, or NULL */
	const char *action;	/* bpftrace's on each hit besides counting, or NULL */
	uint64_t optimized;	/* the kprobe's address, to wait for it */
	bool record;		/* a kprobe event with tracing on */
	bool int3;		/* a kprobe event with optimization off */
	unsigned copies;	/* kprobe events at where: 1 unless 2 */
	uint32_t id, id2;
	struct bpftrace bt;
};

static struct bench_fig paired(struct bench *b, struct probe *p)
{
	double base[RUNS_MAX + 1], d[RUNS_MAX];
	struct bench_fig none = { NAN, NAN };
	struct gerr e;

	base[0] = one_run(b);
	for (int r = 0; r < b->runs; r++) {
		double t;

		if (p->on(b, p, &e))
			return fail(p->figure, &e), none;
		t = one_run(b);
		if (p->off(b, p, &e))
			return fail(p->figure, &e), none;
		base[r + 1] = one_run(b);
		d[r] = t - (base[r] + base[r + 1]) / 2;
	}
	return bench_fig_of(d, (size_t)b->runs);
}

static int splice_on(struct bench *b, struct probe *p, struct gerr *e)
{
	struct live_use use = { p->instrument, "", p->filter, p->fetch, p->agg };

	return live_splice_batch_uses(&b->lv, &p->plan, 1, &use, 1, &p->id, e);
}

static int splice_off(struct bench *b, struct probe *p, struct gerr *e)
{
	static char drain[1 << 16];
	struct gilk_splice_info info;
	int rc = live_info(&b->lv, p->id, &info, e);

	live_unsplice(&b->lv, p->id, e);
	/* what tsc and regs left in the buffer */
	while (live_read_events(&b->lv, drain, sizeof(drain), e) > 0)
		;
	/* a filter that turns the workload away counts it as filtered */
	if (!rc && info.hits + info.filtered < (uint64_t)b->calls)
		return gerr_set(e, "%" PRIu64 " hits and %" PRIu64 " filtered counted for %d calls",
				(uint64_t)info.hits, (uint64_t)info.filtered, b->calls);
	if (!rc && p->filter && info.hits)
		return gerr_set(e, "the filter '%s' let %" PRIu64 " hits through",
				p->filter->text, (uint64_t)info.hits);
	return rc;
}

/* Two count splices at one site: the second joins the first. */
static int splice_two_on(struct bench *b, struct probe *p, struct gerr *e)
{
	struct live_use use = { p->instrument, "", NULL, NULL, NULL };
	struct splice_plan joined;
	struct gerr ignored;

	if (live_splice_batch_uses(&b->lv, &p->plan, 1, &use, 1, &p->id, e))
		return -1;
	if (live_plan(&b->lv, p->plan.region.addr, 0, &joined, e) ||
	    (joined.mode != SPLICE_JOIN && gerr_set(e, "the second splice at 0x%" PRIx64 " does not join the first",
						     p->plan.region.addr)) ||
	    live_splice_batch_uses(&b->lv, &joined, 1, &use, 1, &p->id2, e)) {
		live_unsplice(&b->lv, p->id, &ignored);
		return -1;
	}
	return 0;
}

static int splice_two_off(struct bench *b, struct probe *p, struct gerr *e)
{
	struct gilk_splice_info one, two;
	uint32_t ids[2] = { p->id2, p->id };
	int rc = live_info(&b->lv, p->id, &one, e) || live_info(&b->lv, p->id2, &two, e);

	if (live_unsplice_batch(&b->lv, ids, 2, e))
		return -1;
	if (!rc && (one.hits < (uint64_t)b->calls || two.hits < (uint64_t)b->calls))
		return gerr_set(e, "%" PRIu64 " and %" PRIu64 " hits counted for %d calls",
				(uint64_t)one.hits, (uint64_t)two.hits, b->calls);
	return rc;
}

/* A probe splicing instrument at site, filtered by expr (which must turn
 * the workload away) unless NULL, into p (f holds its filter); -1 (and why,
 * on stderr) when it cannot be planned. */
static int splice_probe(struct bench *b, const char *figure, uint64_t site,
			const char *instrument, bool trap, const char *expr,
			struct probe *p, struct gilk_filter *f)
{
	struct gerr e;

	*p = (struct probe){ .figure = figure, .on = splice_on, .off = splice_off,
			     .instrument = instrument };
	if (expr && site_filter_compile(expr, SF_ANY, 0, f, &e))
		return fail(figure, &e), -1;
	p->filter = expr ? f : NULL;
	if (live_plan(&b->lv, site, 0, &p->plan, &e))
		return fail(figure, &e), -1;
	if (trap) {
		/* the planner traps only where no jump fits; here one does,
		 * so the plan is cut to its first instruction, as a trap
		 * plan is */
		p->plan.mode = SPLICE_TRAP;
		p->plan.bounce_kind = BOUNCE_NONE;
		p->plan.region.len = p->plan.region.live = p->plan.region.insns[0].len;
		p->plan.region.ninsn = 1;
	}
	return 0;
}

/*
 * Two probes measured in turn, each run set against the unprobed runs
 * around it as paired() does, which goes first alternating by round: a
 * figure and its reference see the same drift of the host, so that their
 * ratio holds what the probes differ by. The medians over rounds into *dp
 * and *dq; -1 when either could not be measured.
 */
static int paired_two(struct bench *b, int rounds, struct probe *p, struct probe *q,
		      struct bench_fig *dp, struct bench_fig *dq)
{
	double base[2 * RUNS_MAX + 1], x[RUNS_MAX], y[RUNS_MAX];
	struct gerr e;

	base[0] = one_run(b);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			bool first = (k == 0) == (r % 2 == 0);
			struct probe *o = first ? p : q;
			size_t i = 2 * (size_t)r + (size_t)k;
			double t;

			if (o->on(b, o, &e))
				return fail(o->figure, &e), -1;
			t = one_run(b);
			if (o->off(b, o, &e))
				return fail(o->figure, &e), -1;
			base[i + 1] = one_run(b);
			(first ? x : y)[r] = t - (base[i] + base[i + 1]) / 2;
		}
	}
	*dp = bench_fig_of(x, (size_t)rounds);
	*dq = bench_fig_of(y, (size_t)rounds);
	return 0;
}

static const struct bench_fig unmeasured = { NAN, NAN };

/*
 * A figure in turn with its reference (paired_two) over rounds, and its
 * line. p NULL: not measured. A reference that cannot be measured (bpftrace
 * missing) leaves the figure measured alone. *fp, *fq (unless NULL) get
 * the two.
 */
static void in_turn(struct bench *b, int rounds, const char *name, struct probe *p,
		    const char *ref, struct probe *q, struct bench_fig *fp, struct bench_fig *fq)
{
	struct bench_fig x = unmeasured, y = unmeasured;

	if (p && (!q || paired_two(b, rounds, p, q, &x, &y))) {
		y = unmeasured;
		x = paired(b, p);
	}
	bench_line_fig(stdout, name, x, "ns/hit", ref, y);
	if (fp)
		*fp = x;
	if (fq)
		*fq = y;
}

/* The kprobe state settles in the background (the optimizer runs after a
 * delay): wait for it to become optimized, a few seconds at most. */
static bool optimizes(uint64_t addr)
{
	for (int i = 0; i < 50; i++) {
		if (!strcmp(kprobe_state(addr), "optimized"))
			return true;
		usleep(100000);
	}
	return false;
}

static int kprobe_on(struct bench *b, struct probe *p, struct gerr *e)
{
	const char *where[2] = { p->where, p->where };
	size_t n = p->copies == 2 ? 2 : 1;

	(void)b;
	if (p->int3 && kprobes_optimize(false, e))
		return -1;
	if (kprobe_events_add(where, n, e))
		return kprobe_events_clear(n, e), -1;
	if (p->optimized && !optimizes(p->optimized)) {
		kprobe_events_clear(n, e);
		return gerr_set(e, "the kernel did not optimize it this time");
	}
	if (p->record && kprobe_events_record(true, e))
		return kprobe_events_clear(n, e), -1;
	return 0;
}

static int kprobe_off(struct bench *b, struct probe *p, struct gerr *e)
{
	size_t n = p->copies == 2 ? 2 : 1;

	(void)b;
	if (p->record && kprobe_events_record(false, e))
		return kprobe_events_clear(n, e), -1;
	if (kprobe_events_clear(n, e))
		return -1;
	return p->int3 ? kprobes_optimize(true, e) : 0;
}

/* A kprobe event at where: at optimized (its address), measured once the
 * kernel has optimized it (in the background, after a delay); int3, with
 * optimization off while it is on; with record, tracing on, so that each
 * hit writes its event into the trace buffer, as gilk's tsc writes one into
 * its own. */
static struct probe kprobe_probe(const char *figure, const char *where, uint64_t optimized,
				 bool int3, bool record)
{
	return (struct probe){ .figure = figure, .on = kprobe_on, .off = kprobe_off,
			       .where = where, .optimized = optimized, .int3 = int3,
			       .record = record };
}

static int bpftrace_on(struct bench *b, struct probe *p, struct gerr *e)
{
	(void)b;
	return bpftrace_start_action(&p->bt, p->where, p->action, e);
}

static int bpftrace_off(struct bench *b, struct probe *p, struct gerr *e)
{
	uint64_t count;

	if (bpftrace_stop(&p->bt, &count, e))
		return -1;
	if (count < (uint64_t)b->calls)
		return gerr_set(e, "bpftrace counted %" PRIu64 " for %d calls", count, b->calls);
	return 0;
}

/* bpftrace at probe, doing action (NULL: only counting) a hit. */
static struct probe bpftrace_probe(const char *figure, const char *probe, const char *action)
{
	return (struct probe){ .figure = figure, .on = bpftrace_on, .off = bpftrace_off,
			       .where = probe, .action = action };
}

/*
 * hello at site (an event with the pid a hit, into gilk's ring) in turn
 * with bpftrace's kfunc at the function printing the pid (8 bytes a hit
 * into its perf buffer, which bpftrace reads and prints as it goes): the
 * same event, each tool's way. hello alone where bpftrace is not there.
 */
static void hello_vs_bpftrace(struct bench *b, uint64_t site, const char *kfunc)
{
	struct probe p, q = bpftrace_probe("bpftrace kfunc printing the pid", kfunc,
					   "printf(\"%d\\n\", pid);");
	bool ok = !splice_probe(b, "hello at entry", site, "hello", false, NULL, &p, NULL);

	in_turn(b, b->runs, "hit-hello-entry", ok ? &p : NULL, "bpftrace-kfunc-printf-pid-in-turn",
		kfunc[0] ? &q : NULL, NULL, NULL);
}

/*
 * hello with a fetch of the task's name (16 bytes read through current with
 * copy_from_kernel_nofault() into each event) in turn with bpftrace's kfunc
 * printing the same string (curtask->comm, its 16 bytes read with
 * bpf_probe_read_kernel() into its perf buffer; bpftrace's str() takes no
 * array): one string fetched and recorded a hit, each tool's way. The
 * offset of comm is the running kernel's, from its BTF.
 */
static void fetch_vs_bpftrace(struct bench *b, uint64_t site, const char *kfunc)
{
	struct probe p, q = bpftrace_probe("bpftrace kfunc printing comm", kfunc,
					   "printf(\"%s\\n\", curtask->comm);");
	struct gilk_fetch f = { .len = 1 };
	struct ktypes *t;
	struct kmember m;
	struct ktype ty;
	struct gerr e;
	bool ok = false;

	if (ktypes_open_file("/sys/kernel/btf/vmlinux", &t, &e)) {
		fail("fetch: BTF", &e);
	} else if (ktypes_parse(t, "struct task_struct", &ty, &e) ||
		   ktypes_member(t, &ty, "comm", &m, &e)) {
		ktypes_close(t);
		fail("fetch: task_struct.comm", &e);
	} else {
		ktypes_close(t);
		snprintf(f.text, sizeof(f.text), "current->comm");
		snprintf(f.value[0].name, sizeof(f.value[0].name), "comm");
		f.value[0].from = GILK_FETCH_FROM_TASK;
		f.value[0].nsteps = 1;
		f.value[0].show = GILK_FSHOW_STRING;
		f.value[0].step[0] = (struct gilk_fetch_step){ .op = GILK_FSTEP_STRING,
							       .width = 16,
							       .off = (int64_t)m.offset };
		ok = !splice_probe(b, "hello fetching comm", site, "hello", false, NULL, &p, NULL);
		p.fetch = &f;
	}
	in_turn(b, b->runs, "hit-fetch-string-entry", ok ? &p : NULL,
		"bpftrace-kfunc-printf-str-in-turn", kfunc[0] ? &q : NULL, NULL, NULL);
}

/* The maps gilk.ko and bpftrace keep in turn (agg_vs_bpftrace). */
enum agg_bench { AGG_BY_COMM, AGG_HIST_PID, AGG_BY_STACK };

/*
 * An aggregation in gilk.ko in turn with bpftrace's kfunc keeping the same
 * map: a count by the task's name (@k[comm] = count()), a power-of-two
 * histogram of the pid (@h = hist(pid)), and a count by the kernel stack
 * (@s[kstack] = count(): a walk of the stack a hit, on both sides).
 * bpftrace's program also counts every hit in @ (the bench's check that
 * it ran), as gilk counts a splice's hits beside its map.
 */
static void agg_vs_bpftrace(struct bench *b, uint64_t site, const char *kfunc,
			    enum agg_bench which)
{
	static const char *const figures[] = {
		"bpftrace kfunc @k[comm] = count()", "bpftrace kfunc @h = hist(pid)",
		"bpftrace kfunc @s[kstack] = count()",
	};
	static const char *const actions[] = {
		"@k[comm] = count();", "@h = hist(pid);", "@s[kstack] = count();",
	};
	static const char *const names[][2] = {
		{ "hit-count-by-comm-entry", "bpftrace-kfunc-count-by-comm-in-turn" },
		{ "hit-hist-pid-entry", "bpftrace-kfunc-hist-pid-in-turn" },
		{ "hit-count-by-stack-entry", "bpftrace-kfunc-count-by-kstack-in-turn" },
	};
	static struct gilk_agg a[] = {
		{ .kind = GILK_AGG_COUNT, .key = GILK_FF_COMM, .keys = 4096, .text = "count by comm" },
		{ .kind = GILK_AGG_HIST, .key = GILK_AGG_KEY_NONE, .value = GILK_FF_PID, .keys = 1,
		  .text = "hist pid" },
		{ .kind = GILK_AGG_COUNT, .key = GILK_AGG_KEY_STACK, .keys = 1024,
		  .text = "count by stack" },
	};
	struct probe p, q = bpftrace_probe(figures[which], kfunc, actions[which]);
	bool ok = !splice_probe(b, a[which].text, site, "count", false, NULL, &p, NULL);

	p.agg = &a[which];
	in_turn(b, b->runs, names[which][0], ok ? &p : NULL, names[which][1],
		kfunc[0] ? &q : NULL, NULL, NULL);
}

static uint64_t function_addr(struct bench *b, const char *name)
{
	const struct ksym *s;

	return symtab_by_name(b->lv.k.syms, name, &s, 1) ? s->addr : 0;
}

/* The first instruction of fn past from where a kprobe event is optimized:
 * its where ("fn+off") and address, or 0. */
static uint64_t optimized_site(struct bench *b, uint64_t fn, uint64_t from,
			       const char *name, char *where, size_t len)
{
	static struct cfg g;
	struct gerr e;

	if (kernel_cfg(&b->lv.k, fn, &g, &e))
		return fail("opt site", &e), 0;
	for (size_t i = 0; i < g.ninsn; i++) {
		const struct insn *in = &g.insns[i];
		const char *w = where;
		bool ok;

		if (in->addr <= from || in->kind != IK_PLAIN)
			continue;
		snprintf(where, len, "%s+%" PRIu64, name, in->addr - fn);
		fprintf(stderr, "bench-live: a kprobe event at %s: optimized?\n", where);
		if (kprobe_events_add(&w, 1, &e)) {
			kprobe_events_clear(1, &e);
			continue;
		}
		ok = optimizes(in->addr);
		kprobe_events_clear(1, &e);
		if (ok)
			return in->addr;
	}
	return 0;
}

static void per_hit(struct bench *b)
{
	uint64_t fn = function_addr(b, WORKLOAD), block, opt = 0, entry_fn = 0, entry;
	char at_block[160], at_opt[160] = "none", bt_block[200], bt_entry[200], kfunc[200];
	const char *entry_name = NULL;
	struct probe kp3, kpo, kpor, kpf, bt_p, bt_f, bt_k, cnt, tscp, regp, trapp, fpid, fcomm;
	struct probe fany, cnt_opt, tsc_opt, cnt_e, two, two_opt, kp3_two, kpo_two;
	struct gilk_filter ff[3];
	struct bench_fig kp_int3;
	bool have[12];
	double none;
	struct bpftrace bt;
	uint64_t unused;
	struct gerr e;

	if (!fn) {
		fprintf(stderr, "bench-live: no %s\n", WORKLOAD);
		return;
	}
	progress("per hit: finding an optimized kprobe site and a kfunc target");
	block = live_block_site(&b->lv, fn);
	snprintf(at_block, sizeof(at_block), "%s+%" PRIu64, WORKLOAD, block - fn);
	/* optimization on (the kernel's default) to find the optimized site */
	if (kprobes_optimize(true, &e))
		fail("kprobes-optimization", &e);
	opt = optimized_site(b, fn, block, WORKLOAD, at_opt, sizeof(at_opt));
	for (size_t i = 0; i < sizeof(kfunc_targets) / sizeof(kfunc_targets[0]) && !entry_name; i++) {
		snprintf(kfunc, sizeof(kfunc), "kfunc:%s", kfunc_targets[i]);
		fprintf(stderr, "bench-live: bpftrace on %s?\n", kfunc);
		if (!function_addr(b, kfunc_targets[i]) || bpftrace_start(&bt, kfunc, &e))
			continue;
		bpftrace_stop(&bt, &unused, &e);
		entry_name = kfunc_targets[i];
		entry_fn = function_addr(b, entry_name);
	}
	if (!entry_name) {
		entry_name = kfunc_targets[0];
		entry_fn = function_addr(b, entry_name);
		kfunc[0] = 0;
		fprintf(stderr, "bench-live: no kfunc probe attaches to %s (%s)\n", entry_name, e.msg);
	}
	entry = entry_fn ? live_block_site(&b->lv, entry_fn) : 0;
	printf("sites: block %s (0x%" PRIx64 "), opt %s (optimized kprobe), entry %s+0 (ftrace; gilk at +%" PRIu64 "); %d runs of %d getppid() calls, medians\n",
	       at_block, block, opt ? at_opt : "none found", entry_name,
	       entry - entry_fn, b->runs, b->calls);
	fflush(stdout);

	progress("per hit: measuring, each figure in turn with its reference");
	none = per_call(b);
	/* the probes, each put on and taken off for every probed run */
	kp3 = kprobe_probe("kprobe int3", at_block, 0, true, false);
	snprintf(bt_block, sizeof(bt_block), "kprobe:%s", at_block);
	bt_p = bpftrace_probe("bpftrace kprobe", bt_block, NULL);
	have[0] = !splice_probe(b, "count", block, "count", false, NULL, &cnt, NULL);
	have[1] = !splice_probe(b, "tsc", block, "tsc", false, NULL, &tscp, NULL);
	have[2] = !splice_probe(b, "regs", block, "regs", false, NULL, &regp, NULL);
	have[3] = !splice_probe(b, "regs trap", block, "regs", true, NULL, &trapp, NULL);
	/* filters the workload fails: one test of the task, inline in count;
	 * one that reads registers and globs the name, through a call */
	have[4] = !splice_probe(b, "count if pid", block, "count", false, "pid == 1", &fpid, &ff[0]);
	have[5] = !splice_probe(b, "count if comm", block, "count", false, "comm == \"nobody\"",
				&fcomm, &ff[1]);
	have[6] = !splice_probe(b, "count if any", block, "count", false,
				"(arg0 == 7 && comm ~ \"nobody*\") || cpu > 4096 || !(rflags & 2)",
				&fany, &ff[2]);
	kp_int3 = paired(b, &kp3);
	bench_line(stdout, "hit-none", none, "ns/call", "kprobe-int3 per hit", kp_int3.value);
	in_turn(b, b->runs, "hit-count", have[0] ? &cnt : NULL, "kprobe-int3", &kp3, NULL, NULL);
	in_turn(b, b->runs, "hit-tsc", have[1] ? &tscp : NULL, "kprobe-int3", &kp3, NULL, NULL);
	in_turn(b, b->runs, "hit-regs", have[2] ? &regp : NULL, "kprobe-int3", &kp3, NULL, NULL);
	in_turn(b, b->runs, "hit-regs-trap", have[3] ? &trapp : NULL, "kprobe-int3", &kp3,
		NULL, NULL);
	/* a filtered count and a count differ by a few ns in a call of about
	 * 1 us under TCG: the most rounds */
	in_turn(b, RUNS_MAX, "hit-filtered-pid", have[4] ? &fpid : NULL, "count-in-turn",
		have[0] ? &cnt : NULL, NULL, NULL);
	in_turn(b, RUNS_MAX, "hit-filtered-comm", have[5] ? &fcomm : NULL, "count-in-turn",
		have[0] ? &cnt : NULL, NULL, NULL);
	in_turn(b, b->runs, "hit-filtered-any", have[6] ? &fany : NULL, "regs",
		have[2] ? &regp : NULL, NULL, NULL);
	bench_line_fig(stdout, "hit-kprobe-int3", kp_int3, "ns/hit", "unprobed call",
		       (struct bench_fig){ none, 0 });
	in_turn(b, b->runs, "hit-bpftrace-kprobe-int3", &bt_p, "kprobe-int3", &kp3, NULL, NULL);
	kpo = kprobe_probe("kprobe optimized", at_opt, opt, false, false);
	kpor = kprobe_probe("kprobe optimized, recording", at_opt, opt, false, true);
	have[7] = opt && !splice_probe(b, "count at opt", opt, "count", false, NULL, &cnt_opt, NULL);
	have[8] = opt && !splice_probe(b, "tsc at opt", opt, "tsc", false, NULL, &tsc_opt, NULL);
	in_turn(b, b->runs, "hit-count-opt", have[7] ? &cnt_opt : NULL, "kprobe-optimized",
		opt ? &kpo : NULL, NULL, NULL);
	in_turn(b, b->runs, "hit-tsc-opt", have[8] ? &tsc_opt : NULL, "kprobe-optimized",
		opt ? &kpo : NULL, NULL, NULL);
	in_turn(b, b->runs, "hit-tsc-opt", have[8] ? &tsc_opt : NULL, "kprobe-optimized-recording",
		opt ? &kpor : NULL, NULL, NULL);
	in_turn(b, b->runs, "hit-kprobe-optimized", opt ? &kpo : NULL, "kprobe-int3", &kp3,
		NULL, NULL);
	in_turn(b, b->runs, "hit-kprobe-optimized-recording", opt ? &kpor : NULL,
		"kprobe-optimized", opt ? &kpo : NULL, NULL, NULL);
	/* two instruments at one site: a count joined by another, against two
	 * kprobe events at one address (the kernel aggregates them) */
	have[10] = !splice_probe(b, "two counts", block, "count", false, NULL, &two, NULL);
	have[11] = opt && !splice_probe(b, "two counts at opt", opt, "count", false, NULL, &two_opt,
					NULL);
	two.on = two_opt.on = splice_two_on;
	two.off = two_opt.off = splice_two_off;
	kp3_two = kprobe_probe("two kprobes int3", at_block, 0, true, false);
	kpo_two = kprobe_probe("two kprobes optimized", at_opt, opt, false, false);
	kp3_two.copies = kpo_two.copies = 2;
	in_turn(b, b->runs, "hit-count-two", have[10] ? &two : NULL, "kprobe-int3-two", &kp3_two,
		NULL, NULL);
	in_turn(b, b->runs, "hit-count-two-opt", have[11] ? &two_opt : NULL, "kprobe-optimized-two",
		opt ? &kpo_two : NULL, NULL, NULL);
	kpf = kprobe_probe("kprobe ftrace", entry_name, 0, false, false);
	snprintf(bt_entry, sizeof(bt_entry), "kprobe:%s", entry_name);
	bt_f = bpftrace_probe("bpftrace kprobe ftrace", bt_entry, NULL);
	bt_k = bpftrace_probe("bpftrace kfunc", kfunc, NULL);
	have[9] = entry && !splice_probe(b, "count at entry", entry, "count", false, NULL,
					 &cnt_e, NULL);
	in_turn(b, b->runs, "hit-count-entry", have[9] ? &cnt_e : NULL, "bpftrace-kfunc",
		kfunc[0] ? &bt_k : NULL, NULL, NULL);
	in_turn(b, b->runs, "hit-kprobe-ftrace", &kpf, "kprobe-int3", &kp3, NULL, NULL);
	in_turn(b, b->runs, "hit-bpftrace-kprobe-ftrace", &bt_f, "kprobe-ftrace", &kpf, NULL, NULL);
	in_turn(b, b->runs, "hit-bpftrace-kfunc", kfunc[0] ? &bt_k : NULL, "kprobe-ftrace", &kpf,
		NULL, NULL);
	if (entry) {
		hello_vs_bpftrace(b, entry, kfunc);
		fetch_vs_bpftrace(b, entry, kfunc);
		agg_vs_bpftrace(b, entry, kfunc, AGG_BY_COMM);
		agg_vs_bpftrace(b, entry, kfunc, AGG_HIST_PID);
		agg_vs_bpftrace(b, entry, kfunc, AGG_BY_STACK);
	}
}

/* The block sites of fn. */
static size_t block_sites(struct bench *b, uint64_t fn, uint64_t *sites, size_t max)
{
	static struct cfg g;
	struct gerr e;
	size_t n = 0;

	if (kernel_cfg(&b->lv.k, fn, &g, &e))
		return fail("blocks", &e), 0;
	for (size_t i = 0; i < g.nblocks && n < max; i++)
		sites[n++] = live_block_site(&b->lv, g.blocks[i].start);
	return n;
}

/* Seconds to plan sites[0..n) and splice the first most that plan with
 * count in one batch, and the splices' ids; the caller unsplices them. */
static double splice_sites(struct bench *b, const uint64_t *sites, size_t n, size_t most,
			   uint32_t *ids, size_t *made, const char *figure)
{
	struct splice_plan *plans = calloc(n, sizeof(*plans));
	bool *ok = calloc(n, sizeof(*ok));
	enum splice_reason *why = calloc(n, sizeof(*why));
	double t0 = now(), t = NAN;
	size_t good = 0;
	struct gerr e;

	if (!plans || !ok || !why) {
		fprintf(stderr, "bench-live: %s: out of memory\n", figure);
		goto out;
	}
	if (live_batch_begin(&b->lv, sites, n, &e)) {
		fail(figure, &e);
		goto out;
	}
	live_plan_many(&b->lv, sites, n, 0, plans, ok, why);
	for (size_t i = 0; i < n && good < most; i++)
		if (ok[i])
			plans[good++] = plans[i];
	if (good && live_splice_batch(&b->lv, plans, good, "count", "", ids, &e) == 0) {
		t = now() - t0;
		*made = good;
	} else {
		fail(figure, &e);
	}
	live_batch_end(&b->lv);
out:
	free(plans);
	free(ok);
	free(why);
	return t;
}

/* "fn+off" for each site, into one buffer: where[i] points into it. */
static char *name_sites(const uint64_t *sites, size_t n, const char *fn_name,
			uint64_t fn, const char **where)
{
	char *buf = malloc(n * 96), *p = buf;

	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		where[i] = p;
		p += sprintf(p, "%s+%" PRIu64, fn_name, sites[i] - fn) + 1;
	}
	return buf;
}

static double kprobe_events_time(const char *const *where, size_t n)
{
	struct gerr e;
	double t0 = now(), t;

	if (kprobe_events_add(where, n, &e)) {
		fail("kprobe events", &e);
		kprobe_events_clear(n, &e);
		return NAN;
	}
	t = now() - t0;
	kprobe_events_clear(n, &e);
	return t;
}

static double bpftrace_attach_time(const char *const *where, size_t n)
{
	size_t len = 0;
	char *probes;
	struct bpftrace bt;
	uint64_t count;
	struct gerr e;
	double t0, t;

	for (size_t i = 0; i < n; i++)
		len += strlen(where[i]) + 8;
	probes = malloc(len + 1);
	if (!probes)
		return NAN;
	probes[0] = 0;
	for (size_t i = 0; i < n; i++)
		sprintf(probes + strlen(probes), "%skprobe:%s", i ? "," : "", where[i]);
	t0 = now();
	if (bpftrace_start(&bt, probes, &e)) {
		fail("bpftrace attach", &e);
		free(probes);
		return NAN;
	}
	t = now() - t0;
	bpftrace_stop(&bt, &count, &e);
	free(probes);
	return t;
}

/* Planning every block of fn live (FACTS asked of gilk.ko, a fresh
 * session each round: nothing learnt before) against offline planning of
 * the same from /proc/kcore (the image's facts), each a median. */
static void planning(uint64_t fn, const uint64_t *sites, size_t n)
{
	double live_t[ROUNDS], off_t[ROUNDS];
	struct splice_plan p;
	static struct cfg_window w;
	struct gerr e;

	for (int r = 0; r < ROUNDS; r++) {	/* in turn, round by round */
		struct live fresh;
		struct kernel k;
		struct splice_plan *plans = calloc(n, sizeof(*plans));
		bool *ok = calloc(n, sizeof(*ok));
		enum splice_reason *why = calloc(n, sizeof(*why));
		struct splice_env env;
		double t0;

		if (!plans || !ok || !why || live_open(&fresh, NULL, &e)) {
			free(plans), free(ok), free(why);
			return fail("live planning", &e);
		}
		t0 = now();
		if (live_batch_begin(&fresh, &fn, 1, &e) == 0) {
			live_plan_many(&fresh, sites, n, 0, plans, ok, why);
			live_batch_end(&fresh);
		}
		live_t[r] = (now() - t0) * 1e3;
		live_close(&fresh);
		free(plans), free(ok), free(why);

		/* a kernel opened anew each round: its decoder remembers
		 * nothing, as the fresh live session's does not */
		if (kernel_open(&k, "/proc/kcore", "/proc/kallsyms", &e))
			return fail("offline planning", &e);
		t0 = now();
		if (kernel_window(&k, fn, 160, &w, &e)) {
			window_free(&w);
			kernel_close(&k);
			return fail("offline planning", &e);
		}
		kernel_env(&k, &w, &env);
		for (size_t i = 0; i < n; i++)
			splice_plan(&env, sites[i], &p);
		off_t[r] = (now() - t0) * 1e3;
		window_free(&w);
		kernel_close(&k);
	}
	bench_line_fig(stdout, "plan-function-live", bench_fig_of(live_t, ROUNDS), "ms",
		       "plan-function-offline", bench_fig_of(off_t, ROUNDS));
}

/* Of the sites[0..n) of fn, the first BATCH that gilk plans and a kprobe
 * event takes (kprobes refuse some, BUG() sites for one), moved to the
 * front; their count. */
static size_t common_sites(struct bench *b, uint64_t fn, uint64_t *sites, size_t n)
{
	struct splice_plan *plans = calloc(n, sizeof(*plans));
	bool *ok = calloc(n, sizeof(*ok));
	enum splice_reason *why = calloc(n, sizeof(*why));
	size_t keep = 0;
	struct gerr e;

	if (plans && ok && why && live_batch_begin(&b->lv, sites, n, &e) == 0) {
		live_plan_many(&b->lv, sites, n, 0, plans, ok, why);
		live_batch_end(&b->lv);
	}
	for (size_t i = 0; i < n && keep < BATCH; i++) {
		char where[160];
		const char *w = where;

		snprintf(where, sizeof(where), "%s+%" PRIu64, BATCH_FUNCTION, sites[i] - fn);
		if (ok && ok[i] && kprobe_events_add(&w, 1, &e) == 0)
			sites[keep++] = sites[i];
		kprobe_events_clear(1, &e);
	}
	free(plans);
	free(ok);
	free(why);
	return keep;
}

/*
 * Before each turnaround figure, the grace periods the one before it
 * started are over: an unsplice waits for two RCU-tasks grace periods, the
 * kprobe optimizer (5 jiffies after a probe comes or goes) for one, and
 * the RCU-tasks kthread sleeps 100 ms after each grace period before it
 * starts the next. A figure taken in that sleep would pay for the one
 * before it, as a command typed at a quiet kernel does not.
 */
static void settle(void)
{
	usleep(300000);
}

/* Returns the time of one kprobe event of the 100, for coverage(). */
static double turnaround(struct bench *b)
{
	uint64_t fn = function_addr(b, BATCH_FUNCTION), all[BLOCKS_MAX], sites[BLOCKS_MAX];
	double one[ROUNDS], kp_one[ROUNDS], batch[ROUNDS], kp_batch[ROUNDS], bt_batch;
	const char *where[BATCH];
	uint32_t ids[BATCH];
	size_t nall, n, made;
	struct gerr e;
	char *names;

	if (!fn) {
		fprintf(stderr, "bench-live: no %s\n", BATCH_FUNCTION);
		return NAN;
	}
	progress("turnaround: one splice, a 100-block batch, kprobe events, bpftrace");
	nall = block_sites(b, fn, all, BLOCKS_MAX);
	memcpy(sites, all, nall * sizeof(*all));
	n = common_sites(b, fn, sites, nall);
	names = name_sites(sites, n, BATCH_FUNCTION, fn, where);
	if (!n || !names)
		return NAN;
	for (int r = 0; r < ROUNDS; r++) {
		settle();
		one[r] = splice_sites(b, sites, 1, 1, ids, &made, "one splice");
		if (!isnan(one[r]))
			live_unsplice_batch(&b->lv, ids, made, &e);
		settle();
		kp_one[r] = kprobe_events_time(where, 1);
		settle();
		batch[r] = splice_sites(b, sites, n, n, ids, &made, "batch");
		if (!isnan(batch[r]))
			live_unsplice_batch(&b->lv, ids, made, &e);
		settle();
		kp_batch[r] = kprobe_events_time(where, n);
	}
	bt_batch = bpftrace_attach_time(where, n);
	printf("batch: %zu blocks of %s (of %zu) that gilk plans and kprobes take\n",
	       n, BATCH_FUNCTION, nall);
	for (int r = 0; r < ROUNDS; r++) {	/* in ms */
		one[r] *= 1e3, kp_one[r] *= 1e3, batch[r] *= 1e3, kp_batch[r] *= 1e3;
	}
	bench_line_fig(stdout, "splice-one", bench_fig_of(one, ROUNDS), "ms",
		       "kprobe-event-one", bench_fig_of(kp_one, ROUNDS));
	bench_line_fig(stdout, "splice-batch-100", bench_fig_of(batch, ROUNDS), "ms",
		       "splice-one", bench_fig_of(one, ROUNDS));
	bench_line_fig(stdout, "splice-batch-100", bench_fig_of(batch, ROUNDS), "ms",
		       "kprobe-events-100", bench_fig_of(kp_batch, ROUNDS));
	bench_line_fig(stdout, "splice-batch-100", bench_fig_of(batch, ROUNDS), "ms",
		       "bpftrace-attach-100", (struct bench_fig){ bt_batch * 1e3, NAN });
	bench_line_fig(stdout, "kprobe-events-100", bench_fig_of(kp_batch, ROUNDS), "ms",
		       "bpftrace-attach-100", (struct bench_fig){ bt_batch * 1e3, NAN });
	planning(fn, all, nall);
	free(names);
	return bench_median(kp_batch, ROUNDS) / 1e3 / (double)n;
}

/* Runs a shell command; its seconds, NAN when it failed. */
static double timed(const char *cmd)
{
	double t0 = now();
	int rc = system(cmd);

	if (rc != 0) {
		fprintf(stderr, "bench-live: \"%.80s...\" failed (status %d)\n", cmd, rc);
		return NAN;
	}
	return now() - t0;
}

/* A number from a "NAME: N ..." line of a /proc file, or NAN. */
static double proc_number(const char *path, const char *name)
{
	char line[256];
	double v = NAN;
	size_t n = strlen(name);
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			v = strtod(line + n + 1, NULL);
	if (f)
		fclose(f);
	return v;
}

/* The peak RSS of a shell that ran cmd (a -c COMMAND), in KiB, or NAN. */
static double shell_peak(const char *cmd)
{
	char line[512];
	double rss = NAN;
	FILE *f;

	snprintf(line, sizeof(line),
		 "build/gilk -batch %s -c 'shell grep VmHWM /proc/$PPID/status' 2>/dev/null", cmd);
	f = popen(line, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			rss = strtod(line + 6, NULL);
	if (!f || pclose(f) != 0)
		return NAN;
	return rss;
}

/*
 * The whole kernel's coverage, coverage '*', as a user runs it: its time
 * against the networking core's per splice, the shell's peak memory
 * against a shell that did nothing, and what gilk.ko's slabs grew by for
 * each splice against its trampoline bytes.
 */
static void coverage_kernel(struct bench *b, double netcore_per_splice)
{
	struct gilk_stats st;
	struct gerr e;
	double t0, t, slab0, slab, rss, idle = shell_peak("");

	progress("turnaround: the whole kernel's coverage");
	slab0 = proc_number("/proc/meminfo", "Slab");
	t0 = now();
	rss = shell_peak("-c \"coverage '*'\"");
	if (isnan(rss)) {
		fprintf(stderr, "bench-live: coverage '*' failed\n");
		return;
	}
	t = now() - t0;
	slab = proc_number("/proc/meminfo", "Slab");
	if (live_stats(&b->lv, &st, &e) || !st.splices)
		return;
	timed("build/gilk -batch -c 'unsplice all' >/dev/null");
	printf("coverage: the whole kernel, %u splices\n", st.splices);
	bench_line(stdout, "coverage-kernel", t, "s", "coverage-netcore per splice x splices",
		   netcore_per_splice * st.splices);
	bench_line(stdout, "shell-rss-coverage-kernel", rss / 1024, "MiB", "shell-rss-idle",
		   idle / 1024);
	bench_line(stdout, "gilk-slab-per-splice", (slab - slab0) * 1024 / st.splices, "bytes",
		   "trampoline bytes per splice", (double)st.tramp_bytes / st.splices);
}

/* The networking core through the shell's coverage command, as a user
 * runs it, against kprobe events at as many sites (from the 100-block
 * figure: defining them all would take the boot's remaining time). */
static void coverage(struct bench *b, double kp_per_event)
{
	struct gilk_stats st;
	struct gerr e;
	double t, stop;

	progress("turnaround: the networking core's coverage");
	t = timed("build/gilk -batch -c \"coverage " NETCORE "\" >/dev/null");
	if (isnan(t) || live_stats(&b->lv, &st, &e))
		return;
	/* a coverage set lives in its shell: a new one removes the splices */
	stop = timed("build/gilk -batch -c 'unsplice all' >/dev/null");
	printf("coverage: %u splices\n", st.splices);
	bench_line(stdout, "coverage-netcore", t, "s", "kprobe-events-100 per event x splices",
		   kp_per_event * st.splices);
	bench_line(stdout, "coverage-netcore-unsplice", stop, "s", "coverage-netcore", t);
	coverage_kernel(b, t / st.splices);
}

/* Up to MANY_SITES sites of the networking core's functions, in address
 * order. */
static size_t netcore_sites(struct bench *b, uint64_t *sites)
{
	static const char *const globs[] = { "tcp_*", "udp*", "ip_*", "inet_*", "dev_*",
					     "skb_*", "sock_*", "sk_*", "neigh_*", "fib_*" };
	size_t nfn = symtab_functions(b->lv.k.syms, b->lv.k.text_start, b->lv.k.text_end, NULL, 0);
	const struct ksym **fns = calloc(nfn, sizeof(*fns));
	size_t n = 0;

	if (!fns)
		return 0;
	symtab_functions(b->lv.k.syms, b->lv.k.text_start, b->lv.k.text_end, fns, nfn);
	for (size_t f = 0; f < nfn && n < MANY_SITES; f++)
		for (size_t g = 0; g < sizeof(globs) / sizeof(globs[0]); g++)
			if (!fnmatch(globs[g], fns[f]->name, 0)) {
				n += block_sites(b, fns[f]->addr, sites + n, MANY_SITES - n);
				break;
			}
	free(fns);
	return n;
}

static void memory(struct bench *b)
{
	uint64_t *sites = calloc(MANY_SITES, sizeof(*sites));
	uint32_t *ids = calloc(MANY, sizeof(*ids));
	struct gilk_stats st;
	size_t n, made = 0, kallsyms = 0;
	struct gerr e;
	FILE *f;
	char line[256];
	double rss = NAN, t;

	if (!sites || !ids)
		goto out;
	progress("memory: 10,000 splices");
	n = netcore_sites(b, sites);
	t = splice_sites(b, sites, n, MANY, ids, &made, "10,000 splices");
	if (!isnan(t) && live_stats(&b->lv, &st, &e) == 0) {
		printf("memory: %zu splices (of %zu blocks planned)\n", made, n);
		bench_line(stdout, "tramp-bytes-per-splice", (double)st.tramp_bytes / (double)made,
			   "bytes", "a page per splice", PAGE);
		bench_line(stdout, "module-memory-10k", (double)st.tramp_mapped / 1024, "KiB",
			   "a page per splice", PAGE * (double)made / 1024);
	}
	if (made)
		live_unsplice_batch(&b->lv, ids, made, &e);
	/* the shell, live, as a user starts it: its peak RSS */
	f = popen("build/gilk -batch -c 'shell grep VmHWM /proc/$PPID/status'", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			rss = strtod(line + 6, NULL);
	if (f)
		pclose(f);
	/* /proc/kallsyms has no size: count it */
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f))
		kallsyms += strlen(line);
	if (f)
		fclose(f);
	bench_line(stdout, "shell-rss-live", rss / 1024, "MiB", "/proc/kallsyms text",
		   (double)kallsyms / (1024 * 1024));
out:
	free(sites);
	free(ids);
}

/*
 * What FACTS runs with preemption off: the walks of a module's tables (and
 * the core kernel's bug table), each traced alone with function_graph,
 * against the longest whole FACTS call, over the core kernel's text and
 * every module's, 64 KiB a call.
 */
static const char *const preempt_off_fns[] = {
	"gilk_bug_facts", "gilk_extable_facts", "gilk_fixup_facts", "module_jump_facts",
	"module_live", "same_text", "gilk_facts",
};
#define FACTS_CALL (sizeof(preempt_off_fns) / sizeof(preempt_off_fns[0]) - 1)

static void facts_over(struct bench *b, uint64_t lo, uint64_t hi)
{
	static struct gilk_fact buf[256];

	for (uint64_t a = lo; a < hi; a += 65536) {
		struct gilk_facts q = { .start = a, .end = a + 65536 < hi ? a + 65536 : hi,
					.max = 256, .buf = (uintptr_t)buf };

		ioctl(b->lv.fd, GILK_IOC_FACTS, &q);	/* a gap between texts: refused */
	}
}

static void facts_sweep(void *arg)
{
	struct bench *b = arg;
	FILE *f = fopen("/proc/modules", "r");
	unsigned long long addr, size;
	char line[512];

	facts_over(b, b->lv.k.text_start, b->lv.k.text_end);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %llu %*s %*s %*s %llx", &size, &addr) == 2)
			facts_over(b, addr, addr + size);
	if (f)
		fclose(f);
}

static void preempt_off(struct bench *b)
{
	double us[sizeof(preempt_off_fns) / sizeof(preempt_off_fns[0])], worst = 0;
	const char *which = "none traced";
	char untraced[256] = "";
	struct gerr e;

	progress("FACTS with preemption off");
	if (graph_longest(preempt_off_fns, FACTS_CALL + 1, facts_sweep, b, us, &e)) {
		fail("facts-preempt-off", &e);
		return;
	}
	for (size_t i = 0; i < FACTS_CALL; i++) {
		if (isnan(us[i]))
			snprintf(untraced + strlen(untraced), sizeof(untraced) - strlen(untraced),
				 " %s", preempt_off_fns[i]);
		if (us[i] > worst) {
			worst = us[i];
			which = preempt_off_fns[i];
		}
	}
	printf("preempt-off: the longest in %s; inlined, in their callers:%s\n", which,
	       *untraced ? untraced : " none");
	bench_line(stdout, "facts-preempt-off", worst, "us", "facts-call", us[FACTS_CALL]);
}

/*
 * The source lines' cost to a command: finding the running kernel's line
 * index by its build id, mapping it, and answering "info line vfs_read"
 * (the line of an address and its file's name), each run from nothing; set
 * against reading /proc/kallsyms, which every gilk does as it starts.
 */
static void source_lines(struct bench *b)
{
	double idx[RUNS_MAX], syms[RUNS_MAX];
	const struct ksym *fn;
	struct kernel_lines kl;
	struct line_row r;
	struct gerr e;

	progress("source lines: the index found, mapped and asked, against reading kallsyms");
	if (symtab_by_name(b->lv.k.syms, "vfs_read", &fn, 1) != 1) {
		fprintf(stderr, "bench-live: no vfs_read\n");
		return;
	}
	for (int i = 0; i < b->runs; i++) {
		struct symtab *st;
		double t0 = now();

		if (kernel_lines_open(&kl, &b->lv.k, true, NULL, &e)) {
			fail("lines-info-line", &e);
			return;
		}
		if (kernel_lines_row_at(&kl, fn->addr, &r) < 0 || !lineindex_file_name(kl.li, r.file)[0]) {
			fprintf(stderr, "bench-live: no line for vfs_read\n");
			kernel_lines_close(&kl);
			return;
		}
		kernel_lines_close(&kl);
		idx[i] = (now() - t0) * 1e3;
		t0 = now();
		if (symtab_load("/proc/kallsyms", &st, &e)) {
			fail("kallsyms-load", &e);
			return;
		}
		symtab_free(st);
		syms[i] = (now() - t0) * 1e3;
	}
	bench_line_fig(stdout, "lines-info-line", bench_fig_of(idx, (size_t)b->runs), "ms",
		       "kallsyms-load", bench_fig_of(syms, (size_t)b->runs));
}

int main(int argc, char **argv)
{
	static struct bench b;
	bool per_hit_only = argc > 1 && !strcmp(argv[1], "--per-hit");
	bool preempt_only = argc > 1 && !strcmp(argv[1], "--preempt-off");
	bool turnaround_only = argc > 1 && !strcmp(argv[1], "--turnaround");
	bool lines_only = argc > 1 && !strcmp(argv[1], "--lines");
	bool only = per_hit_only || preempt_only || turnaround_only || lines_only;
	struct gerr e;
	double t0 = now();

	argv += only;
	argc -= only;
	b.calls = argc > 1 ? atoi(argv[1]) : 100000;
	b.runs = argc > 2 ? atoi(argv[2]) : 7;
	if (argc > 3 || b.calls < 1 || b.runs < 1 || b.runs > RUNS_MAX) {
		fprintf(stderr, "usage: bench-live [--per-hit | --preempt-off | --turnaround | --lines] "
			"[CALLS [RUNS (1 to %d)]]\n", RUNS_MAX);
		return 2;
	}
	if (live_open(&b.lv, NULL, &e)) {
		fprintf(stderr, "bench-live: %s\n", e.msg);
		return 1;
	}
	if (!only || per_hit_only)
		per_hit(&b);
	if (!only || preempt_only)
		preempt_off(&b);
	if (turnaround_only)
		turnaround(&b);
	if (!only || lines_only)
		source_lines(&b);
	if (!only) {
		coverage(&b, turnaround(&b));
		memory(&b);
	}
	printf("bench-live: %.0f s\n", now() - t0);
	live_close(&b.lv);
	return 0;
}
