/*
 * Filters in the running kernel (uapi struct gilk_filter): gilk.ko runs the
 * instrument only for hits the filter accepts and counts the others apart,
 * exactly, by task (pid, tid, comm by name and by glob), CPU, context and
 * the site's registers, through whichever template the instrument and the
 * filter need together; a malformed program is refused field by field with
 * nothing left held; filtered splices on hot code under load leave the
 * kernel running.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "site_filter.h"

/* n calls of getppid, or of getpgrp, from a child named comm. */
static void child_calls(const char *comm, long nr, int n)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, comm, 0, 0, 0);
		for (int i = 0; i < n; i++)
			syscall(nr);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void calls(long nr, int n)
{
	for (int i = 0; i < n; i++)
		syscall(nr);
}

/* Splices ins at site under expr (self: gilk's own pid left out, 0 none). */
static int splice_if(struct live *lv, uint64_t site, const char *ins, const char *expr,
		     uint32_t *id)
{
	struct live_use use = { ins, "", NULL, NULL, NULL };
	struct gilk_filter f;
	struct splice_plan p;
	struct gerr e;

	if (site_filter_compile(expr, SF_ANY, 0, &f, &e) || live_plan(lv, site, 0, &p, &e)) {
		printf("  note: %s: %s\n", expr, e.msg);
		return -1;
	}
	use.filter = &f;
	if (live_splice_batch_uses(lv, &p, 1, &use, 1, id, &e)) {
		printf("  note: %s: %s\n", expr, e.msg);
		return -1;
	}
	return 0;
}

struct counts {
	uint64_t hits, filtered;
	char filter[GILK_FILTER_TEXT_MAX];
	bool inline_task;	/* its trampoline tests the task, calling nothing */
};

/* Whether splice id's trampoline starts as count_task's: [pushfq] push rax;
 * [push rcx; [push rdx]]; mov rax, %gs:current_task; then either cmp dword
 * [rax + off], imm32 (pid, tid), mov eax, 0 and setcc al, or movabs rcx
 * (comm). */
static bool count_task_inline(struct live *lv, uint32_t id)
{
	static const uint8_t head[] = { 0x65, 0x48, 0x8b, 0x04, 0x25 };
	static const uint8_t outcome[] = { 0xb8, 0, 0, 0, 0, 0x0f };
	struct gilk_splice_info in;
	uint8_t b[32];
	struct gerr e;
	size_t at;

	if (live_info(lv, id, &in, &e) || in.tramp_len < sizeof(b) ||
	    live_read_mem(lv, in.tramp, b, sizeof(b), &e))
		return false;
	at = b[0] == 0x9c;
	if (b[at++] != 0x50)
		return false;
	at += b[at] == 0x51;
	at += b[at] == 0x52;
	if (memcmp(b + at, head, sizeof(head)))
		return false;
	at += 9;
	if (b[at] == 0x48 && b[at + 1] == 0xb9)
		return true;
	return b[at] == 0x81 && b[at + 1] == 0xb8 &&
	       !memcmp(b + at + 10, outcome, sizeof(outcome)) &&
	       (b[at + 16] == 0x94 || b[at + 16] == 0x95) && b[at + 17] == 0xc0;
}

/* Its counts, and the splice removed. */
static struct counts finish(struct live *lv, uint32_t id)
{
	struct gilk_splice_info in;
	struct counts c = { UINT64_MAX, UINT64_MAX, "", false };
	struct gerr e;

	c.inline_task = count_task_inline(lv, id);
	if (live_info(lv, id, &in, &e) == 0) {
		c.hits = in.hits;
		c.filtered = in.filtered;
		snprintf(c.filter, sizeof(c.filter), "%s", in.filter);
	}
	live_unsplice(lv, id, &e);
	return c;
}

/* Task fields: the children's calls counted exactly, by name and glob. */
static void by_task(struct live *lv, uint64_t site)
{
	static const struct {
		const char *expr;
		uint64_t want;	/* of a: 300, b: 200, and 100 of ours */
		bool inline_task;	/* one test of the task: count_task */
	} cases[] = {
		{ "comm == \"gilkfilt-a\"", 300, true },
		{ "comm != \"gilkfilt-b\"", 400, true },
		{ "tid != %u", 500, true },
		{ "pid == %u", 100, true },
		{ "comm != \"gilkfilt-a\" && comm ~ \"gilkfilt-*\"", 200, false },
		{ "comm ~ \"gilkfilt-[ab]\"", 500, false },
		{ "comm ~ \"gilk*-?\"", 500, false },
		{ "comm ~ \"*filt-b\"", 200, false },
		{ "comm ~ \"gilkfilt-[!a]\"", 200, false },
		{ "comm ~ \"gilkfilt-[a-c]\" && !(comm == \"gilkfilt-b\")", 300, false },
		{ "comm ~ \"gilkfilt-a?\"", 0, false },
		{ "tid == %u", 100, true },
		{ "pid == %u || comm == \"gilkfilt-b\"", 300, false },
		{ "tid == %u && context == task", 100, false },
		{ "tid == %u && context != task", 0, false },
	};
	char expr[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct counts c;
		uint32_t id;

		/* %u: our pid */
		snprintf(expr, sizeof(expr), cases[i].expr, (unsigned)getpid());
		if (splice_if(lv, site, "count", expr, &id)) {
			check(0, "count if %s", expr);
			continue;
		}
		child_calls("gilkfilt-a", SYS_getppid, 300);
		child_calls("gilkfilt-b", SYS_getppid, 200);
		calls(SYS_getppid, 100);
		c = finish(lv, id);
		check(c.hits == cases[i].want && c.filtered + c.hits >= 600 &&
		      !strcmp(c.filter, expr) && c.inline_task == cases[i].inline_task,
		      "count if %s: %" PRIu64 " hits (want %" PRIu64 "), %" PRIu64 " filtered out, "
		      "listed as '%s', %s", expr, c.hits, cases[i].want, c.filtered, c.filter,
		      c.inline_task ? "tested inline" : "through a call");
	}
}

/*
 * Names of each width count_task compares (gilk_comm_width(): 4, 8 or 16
 * of comm's bytes), each against a name equal to it up to the last byte
 * compared: a 3-letter name and its 2-letter prefix, a 7-letter one and
 * the 8-letter one it is a prefix of.
 */
static void by_short_names(struct live *lv, uint64_t site)
{
	static const struct {
		const char *expr;
		uint64_t want;	/* of gfc: 30, gilkf-c: 20, gilkf-cd: 10, ours: 100 */
	} cases[] = {
		{ "comm == \"gfc\"", 30 },
		{ "comm == \"gf\"", 0 },
		{ "comm == \"gilkf-c\"", 20 },
		{ "comm != \"gilkf-cd\"", 150 },
		{ "comm == \"gilkf-cd\"", 10 },
		{ "comm != \"gfc\"", 130 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct counts c;
		uint32_t id;

		if (splice_if(lv, site, "count", cases[i].expr, &id)) {
			check(0, "count if %s", cases[i].expr);
			continue;
		}
		child_calls("gfc", SYS_getppid, 30);
		child_calls("gilkf-c", SYS_getppid, 20);
		child_calls("gilkf-cd", SYS_getppid, 10);
		calls(SYS_getppid, 100);
		c = finish(lv, id);
		check(c.hits == cases[i].want && c.filtered + c.hits >= 160 && c.inline_task,
		      "count if %s: %" PRIu64 " hits (want %" PRIu64 "), %" PRIu64 " filtered out, %s",
		      cases[i].expr, c.hits, cases[i].want, c.filtered,
		      c.inline_task ? "tested inline" : "through a call");
	}
}

/* The CPU: ours pinned to 0. */
static void by_cpu(struct live *lv, uint64_t site)
{
	cpu_set_t one;
	char expr[64];
	struct counts c;
	uint32_t id;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		check(0, "pin to CPU 0: %s", strerror(errno));
		return;
	}
	for (int cpu = 0; cpu < 2; cpu++) {
		snprintf(expr, sizeof(expr), "cpu == %d && tid == %u", cpu, (unsigned)getpid());
		if (splice_if(lv, site, "count", expr, &id)) {
			check(0, "count if %s", expr);
			continue;
		}
		calls(SYS_getppid, 100);
		c = finish(lv, id);
		check(c.hits == (cpu == 0 ? 100u : 0u),
		      "count if %s, pinned to CPU 0: %" PRIu64 " hits", expr, c.hits);
	}
	CPU_ZERO(&one);
	for (int cpu = 0; cpu < CPU_SETSIZE && cpu < 64; cpu++)
		CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/*
 * The site's registers: __task_pid_nr_ns(task, type, ns) gets type
 * PIDTYPE_PID (0) from gettid and PIDTYPE_TGID (1) from getppid. Every
 * instrument takes such a filter (through the full template).
 */
static void by_registers(struct live *lv)
{
	static const char *const ins[] = { "count", "regs", "tsc", "argfilter" };
	uint64_t site = live_block_site(lv, sym(lv, "__task_pid_nr_ns"));
	char expr[64];

	snprintf(expr, sizeof(expr), "arg1 == 0 && tid == %u", (unsigned)getpid());
	for (size_t i = 0; i < sizeof(ins) / sizeof(ins[0]); i++) {
		struct counts c;
		uint32_t id;

		if (splice_if(lv, site, ins[i], expr, &id)) {
			check(0, "%s if %s", ins[i], expr);
			continue;
		}
		calls(SYS_gettid, 50);
		calls(SYS_getppid, 70);
		c = finish(lv, id);
		check(c.hits == 50 && c.filtered >= 70,
		      "%s at __task_pid_nr_ns if %s: %" PRIu64 " hits for 50 gettid, %" PRIu64
		      " filtered (70 getppid and others)", ins[i], expr, c.hits, c.filtered);
	}
}

/* Each field of the program wrong in turn: refused, with what and where. */
static void malformed(struct live *lv)
{
	static const struct {
		const char *what, *says;
	} bad[] = {
		{ "len past GILK_FILTER_MAX", "longer than GILK_FILTER_MAX" },
		{ "pad", "a reserved field is not 0" },
		{ "op", "unknown op" },
		{ "test pad", "test 1: a reserved field is not 0" },
		{ "field between the task's and the registers'", "unknown field" },
		{ "field past the last", "unknown field" },
		{ "string test of pid", "a string test of a number field" },
		{ "number test of comm", "a number test of comm" },
		{ "string index", "no such string" },
		{ "jump past the end", "test 1: a jump past the program's end" },
		{ "last test not a ret", "test 2: a jump past the program's end" },
		{ "string not terminated", "filter string 1 is not NUL-terminated" },
		{ "text not terminated", "the filter's text is not NUL-terminated" },
	};
	uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_getppid"));
	struct splice_plan p;
	struct gerr e;
	long before = gilk_holds(lv);

	if (live_plan(lv, site, 0, &p, &e)) {
		check(0, "plan getppid: %s", e.msg);
		return;
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gilk_splice req;
		struct gilk_filter *f = &req.filter;
		int rc, err;

		if (live_request(lv, &p, "count", "", &req, NULL, &e)) {
			check(0, "request: %s", e.msg);
			return;
		}
		/* a good program: comm == "x" || pid == 1 */
		site_filter_compile("comm == \"x\" || pid == 1", SF_ANY, 0, f, &e);
		switch (i) {
		case 0: f->len = GILK_FILTER_MAX + 1; break;
		case 1: f->pad = 1; break;
		case 2: f->test[0].op = GILK_FOP_NOPS; break;
		case 3: f->test[1].pad = 7; break;
		case 4: f->test[1].field = GILK_FF_SELF + 1; break;
		case 5: f->test[1].field = GILK_FF_NFIELDS; break;
		case 6: f->test[0].field = GILK_FF_PID; break;
		case 7: f->test[1].field = GILK_FF_COMM; break;
		case 8: f->test[0].value = GILK_FILTER_STRS; break;
		case 9: f->test[1].jf = (uint8_t)f->len; break;
		case 10: f->test[1].jf = 0; f->test[2] = f->test[1]; f->len = 3; break;
		case 11: memset(f->str[1], 'x', GILK_FILTER_STR_LEN); break;
		default: memset(f->text, 'x', GILK_FILTER_TEXT_MAX); break;
		}
		rc = ioctl(lv->fd, GILK_IOC_SPLICE, &req);
		err = errno;
		ioctl(lv->fd, GILK_IOC_RELEASE, &req.id);
		check(rc < 0 && err == EINVAL && strstr(req.reason, bad[i].says),
		      "a filter with a bad %s is refused: %s (%s)", bad[i].what,
		      rc < 0 ? strerror(err) : "spliced", req.reason);
	}
	check(gilk_holds(lv) == before, "nothing is held after the refused filters");
}

/*
 * Filters that read the task and registers and match by glob, on code every
 * CPU runs all the time, while both CPUs work; then the kernel still runs
 * and the counts add up.
 */
static void hot(struct live *lv)
{
	static const struct {
		const char *fn, *ins, *expr;
	} hot[] = {
		{ "ktime_get", "count", "comm ~ \"*[!q]\" && cpu < 64" },
		{ "update_process_times", "regs", "context == irq && comm ~ \"k*\"" },
		{ "__task_pid_nr_ns", "regs", "arg1 == 1 && comm ~ \"gilkfilt-?\"" },
		{ "_copy_to_user", "tsc", "(arg2 & 0xfff) > 0x10 || comm == \"gilkfilt-a\"" },
	};
	uint32_t id[4];
	int ok = 0;
	pid_t kid;

	for (size_t i = 0; i < 4; i++)
		ok += splice_if(lv, live_block_site(lv, sym(lv, hot[i].fn)), hot[i].ins,
				hot[i].expr, &id[i]) == 0;
	check(ok == 4, "4 filtered splices on hot code (ktime_get, the tick, getppid's, "
	      "copies to user)");
	kid = fork();
	if (kid == 0) {
		prctl(PR_SET_NAME, "gilkfilt-b", 0, 0, 0);
		for (time_t end = time(NULL) + 2; time(NULL) < end;)
			syscall(SYS_getppid);
		_exit(0);
	}
	for (time_t end = time(NULL) + 2; time(NULL) < end;)
		calls(SYS_getpgrp, 100);
	waitpid(kid, NULL, 0);
	for (size_t i = 0; i < 4 && ok == 4; i++) {
		struct counts c = finish(lv, id[i]);

		check(c.hits != UINT64_MAX && c.hits + c.filtered > 0,
		      "%s %s if %s: %" PRIu64 " hits, %" PRIu64 " filtered over 2 s of load",
		      hot[i].fn, hot[i].ins, hot[i].expr, c.hits, c.filtered);
	}
}

/*
 * filter-self names the process that splices, not its pid: while its
 * /dev/gilk is open its own hits are turned away; once it lets go with the
 * splice kept, the same process's hits count (a pid it had may be anyone's
 * next), and the splice goes on for whoever removes it.
 */
static void self_lets_go(struct live *lv)
{
	uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_getpgrp"));
	struct live_use use = { "count", "", NULL, NULL, NULL };
	struct live maker;
	struct gilk_filter f;
	struct splice_plan p;
	struct counts c;
	struct gerr e;
	uint32_t id;

	if (live_open(&maker, NULL, &e)) {
		check(0, "a second /dev/gilk: %s", e.msg);
		return;
	}
	if (site_filter_compile("comm == \"test-live\"", SF_ANY, true, &f, &e) ||
	    live_plan(&maker, site, 0, &p, &e)) {
		check(0, "count if comm == test-live, filter-self: %s", e.msg);
		live_close(&maker);
		return;
	}
	use.filter = &f;
	if (live_splice_batch_uses(&maker, &p, 1, &use, 1, &id, &e)) {
		check(0, "count if comm == test-live, filter-self: %s", e.msg);
		live_close(&maker);
		return;
	}
	calls(SYS_getpgrp, 40);		/* the maker's own: turned away */
	live_close(&maker);		/* the splice kept */
	calls(SYS_getpgrp, 25);		/* the same process's: counted now */
	c = finish(lv, id);
	check(c.hits == 25 && c.filtered >= 40 &&
	      !strcmp(c.filter, "(comm == \"test-live\") && not gilk"),
	      "filter-self leaves out the splicing process while its /dev/gilk is open (%" PRIu64
	      " filtered of 40), and no one once it lets go with the splice kept (%" PRIu64
	      " hits of 25; filter '%s')", c.filtered, c.hits, c.filter);
}

void test_filters(struct live *lv)
{
	uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_getppid"));
	static char drain[1 << 16];
	struct gerr e;

	by_task(lv, site);
	by_short_names(lv, site);
	by_cpu(lv, site);
	by_registers(lv);
	malformed(lv);
	self_lets_go(lv);
	hot(lv);
	/* the events recorded here are no later suite's */
	while (live_read_events(lv, drain, sizeof(drain), &e) > 0)
		;
}
