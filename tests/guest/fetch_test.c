/*
 * Fetches in the running kernel (uapi struct gilk_fetch): gilk.ko reads
 * what a program names at every hit it records, a user string through the
 * site's registers, a kernel string through the task, a number through a
 * pointer, and appends them to the event; a read that faults (an address
 * nothing maps, in the kernel's half or the user's) is marked, never an
 * oops; a malformed program is refused field by field with nothing left
 * held; fetching splices on hot code under load leave the kernel running.
 * The programs are built here by hand, from the running kernel's BTF
 * offsets, so that they test gilk.ko and not the shell's compiler.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
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
#include "ktypes.h"

/* Offsets from the running kernel's BTF: pt_regs' di, task_struct's comm. */
struct offsets {
	int64_t regs_di, task_comm;
};

static int member_off(struct ktypes *t, const char *type, const char *name, int64_t *off)
{
	struct ktype ty;
	struct kmember m;
	struct gerr e;

	if (ktypes_parse(t, type, &ty, &e) || ktypes_member(t, &ty, name, &m, &e)) {
		printf("  note: %s.%s: %s\n", type, name, e.msg);
		return -1;
	}
	*off = (int64_t)m.offset;
	return 0;
}

static int offsets_read(struct offsets *o)
{
	struct ktypes *t;
	struct gerr e;
	int rc;

	if (ktypes_open_file("/sys/kernel/btf/vmlinux", &t, &e)) {
		printf("  note: BTF: %s\n", e.msg);
		return -1;
	}
	rc = member_off(t, "struct pt_regs", "di", &o->regs_di) ||
	     member_off(t, "struct task_struct", "comm", &o->task_comm);
	ktypes_close(t);
	return rc ? -1 : 0;
}

static void step(struct gilk_fetch_value *v, uint8_t op, uint8_t width, int64_t off)
{
	v->step[v->nsteps].op = op;
	v->step[v->nsteps].width = width;
	v->step[v->nsteps].off = off;
	v->nsteps++;
}

/*
 * At __x64_sys_chdir's entry (rdi: the syscall's pt_regs): the path the
 * task passed (user memory, through regs->di), its comm (kernel memory,
 * through current), regs->di itself, and a read of address 0x10 (a fault).
 */
static void program(const struct offsets *o, struct gilk_fetch *f)
{
	static const char *const names[] = { "path", "comm", "di", "low" };

	memset(f, 0, sizeof(*f));
	snprintf(f->text, sizeof(f->text), "by hand");
	f->len = 4;
	f->value[0].from = GILK_FF_ARG0;
	step(&f->value[0], GILK_FSTEP_LOAD, 8, o->regs_di);
	step(&f->value[0], GILK_FSTEP_STRING, 64, 0);
	f->value[0].show = GILK_FSHOW_STRING;
	f->value[1].from = GILK_FETCH_FROM_TASK;
	step(&f->value[1], GILK_FSTEP_STRING, 16, o->task_comm);
	f->value[1].show = GILK_FSHOW_STRING;
	f->value[2].from = GILK_FF_ARG0;
	step(&f->value[2], GILK_FSTEP_LOAD, 8, o->regs_di);
	f->value[2].show = GILK_FSHOW_HEX;
	f->value[2].size = 8;
	f->value[3].from = GILK_FETCH_FROM_ZERO;
	step(&f->value[3], GILK_FSTEP_LOAD, 8, 0x10);
	f->value[3].show = GILK_FSHOW_UNSIGNED;
	f->value[3].size = 8;
	for (uint32_t i = 0; i < f->len; i++)
		snprintf(f->value[i].name, sizeof(f->value[i].name), "%s", names[i]);
}

static int splice_fetch(struct live *lv, uint64_t site, const char *ins,
			const struct gilk_fetch *f, uint32_t *id)
{
	struct live_use use = { ins, "", NULL, f, NULL };
	struct splice_plan p;
	struct gerr e;

	if (live_plan(lv, site, 0, &p, &e) || live_splice_batch_uses(lv, &p, 1, &use, 1, id, &e)) {
		printf("  note: splice with a fetch: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* The events of splices ids[0..n): calls fn(ev, fetched bytes) for each. */
static size_t each_event(struct live *lv, const uint32_t *ids, size_t nids, size_t fetch_len,
			 void (*fn)(const struct gilk_event *h, const uint8_t *fetched, void *arg),
			 void *arg)
{
	static uint8_t buf[1 << 20];
	struct gerr e;
	ssize_t got;
	size_t n = 0;

	while ((got = live_read_events(lv, buf, sizeof(buf), &e)) > 0)
		for (size_t off = 0; off + sizeof(struct gilk_event) <= (size_t)got;) {
			const struct gilk_event *h = (const void *)(buf + off);

			bool ours = false;

			for (size_t i = 0; i < nids; i++)
				ours |= h->splice == ids[i];
			if (ours && h->fetched && h->len >= fetch_len) {
				fn(h, (const uint8_t *)(h + 1) + h->len - fetch_len, arg);
				n++;
			}
			off += sizeof(*h) + h->len;
		}
	return n;
}

struct seen {
	const struct gilk_fetch *f;
	const char *path;
	size_t good, events, user_fault;
	uint64_t faults;
	char last_path[80], last_comm[20];
};

static void seen_one(const struct gilk_event *h, const uint8_t *p, void *arg)
{
	struct seen *s = arg;
	uint64_t faults, di;

	(void)h;
	memcpy(&faults, p, 8);
	s->events++;
	snprintf(s->last_path, sizeof(s->last_path), "%s", (const char *)p + 8);
	snprintf(s->last_comm, sizeof(s->last_comm), "%s", (const char *)p + 8 + 64);
	memcpy(&di, p + 8 + 64 + 16, 8);
	s->faults = faults;
	if (!strcmp((const char *)p + 8, s->path) && !strcmp((const char *)p + 8 + 64, "gilkfetch") &&
	    di == (uintptr_t)s->path && faults == 0x8)
		s->good++;
	/* a path at a user address nothing maps: marked, and empty */
	if (di == 0x1000 && faults == 0x9 && !p[8])
		s->user_fault++;
}

/* The values read at the hits of a child named gilkfetch. */
static void reads(struct live *lv, const struct offsets *o)
{
	static const char path[] = "/gilk-fetch/no/such/dir";
	struct gilk_fetch f;
	struct seen s = { &f, path, 0, 0, 0, 0, "", "" };
	uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_chdir"));
	struct gerr e;
	uint32_t id;
	pid_t kid;

	program(o, &f);
	if (splice_fetch(lv, site, "regs", &f, &id)) {
		check(0, "a regs splice at __x64_sys_chdir with a fetch of 4 values");
		return;
	}
	kid = fork();
	if (kid == 0) {
		prctl(PR_SET_NAME, "gilkfetch", 0, 0, 0);
		for (int i = 0; i < 5; i++)
			syscall(SYS_chdir, path);
		syscall(SYS_chdir, (const char *)0x1000);
		_exit(0);
	}
	waitpid(kid, NULL, 0);
	live_unsplice(lv, id, &e);
	each_event(lv, &id, 1, gilk_fetch_out_len(&f), seen_one, &s);
	check(s.good == 5 && s.user_fault == 1 && s.events == 6,
	      "5 chdir calls: each event holds the user's path, the task's comm, the pointer it "
	      "came through, and a marked fault for address 0x10; a sixth, with a path at an "
	      "unmapped user address, marks that read too (%zu of %zu events, %zu; last: "
	      "path \"%s\", comm \"%s\", faults 0x%" PRIx64 ")",
	      s.good, s.events, s.user_fault, s.last_path, s.last_comm, s.faults);
}

/* Each field of a good program wrong in turn: refused, with what and where. */
static void malformed(struct live *lv, const struct offsets *o)
{
	static const struct {
		const char *what, *says;
	} bad[] = {
		{ "len past GILK_FETCH_MAX", "more than GILK_FETCH_MAX values" },
		{ "pad", "fetch: a reserved field is not 0" },
		{ "text not terminated", "the text is not NUL-terminated" },
		{ "start from comm", "value 1: unknown field to start from" },
		{ "start between the task's fields and the registers'", "unknown field to start from" },
		{ "start past the last field", "unknown field to start from" },
		{ "steps past GILK_FETCH_STEPS", "value 0: more than GILK_FETCH_STEPS steps" },
		{ "show", "value 2: show, size or a reserved field" },
		{ "size of 3", "value 2: show, size or a reserved field" },
		{ "value pad", "value 3: show, size or a reserved field" },
		{ "name not terminated", "value 0: its name is empty or not NUL-terminated" },
		{ "empty name", "value 1: its name is empty" },
		{ "shown as a string without one", "value 2: shown as a string exactly when" },
		{ "op 0", "value 0, step 0: unknown op" },
		{ "op past the last", "value 0, step 1: unknown op" },
		{ "step pad", "value 0, step 0: a reserved field is not 0" },
		{ "load of 3 bytes", "value 2, step 0: a load of 1, 2, 4 or 8 bytes" },
		{ "add with a width", "value 2, step 1: an add has no width" },
		{ "string of 0 bytes", "value 1, step 0: a string of 1 to" },
		{ "string past GILK_FETCH_STR_MAX", "value 1, step 0: a string of 1 to" },
		{ "step after a string", "value 0, step 1: a step after a string" },
		{ "step past the count", "value 3: a step past its count is not 0" },
		{ "value past the count", "value 3: past the count, not 0" },
		{ "count, which records no events", "count records no events" },
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
		struct gilk_fetch *f = &req.fetch;
		const char *ins = i == sizeof(bad) / sizeof(bad[0]) - 1 ? "count" : "regs";
		int rc, err;

		if (live_request(lv, &p, ins, "", &req, NULL, &e)) {
			check(0, "request: %s", e.msg);
			return;
		}
		program(o, f);
		switch (i) {
		case 0: f->len = GILK_FETCH_MAX + 1; break;
		case 1: f->pad = 1; break;
		case 2: memset(f->text, 'x', sizeof(f->text)); break;
		case 3: f->value[1].from = GILK_FF_COMM; break;
		case 4: f->value[1].from = GILK_FF_CONTEXT + 1; break;
		case 5: f->value[1].from = GILK_FF_NFIELDS; break;
		case 6: f->value[0].nsteps = GILK_FETCH_STEPS + 1; break;
		case 7: f->value[2].show = GILK_FSHOW_NKINDS; break;
		case 8: f->value[2].size = 3; break;
		case 9: f->value[3].pad[0] = 1; break;
		case 10: memset(f->value[0].name, 'x', sizeof(f->value[0].name)); break;
		case 11: f->value[1].name[0] = '\0'; break;
		case 12: f->value[2].show = GILK_FSHOW_STRING; break;
		case 13: f->value[0].step[0].op = 0; break;
		case 14: f->value[0].step[1].op = GILK_FSTEP_NOPS; break;
		case 15: f->value[0].step[0].pad[2] = 1; break;
		case 16: f->value[2].step[0].width = 3; break;
		case 17: step(&f->value[2], GILK_FSTEP_ADD, 1, 8); break;
		case 18: f->value[1].step[0].width = 0; break;
		case 19: f->value[1].step[0].width = GILK_FETCH_STR_MAX + 1; break;
		case 20: step(&f->value[0], GILK_FSTEP_LOAD, 8, 0); break;
		case 21: f->value[3].step[3].op = GILK_FSTEP_LOAD; break;
		case 22: f->len = 3; break;	/* value 3 left as it was */
		default: break;
		}
		rc = ioctl(lv->fd, GILK_IOC_SPLICE, &req);
		err = errno;
		ioctl(lv->fd, GILK_IOC_RELEASE, &req.id);
		check(rc < 0 && err == EINVAL && strstr(req.reason, bad[i].says),
		      "a fetch with a bad %s is refused: %s (%s)", bad[i].what,
		      rc < 0 ? strerror(err) : "spliced", req.reason);
	}
	check(gilk_holds(lv) == before, "nothing is held after the refused fetches");
}

struct tally {
	size_t events, comm_ok, faulted;
};

static void tally_one(const struct gilk_event *h, const uint8_t *p, void *arg)
{
	struct tally *t = arg;
	uint64_t faults;

	memcpy(&faults, p, 8);
	t->events++;
	t->comm_ok += !strncmp((const char *)p + 8 + 64, h->comm, 15);
	t->faulted += (faults & 0x8) != 0;
}

/*
 * Fetching splices on code every CPU runs all the time, while both CPUs
 * work: the tick (irq), a page fault's handler, and the getppid the load
 * calls; every event's comm is the task's, every read of 0x10 faulted.
 */
static void hot(struct live *lv, const struct offsets *o)
{
	static const char *const fns[] = { "update_process_times", "handle_mm_fault",
					   "__x64_sys_getppid" };
	struct gilk_fetch f;
	struct tally t = { 0, 0, 0 };
	struct gerr e;
	uint32_t id[3];
	int ok = 0;
	pid_t kid;

	program(o, &f);
	for (size_t i = 0; i < 3; i++)
		ok += splice_fetch(lv, live_block_site(lv, sym(lv, fns[i])), "regs", &f, &id[i]) == 0;
	check(ok == 3, "3 fetching splices on hot code (the tick, page faults, getppid)");
	kid = fork();
	if (kid == 0) {
		for (time_t end = time(NULL) + 2; time(NULL) < end;) {
			char *m = malloc(1 << 16);

			if (m)
				memset(m, 1, 1 << 16);
			free(m);
			syscall(SYS_getppid);
		}
		_exit(0);
	}
	for (time_t end = time(NULL) + 2; time(NULL) < end;)
		syscall(SYS_getppid);
	waitpid(kid, NULL, 0);
	for (size_t i = 0; i < 3 && ok == 3; i++)
		live_unsplice(lv, id[i], &e);
	if (ok == 3)
		each_event(lv, id, 3, gilk_fetch_out_len(&f), tally_one, &t);
	check(ok == 3 && t.events > 0 && t.comm_ok == t.events && t.faulted == t.events,
	      "over 2 s of load: %zu events, %zu with the task's comm, %zu with the read of "
	      "0x10 marked as a fault", t.events, t.comm_ok, t.faulted);
}

void test_fetch(struct live *lv)
{
	static char drain[1 << 16];
	struct offsets o;
	struct gerr e;

	if (offsets_read(&o)) {
		check(0, "the running kernel's BTF gives pt_regs.di and task_struct.comm");
		return;
	}
	while (live_read_events(lv, drain, sizeof(drain), &e) > 0)
		;
	reads(lv, &o);
	malformed(lv, &o);
	hot(lv, &o);
	while (live_read_events(lv, drain, sizeof(drain), &e) > 0)
		;
}
