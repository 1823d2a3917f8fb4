/*
 * make bench-live: the cost per hit of a splice, against a kprobe at the
 * same site, measured in one run in the lab (QEMU TCG: absolute times are
 * the emulator's, ratios are what to read). The workload is getppid(); the
 * site is where gilk splices its entry block (past the ftrace nop). Each
 * figure is the median of several timed runs; a probe's cost per hit is its
 * run's time per call minus that of unprobed runs right after it.
 *   count, inline:     jmp to the trampoline, incq %gs:counter, back (the
 *                      template count gets: kmod/tramp.h)
 *   count, full:       the same splice with a full struct pt_regs built and
 *                      gilk_entry() called, as every splice was before
 *   tsc, scratch:      an event per hit, only what the call clobbers saved
 *   tsc, full:         the same with a full struct pt_regs
 *   count, trap:       the inline count reached through an int3 per hit
 *   kprobe:            a kprobe event at the site (tracefs), tracing off, so
 *                      its cost is the probe's and not the trace buffer's
 * The last line is the summary:
 *   live: count N ns/hit, full N ns/hit (inline/full R), tsc N ns/hit, full
 *   N ns/hit (scratch/full R), trap N ns/hit, kprobe N ns/hit (STATE),
 *   count/kprobe R
 *
 *   bench-live [CALLS [RUNS]]     (100000 calls, 7 runs)
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live.h"

#define RUNS_MAX 99

struct workload {
	int calls, runs;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median ns per getppid() over w's runs of w's calls. */
static double per_call(const struct workload *w)
{
	double t[RUNS_MAX];

	for (int r = 0; r < w->runs; r++) {
		double t0 = now();

		for (int i = 0; i < w->calls; i++)
			syscall(SYS_getppid);
		t[r] = (now() - t0) / w->calls;
	}
	qsort(t, (size_t)w->runs, sizeof(t[0]), cmp_double);
	return t[w->runs / 2];
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* trap: the same site reached through an int3 per hit. The planner only
 * chooses that where no jump fits; here one does, so the plan is cut down to
 * its first instruction, as a trap plan is. */
static double with_splice(struct live *lv, const struct workload *w, uint64_t site,
			  const char *instrument, bool full, bool trap)
{
	static char drain[1 << 16];
	struct splice_plan p;
	struct gerr e;
	uint32_t id;
	double t;

	if (live_plan(lv, site, 0, &p, &e)) {
		fprintf(stderr, "bench-live: %s\n", e.msg);
		exit(1);
	}
	if (trap) {
		p.mode = SPLICE_TRAP;
		p.bounce_kind = BOUNCE_NONE;
		p.region.len = p.region.live = p.region.insns[0].len;
		p.region.ninsn = 1;
	}
	lv->full_template = full;
	if (live_splice(lv, &p, instrument, "", &id, &e)) {
		fprintf(stderr, "bench-live: %s\n", e.msg);
		exit(1);
	}
	lv->full_template = false;
	t = per_call(w);
	live_unsplice(lv, id, &e);
	/* the lab shares its CPUs: a base from minutes earlier drifts */
	t -= per_call(w);
	/* what tsc left in the buffer (its lost events are counted, and
	 * cost the same in both templates) */
	while (live_read_events(lv, drain, sizeof(drain), &e) > 0)
		;
	return t;
}

#define TRACEFS "/sys/kernel/tracing"

/* A kprobe event at site, enabled with tracing off; its state as listed in
 * debugfs (optimized or not) goes to state. */
static double with_kprobe(const struct workload *w, const char *where, char *state,
			  size_t len)
{
	char def[256], line[512];
	double t;
	FILE *f;

	snprintf(def, sizeof(def), "p:gilkbench %s\n", where);
	if (write_file(TRACEFS "/tracing_on", "0") ||
	    write_file(TRACEFS "/kprobe_events", def) ||
	    write_file(TRACEFS "/events/kprobes/gilkbench/enable", "1")) {
		fprintf(stderr, "bench-live: cannot set a kprobe event at %s\n", where);
		exit(1);
	}
	/* Optimization, where the kernel can, happens in the background. */
	sleep(1);
	snprintf(state, len, "int3");
	f = fopen("/sys/kernel/debug/kprobes/list", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[OPTIMIZED]"))
			snprintf(state, len, "optimized");
	if (f)
		fclose(f);
	t = per_call(w);
	write_file(TRACEFS "/events/kprobes/gilkbench/enable", "0");
	write_file(TRACEFS "/kprobe_events", "-:gilkbench\n");
	return t - per_call(w);
}

int main(int argc, char **argv)
{
	struct workload w = { argc > 1 ? atoi(argv[1]) : 100000, argc > 2 ? atoi(argv[2]) : 7 };
	struct live lv;
	struct gerr e;
	const struct ksym *s;
	uint64_t fn, site;
	double base, inl, full, tsc, tsc_full, trap, kp;
	char where[160], state[32];

	if (w.calls < 1 || w.runs < 1 || w.runs > RUNS_MAX) {
		fprintf(stderr, "usage: bench-live [CALLS [RUNS (1 to %d)]]\n", RUNS_MAX);
		return 2;
	}
	if (live_open(&lv, NULL, &e)) {
		fprintf(stderr, "bench-live: %s\n", e.msg);
		return 1;
	}
	if (symtab_by_name(lv.k.syms, "__x64_sys_getppid", &s, 1) != 1) {
		fprintf(stderr, "bench-live: no __x64_sys_getppid\n");
		return 1;
	}
	fn = s->addr;
	site = live_block_site(&lv, fn);
	snprintf(where, sizeof(where), "__x64_sys_getppid+%llu", (unsigned long long)(site - fn));
	base = per_call(&w);
	inl = with_splice(&lv, &w, site, "count", false, false);
	full = with_splice(&lv, &w, site, "count", true, false);
	tsc = with_splice(&lv, &w, site, "tsc", false, false);
	tsc_full = with_splice(&lv, &w, site, "tsc", true, false);
	trap = with_splice(&lv, &w, site, "count", false, true);
	kp = with_kprobe(&w, where, state, sizeof(state));
	printf("site: %s; %d runs of %d getppid() calls each, medians\n", where, w.runs, w.calls);
	printf("  unprobed:               %8.1f ns per call\n", base);
	printf("  gilk count, inline:     %+8.1f ns per hit\n", inl);
	printf("  gilk count, full regs:  %+8.1f ns per hit\n", full);
	printf("  gilk tsc, scratch:      %+8.1f ns per hit\n", tsc);
	printf("  gilk tsc, full regs:    %+8.1f ns per hit\n", tsc_full);
	printf("  gilk count, trap:       %+8.1f ns per hit\n", trap);
	printf("  kprobe (%s):%*s%+8.1f ns per hit\n", state, (int)(14 - strlen(state)), "", kp);
	printf("live: count %.0f ns/hit, full %.0f ns/hit (inline/full %.2f), tsc %.0f ns/hit, full %.0f ns/hit (scratch/full %.2f), trap %.0f ns/hit, kprobe %.0f ns/hit (%s), count/kprobe %.2f\n",
	       inl, full, inl / full, tsc, tsc_full, tsc / tsc_full, trap, kp, state, inl / kp);
	live_close(&lv);
	return 0;
}
