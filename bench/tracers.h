/*
 * tracers: what make bench sets gilk against, driven as a user would drive
 * them: kprobe trace events through tracefs, and Debian's bpftrace as a
 * child process. Errors come back as messages; nothing here prints.
 */
#ifndef GILK_BENCH_TRACERS_H
#define GILK_BENCH_TRACERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gerr.h"

/* Defines a kprobe event at each of where[0..n) ("sym+off") in the group
 * "gilkbench" and enables the group, with tracing off so that a hit costs
 * the probe and not the trace buffer. */
int kprobe_events_add(const char *const *where, size_t n, struct gerr *e);
/* Tracing on (the events record into the trace buffer, as a user who reads
 * them has it), or off again with the buffer emptied. */
int kprobe_events_record(bool on, struct gerr *e);
/* Disables and removes the group's events. */
int kprobe_events_clear(size_t n, struct gerr *e);
/* "optimized" or "int3": what the kernel made of its kprobe at addr
 * (debugfs's kprobes list), or "absent". */
const char *kprobe_state(uint64_t addr);
/* Writes "0" or "1" to /proc/sys/debug/kprobes-optimization. */
int kprobes_optimize(bool on, struct gerr *e);

/* Runs work(arg) with the function_graph tracer on fns[0..n) alone (no
 * other function traced) and gives each one's longest call in max_us[],
 * NaN for one ftrace cannot trace (inlined, say). */
int graph_longest(const char *const *fns, size_t n, void (*work)(void *), void *arg,
		  double *max_us, struct gerr *e);

struct bpftrace {
	pid_t pid;
	int out;                   /* its stdout and stderr */
	pid_t drainer;             /* what reads a printing program's hits, or 0 */
};

/* Starts bpftrace on probes ("kprobe:f", "kfunc:f", comma-separated) that
 * count their hits into @, and returns once all are attached (bpftrace
 * runs BEGIN after attaching every probe). */
int bpftrace_start(struct bpftrace *bt, const char *probes, struct gerr *e);
/* The same, with action run on each hit too: a printf of numbers, which a
 * child process reads as bpftrace writes them (as a user's terminal or
 * file would take them), so that bpftrace never waits on its output. */
int bpftrace_start_action(struct bpftrace *bt, const char *probes, const char *action,
			  struct gerr *e);
/* Stops it (SIGINT, as Ctrl-C) and reads the count it printed. */
int bpftrace_stop(struct bpftrace *bt, uint64_t *count, struct gerr *e);

#endif
