/* tracers: kprobe events and bpftrace, the references of make bench
 * (tracers.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracers.h"

#define TRACEFS "/sys/kernel/tracing"
#define KPROBES_LIST "/sys/kernel/debug/kprobes/list"
#define GROUP "gilkbench"
#define BPFTRACE "/usr/bin/bpftrace"
#define GO "gilk-bench: attached"
/* Under TCG compiling and attaching takes seconds a probe; past these
 * bpftrace is taken to hang. */
#define ATTACH_SECONDS 600
#define STOP_SECONDS 60

/* What the system said to what, with its errno as the code. */
static int sys_fail(struct gerr *e, const char *what)
{
	int err = errno;

	return gerr_setc(e, err, "%s: %s", what, strerror(err));
}

static int write_file(const char *path, const char *text, struct gerr *e)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	ssize_t n;
	int err;

	if (fd < 0)
		return sys_fail(e, path);
	n = write(fd, text, strlen(text));
	err = errno;
	close(fd);
	if (n != (ssize_t)strlen(text))
		return gerr_setc(e, err, "%s: writing \"%.*s\": %s", path,
				 (int)strcspn(text, "\n"), text, strerror(err));
	return 0;
}

int kprobe_events_add(const char *const *where, size_t n, struct gerr *e)
{
	char def[256];

	if (write_file(TRACEFS "/tracing_on", "0", e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		snprintf(def, sizeof(def), "p:" GROUP "/p%zu %s\n", i, where[i]);
		if (write_file(TRACEFS "/kprobe_events", def, e))
			return -1;
	}
	return write_file(TRACEFS "/events/" GROUP "/enable", "1", e);
}

int kprobe_events_record(bool on, struct gerr *e)
{
	int fd;

	if (write_file(TRACEFS "/tracing_on", on ? "1" : "0", e))
		return -1;
	if (on)
		return 0;
	/* opened for writing with truncation, the trace file empties the buffer */
	fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);
	if (fd < 0)
		return sys_fail(e, TRACEFS "/trace");
	close(fd);
	return 0;
}

int kprobe_events_clear(size_t n, struct gerr *e)
{
	char def[64];

	if (write_file(TRACEFS "/events/" GROUP "/enable", "0", e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		snprintf(def, sizeof(def), "-:" GROUP "/p%zu\n", i);
		if (write_file(TRACEFS "/kprobe_events", def, e))
			return -1;
	}
	return 0;
}

const char *kprobe_state(uint64_t addr)
{
	FILE *f = fopen(KPROBES_LIST, "r");
	const char *state = "absent";
	char line[512];

	while (f && fgets(line, sizeof(line), f))
		if (strtoull(line, NULL, 16) == addr)
			state = strstr(line, "[OPTIMIZED]") ? "optimized" : "int3";
	if (f)
		fclose(f);
	return state;
}

int kprobes_optimize(bool on, struct gerr *e)
{
	int fd = open("/proc/sys/debug/kprobes-optimization", O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return sys_fail(e, "/proc/sys/debug/kprobes-optimization");
	n = write(fd, on ? "1\n" : "0\n", 2);
	close(fd);
	return n == 2 ? 0 : sys_fail(e, "/proc/sys/debug/kprobes-optimization");
}

/* Reads bpftrace's output a line at a time until a line starting with
 * want (kept in line), the end, or seconds without a byte; the last other
 * line stays in last. */
static bool read_until(int fd, const char *want, char *line, size_t len,
		       char *last, size_t lastlen, int seconds)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	char c;

	while (poll(&p, 1, seconds * 1000) == 1 && read(fd, &c, 1) == 1) {
		if (c != '\n') {
			if (n + 1 < len)
				line[n++] = c;
			continue;
		}
		line[n] = 0;
		if (!strncmp(line, want, strlen(want)))
			return true;
		if (n)
			snprintf(last, lastlen, "%s", line);
		n = 0;
	}
	return false;
}

/*
 * Reads bpftrace's output from in to its end and writes each line that
 * does not start with a digit to out: what a hit prints (a number) is
 * drained as bpftrace writes it, so that it never waits on a full pipe,
 * and what it says (its count, a lost event) goes on to the reader.
 */
static void drain(int in, int out)
{
	char buf[4096];
	bool at_start = true, keep = false;
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (at_start)
				keep = buf[i] < '0' || buf[i] > '9';
			at_start = buf[i] == '\n';
			if (keep && write(out, &buf[i], 1) != 1)
				return;
		}
	}
}

/* A bpftrace that could not be started as asked, gone. */
static void abandon(struct bpftrace *bt)
{
	close(bt->out);
	kill(bt->pid, SIGKILL);
	waitpid(bt->pid, NULL, 0);
}

int bpftrace_start_action(struct bpftrace *bt, const char *probes, const char *action,
			  struct gerr *e)
{
	char prog[1 << 16], line[512], last[512] = "no output";
	int fds[2], kept[2];
	pid_t drainer;
	int len = snprintf(prog, sizeof(prog),
			   "%s { %s @ = count(); } BEGIN { printf(\"" GO "\\n\"); }",
			   probes, action ? action : "");

	bt->drainer = 0;
	if (len < 0 || (size_t)len >= sizeof(prog))
		return gerr_set(e, "bpftrace: %zu bytes of probes is too long", strlen(probes));
	if (access(BPFTRACE, X_OK))
		return gerr_set(e, BPFTRACE " is missing (scripts/setup --bench, scripts/lab --with-bpftrace)");
	if (pipe(fds))
		return sys_fail(e, "pipe");
	bt->pid = fork();
	if (bt->pid < 0) {
		int err = errno;

		close(fds[0]);
		close(fds[1]);
		errno = err;
		return sys_fail(e, "fork");
	}
	if (bt->pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execl(BPFTRACE, "bpftrace", "-e", prog, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	bt->out = fds[0];
	if (!read_until(bt->out, GO, line, sizeof(line), last, sizeof(last), ATTACH_SECONDS)) {
		abandon(bt);
		return gerr_set(e, "bpftrace did not attach %.60s%s: %s", probes,
				strlen(probes) > 60 ? "..." : "", last);
	}
	if (!action)
		return 0;
	/* a hit prints: a child drains it from here on */
	if (pipe(kept)) {
		sys_fail(e, "pipe");
		abandon(bt);
		return -1;
	}
	drainer = fork();
	if (drainer == 0) {
		close(kept[0]);
		drain(bt->out, kept[1]);
		_exit(0);
	}
	close(kept[1]);
	if (drainer < 0) {
		sys_fail(e, "fork");
		close(kept[0]);
		abandon(bt);
		return -1;
	}
	close(bt->out);
	bt->out = kept[0];
	bt->drainer = drainer;
	return 0;
}

int bpftrace_start(struct bpftrace *bt, const char *probes, struct gerr *e)
{
	return bpftrace_start_action(bt, probes, NULL, e);
}

int bpftrace_stop(struct bpftrace *bt, uint64_t *count, struct gerr *e)
{
	char line[512], last[512] = "no output";
	bool found;
	int status;

	kill(bt->pid, SIGINT);
	found = read_until(bt->out, "@: ", line, sizeof(line), last, sizeof(last), STOP_SECONDS);
	close(bt->out);
	kill(bt->pid, SIGKILL);	/* if SIGINT did not end it */
	waitpid(bt->pid, &status, 0);
	if (bt->drainer > 0)	/* its input ended with bpftrace */
		waitpid(bt->drainer, NULL, 0);
	bt->drainer = 0;
	if (!found)
		return gerr_set(e, "bpftrace printed no count: %s", last);
	*count = strtoull(line + 3, NULL, 10);
	return 0;
}

/* Empties a tracefs file that lists what to trace (opened with truncation). */
static int truncate_file(const char *path, struct gerr *e)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0)
		return sys_fail(e, path);
	close(fd);
	return 0;
}

static void graph_off(void)
{
	struct gerr e;

	write_file(TRACEFS "/tracing_on", "0", &e);
	write_file(TRACEFS "/current_tracer", "nop", &e);
	truncate_file(TRACEFS "/set_graph_function", &e);
	truncate_file(TRACEFS "/set_ftrace_filter", &e);
	write_file(TRACEFS "/options/funcgraph-tail", "0", &e);
}

/* A function_graph line that ends a call, one with no traced callee or the
 * closing brace of one with (funcgraph-tail names it):
 *   " 0) ! 123.456 us    |  gilk_bug_facts [gilk]();"
 *   " 0) # 2037.173 us   |  }" and "gilk_facts [gilk]" in a comment
 * its duration and the function's index in fns, or -1. */
static int graph_line(const char *line, const char *const *fns, size_t n, double *us)
{
	const char *p = strchr(line, ')'), *bar = strchr(line, '|');
	char *end;

	if (!p || !bar || p > bar)
		return -1;
	for (p++; *p == ' ' || strchr("+!#*@$", *p); p++)
		;
	*us = strtod(p, &end);
	if (end == p || strncmp(end, " us", 3))
		return -1;
	for (p = bar + 1; *p == ' '; p++)
		;
	if (*p == '}') {
		p = strstr(p, "/* ");
		if (!p)
			return -1;
		p += 3;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(fns[i]);

		if (!strncmp(p, fns[i], len) && (p[len] == '(' || p[len] == ' '))
			return (int)i;
	}
	return -1;
}

int graph_longest(const char *const *fns, size_t n, void (*work)(void *), void *arg,
		  double *max_us, struct gerr *e)
{
	char line[512];
	FILE *f;
	double us;
	int i;

	for (size_t k = 0; k < n; k++)
		max_us[k] = NAN;
	if (write_file(TRACEFS "/tracing_on", "0", e) ||
	    write_file(TRACEFS "/current_tracer", "nop", e) ||
	    truncate_file(TRACEFS "/trace", e) ||
	    truncate_file(TRACEFS "/set_graph_function", e) ||
	    truncate_file(TRACEFS "/set_ftrace_filter", e))
		return -1;
	/*
	 * Each is a root (traced wherever it is called from) and nothing else
	 * is traced: nested in another, it is still a call of its own. One
	 * the compiler inlined has no entry: left out, NaN.
	 */
	for (size_t k = 0; k < n; k++)
		if (!write_file(TRACEFS "/set_ftrace_filter", fns[k], e) &&
		    !write_file(TRACEFS "/set_graph_function", fns[k], e))
			max_us[k] = 0;
	if (write_file(TRACEFS "/options/funcgraph-tail", "1", e) ||
	    write_file(TRACEFS "/current_tracer", "function_graph", e) ||
	    write_file(TRACEFS "/tracing_on", "1", e)) {
		graph_off();
		return -1;
	}
	work(arg);
	write_file(TRACEFS "/tracing_on", "0", e);
	f = fopen(TRACEFS "/trace", "r");
	while (f && fgets(line, sizeof(line), f))
		if ((i = graph_line(line, fns, n, &us)) >= 0 && !(us <= max_us[i]))
			max_us[i] = us;
	if (f)
		fclose(f);
	graph_off();
	return f ? 0 : sys_fail(e, TRACEFS "/trace");
}
