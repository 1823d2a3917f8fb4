/*
 * Each defect the reviews of gilk.ko found, provoked for real, numbered in
 * the order they were found. On the gilk.ko before the fixes each of these
 * fails, most by crashing the guest. Defect 2 (unsplicing an eviction
 * bounce) needs a task parked on the bounce slot: run.sh provokes it with the
 * target module, which can hold a CPU there. Defect 5 bites under
 * preempt=full: the suite runs booted that way too.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define TRACING "/sys/kernel/tracing"

static int dmesg_count(const char *what)
{
	char cmd[256], line[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "dmesg | grep -c '%s'", what);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	pclose(p);
	return atoi(line);
}

/* Sends the request for t; 0 (the splice stays) or errno, reason in req. */
static int send_plan_keep(struct live *lv, const struct splice_plan *t,
			  struct gilk_splice *req)
{
	struct gerr e;
	int err;

	if (live_request(lv, t, "count", "", req, NULL, &e)) {
		snprintf(req->reason, sizeof(req->reason), "no request: %.100s", e.msg);
		return -1;
	}
	err = ioctl(lv->fd, GILK_IOC_SPLICE, req) ? errno : 0;
	if (err)
		ioctl(lv->fd, GILK_IOC_RELEASE, &req->id);
	return err;
}

/*
 * Sends the request for a plan the planner would not make: a region of len
 * live bytes at site, displaced as one instruction (trap mode when shorter
 * than a jmp). Returns 0 (the splice stays) or errno; *req keeps gilk.ko's
 * reason.
 */
static int send_forced_keep(struct live *lv, uint64_t site, unsigned len,
			    struct gilk_splice *req)
{
	struct splice_plan t;
	struct gerr e;

	memset(&t, 0, sizeof(t));
	t.mode = len < 5 ? SPLICE_TRAP : SPLICE_JMP;
	t.region.addr = site;
	t.region.len = t.region.live = (uint8_t)len;
	t.region.ninsn = 1;
	live_read_mem(lv, site, t.region.orig, len, &e);
	t.region.insns[0].addr = site;
	t.region.insns[0].len = (uint8_t)len;
	memcpy(t.region.insns[0].bytes, t.region.orig, len);
	return send_plan_keep(lv, &t, req);
}

/* The same, and the splice is removed again when made. */
static int send_forced(struct live *lv, uint64_t site, unsigned len,
		       struct gilk_splice *req)
{
	struct gerr e;
	int err = send_forced_keep(lv, site, len, req);

	if (!err)
		live_unsplice(lv, req->id, &e);
	return err;
}

/*
 * 14: a trap-mode splice over an instruction longer than its int3. kprobes
 * decodes a foreign int3 as a one-byte instruction, so site+1 looked like a
 * boundary, and a kprobe went into what the trampoline replays. The whole
 * region is int3 now, and kprobes refuses an int3 it does not own.
 * trap-hold makes such a splice in a function a shell's system calls run
 * (do_prlimit), over a 3- or 4-byte instruction right after a short one,
 * leaves it in place, and prints "SITE LEN ORIG BEFORE", addresses in hex
 * (BEFORE: that short instruction, a place for a kprobe just before the
 * region); run.sh puts kprobes there and unloads gilk.ko.
 */
int trap_hold(struct live *lv)
{
	/* called by system calls a shell makes: the kernel is seen to live */
	static const char *const fns[] = { "do_prlimit", "__do_sys_newuname", "ksys_read", "do_sys_openat2" };
	static struct gilk_splice req;
	static struct cfg g;
	struct gerr e;

	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		uint64_t fn = sym(lv, fns[f]), from;

		if (!fn || kernel_cfg(&lv->k, fn, &g, &e))
			continue;
		from = live_block_site(lv, fn);
		for (size_t i = 1; i < g.ninsn; i++) {
			const struct insn *a = &g.insns[i - 1], *b = &g.insns[i];

			if (a->addr < from || a->kind != IK_PLAIN || a->len > 4 ||
			    b->kind != IK_PLAIN || b->len < 3 || b->len > 4 || b->disp_off ||
			    cfg_is_target(&g, b->addr))
				continue;
			if (send_forced_keep(lv, b->addr, b->len, &req))
				continue;
			printf("%" PRIx64 " %u ", b->addr, b->len);
			for (unsigned k = 0; k < b->len; k++)
				printf("%02x", b->bytes[k]);
			printf(" %" PRIx64 "\n", a->addr);
			return 0;
		}
	}
	fprintf(stderr, "trap-hold: no 3- or 4-byte instruction after a short one to splice\n");
	return 1;
}

/* 4: a kprobe placed over a splice after it was made. */
static void defect_kprobe_after_splice(struct live *lv)
{
	struct splice_plan p;
	uint32_t id;
	char def[128];
	struct gerr e;
	int ret, err;
	pid_t me = getpid();

	mount("nodev", TRACING, "tracefs", 0, NULL);
	if (splice_at(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, "count", "", &id, &p)) {
		check(0, "defect 4: a splice to put a kprobe on");
		return;
	}
	snprintf(def, sizeof(def), "p:gilk_d4 0x%" PRIx64 "\n", p.region.addr);
	ret = write_file(TRACING "/kprobe_events", def, O_APPEND);
	if (!ret)
		ret = write_file(TRACING "/events/kprobes/gilk_d4/enable", "1", 0);
	check(ret == 0, "defect 4: a kprobe event armed at the spliced site (%s)", strerror(-ret));
	ret = live_unsplice(lv, id, &e);
	err = errno;
	check(ret && err == EBUSY,
	      "defect 4: unsplice refused while a kprobe holds the splice's bytes: %s", e.msg);
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	write_file(TRACING "/events/kprobes/gilk_d4/enable", "0", 0);
	write_file(TRACING "/kprobe_events", "-:gilk_d4\n", O_APPEND);
	ret = live_unsplice(lv, id, &e);
	check(ret == 0 && restored(lv, &p) && syscall(SYS_getppid) == getppid() && getpid() == me,
	      "defect 4: once the kprobe is gone, unsplice restores the original bytes (%s)",
	      ret ? e.msg : "ok");
}

/*
 * 4, and the checker after it: with a kprobe on a splice's jmp, the text the
 * checker decodes (textread.c) had the kprobe's saved opcode, gilk's own
 * 0xe9, laid over the original bytes put back, and the function decoded off
 * its instruction boundaries past it: gilk_target_kpsite's block right
 * after such a splice was refused as mid-instruction (kpsite.c).
 */
static void defect_kprobe_on_splice_read(struct live *lv)
{
	uint64_t fn = sym(lv, "gilk_target_kpsite");
	struct splice_plan p, q;
	uint32_t id, next;
	struct gerr e;
	int ret;

	if (!fn || splice_at(lv, fn + 8, 0, "count", "", &id, &p) || p.region.len != 9) {
		check(0, "defect 4 (checker): a 9-byte splice at gilk_target_kpsite+8");
		return;
	}
	/* trace events refuse a function without an ftrace site: the module's own */
	ret = write_file("/proc/gilk_target", "kprobe 1", 0);
	if (!ret)
		ret = target_result() ? -EINVAL : 0;
	check(ret == 0, "defect 4 (checker): a kprobe on the splice's jmp (%s)", strerror(-ret));
	ret = splice_at(lv, fn + 17, 0, "count", "", &next, &q);
	check(ret == 0, "defect 4 (checker): with a kprobe on a splice's jmp, the block right after it is spliced");
	if (!ret)
		live_unsplice(lv, next, &e);
	write_file("/proc/gilk_target", "kprobe 0", 0);
	ret = live_unsplice(lv, id, &e);
	check(ret == 0 && restored(lv, &p), "defect 4 (checker): and unspliced, the original bytes (%s)",
	      ret ? e.msg : "ok");
}

/*
 * 4, between begin and finish: while a splice waits out its grace period,
 * gilk's int3 is at the site and the rest of the region still holds the
 * original bytes. The kernel will not put a kprobe on that int3, but it
 * lets one into the rest of the region (its decoder steps over a foreign
 * int3 as a one-byte instruction). Before the fix, finish wrote the jmp
 * over that kprobe's int3, and removing the kprobe then wrote its saved
 * byte into the jmp. Now gilk.ko holds kprobe_mutex from its int3s to its
 * jumps: a kprobe asked for in the window is made after it (and refused
 * inside the jmp) or not at all. The racer waits for gilk's int3, asks for
 * its kprobes, and keeps the one it got until the splice call has returned.
 */
struct grace_race {
	struct live *lv;
	uint64_t site, inside;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int round, returned;	/* the main thread's */
	int at_site, placed;	/* the racer's, for the round */
	int began;		/* it saw gilk's int3 before asking */
	int stop;
};

static void *kprobe_racer(void *arg)
{
	struct grace_race *r = arg;
	char def[128];
	struct gerr e;
	int seen = 0;

	for (;;) {
		uint8_t before = 0, after = 0;

		pthread_mutex_lock(&r->mu);
		while (!r->stop && r->round == seen)
			pthread_cond_wait(&r->cv, &r->mu);
		seen = r->round;
		pthread_mutex_unlock(&r->mu);
		if (r->stop)
			return NULL;
		/* gilk's int3 at the site: the grace period has begun */
		while (!live_read_mem(r->lv, r->site, &before, 1, &e) && before != 0xcc &&
		       !__atomic_load_n(&r->returned, __ATOMIC_ACQUIRE))
			;
		r->began = before == 0xcc;
		snprintf(def, sizeof(def), "p:gilk_grace0 0x%" PRIx64 "\n", r->site);
		r->at_site = write_file(TRACING "/kprobe_events", def, O_APPEND) == 0;
		if (r->at_site)
			write_file(TRACING "/kprobe_events", "-:gilk_grace0\n", O_APPEND);
		snprintf(def, sizeof(def), "p:gilk_grace1 0x%" PRIx64 "\n", r->inside);
		if (write_file(TRACING "/kprobe_events", def, O_APPEND) == 0) {
			if (!live_read_mem(r->lv, r->site, &after, 1, &e) && before == 0xcc &&
			    after == 0xcc)
				r->placed = 1;	/* inside the window, for sure */
			else
				r->placed = 2;	/* maybe after it */
			write_file(TRACING "/events/kprobes/gilk_grace1/enable", "1", 0);
		}
		pthread_mutex_lock(&r->mu);
		while (!r->returned)
			pthread_cond_wait(&r->cv, &r->mu);
		pthread_mutex_unlock(&r->mu);
		write_file(TRACING "/events/kprobes/gilk_grace1/enable", "0", 0);
		write_file(TRACING "/kprobe_events", "-:gilk_grace1\n", O_APPEND);
		pthread_mutex_lock(&r->mu);
		r->returned = 2;	/* the kprobe is gone */
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
}

static void defect_kprobe_during_grace(struct live *lv)
{
	static const char *const fns[] = {
		"__x64_sys_getpgid", "__x64_sys_getsid", "__x64_sys_setpgid", NULL,
	};
	struct grace_race r = { .lv = lv, .mu = PTHREAD_MUTEX_INITIALIZER,
				.cv = PTHREAD_COND_INITIALIZER };
	struct splice_plan p;	/* the first plan: the bytes to find again */
	pthread_t t;
	struct gerr e;
	int rounds, in_window = 0, placed = 0, bad = 0;
	pid_t pg = getpgid(0);
	char note[600] = "";

	mount("nodev", TRACING, "tracefs", 0, NULL);
	/* The entry block's region, or the next instruction's where the first
	 * fills the region alone (KASAN's 10-byte movabs on the debug kernel). */
	for (const char *const *f = fns; *f && !r.inside; f++) {
		uint64_t at = live_block_site(lv, sym(lv, *f));

		for (int step = 0; step < 8 && !r.inside; step++) {
			if (live_plan(lv, at, 0, &p, &e) || !p.region.ninsn)
				break;
			if (p.mode == SPLICE_JMP && p.region.ninsn >= 2) {
				r.site = p.region.addr;
				r.inside = p.region.insns[1].addr;
			}
			at = p.region.addr + p.region.insns[0].len;
		}
	}
	if (!r.inside) {
		check(0, "defect 4 (grace): a site near a function's entry whose region holds two instructions");
		return;
	}
	pthread_create(&t, NULL, kprobe_racer, &r);
	for (rounds = 0; rounds < 20 && (in_window < 3 || rounds < 5) && !bad; rounds++) {
		struct splice_plan q;
		uint32_t id;
		int ok, err, tries = 0;

		pthread_mutex_lock(&r.mu);
		r.round++;
		r.returned = 0;
		r.placed = 0;
		r.at_site = 0;
		r.began = 0;
		pthread_cond_broadcast(&r.cv);
		pthread_mutex_unlock(&r.mu);
		ok = live_plan(lv, r.site, 0, &q, &e) == 0 &&
		     live_splice(lv, &q, "count", "", &id, &e) == 0;
		err = ok ? 0 : errno;
		pthread_mutex_lock(&r.mu);
		r.returned = 1;
		pthread_cond_broadcast(&r.cv);
		while (r.returned != 2)
			pthread_cond_wait(&r.cv, &r.mu);
		pthread_mutex_unlock(&r.mu);
		/* asked for while gilk's int3 waited */
		in_window += r.began;
		if (r.placed == 1) {
			placed++;
			snprintf(note, sizeof(note), "round %d: a kprobe placed beside gilk's int3 (%s)",
				 rounds, ok ? "spliced" : e.msg);
		}
		(void)err;
		if (getpgid(0) != pg || !(ok || restored(lv, &p)))
			bad = 1;
		while (ok && live_unsplice(lv, id, &e) && errno == EBUSY && tries++ < 1000)
			usleep(1000);
		if (ok && hits(lv, id) != UINT64_MAX)
			bad = 1;
	}
	pthread_mutex_lock(&r.mu);
	r.stop = 1;
	pthread_cond_broadcast(&r.cv);
	pthread_mutex_unlock(&r.mu);
	pthread_join(t, NULL);
	check(!bad && in_window >= 3 && !placed && restored(lv, &p) && getpgid(0) == pg,
	      "defect 4 (grace): kprobes asked for in a splice's region during its grace period "
	      "are not placed there (%d asked in %d rounds, %d placed) %s",
	      in_window, rounds, placed, note);
}

/* 5: a splice on what gilk_entry calls outside its recursion guard. */
static void *spin(void *arg)
{
	volatile int *stop = arg;

	while (!*stop)
		;
	return NULL;
}

static void defect_recursion(struct live *lv)
{
	struct splice_plan p, q;
	uint32_t id, hot;
	char mode[64] = "";
	volatile int stop = 0;
	pthread_t t[2];
	struct gerr e;
	FILE *f;
	uint64_t n;
	const struct ksym *thunk;

	f = fopen("/sys/kernel/debug/sched/preempt", "r");
	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	mode[strcspn(mode, "\n")] = 0;
	/* gilk's own path may run it (it does on the debug kernel): refused then */
	if (live_plan(lv, live_block_site(lv, sym(lv, "preempt_schedule_notrace")), 0, &p, &e) &&
	    p.reason == SR_OWN_PATH) {
		check(1, "defect 5: preempt_schedule_notrace is on gilk's own path here: refused (%s)",
		      splice_reason_name(p.reason));
		goto return_thunk;
	}
	/* tsc through gilk_entry (inline, it calls nothing) */
	if (splice_at(lv, live_block_site(lv, sym(lv, "preempt_schedule_notrace")), 0, "count", "",
		      &id, &p) ||
	    (lv->full_template = true,
	     splice_at(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, "tsc", "", &hot, &q))) {
		lv->full_template = false;
		check(0, "defect 5: splices on preempt_schedule_notrace and getppid");
		return;
	}
	lv->full_template = false;
	/* Busy threads keep a reschedule pending while getppid's hits run
	 * gilk_entry: its preempt_enable then reschedules, from outside
	 * the guard, into the spliced preempt_schedule_notrace. */
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, spin, (void *)&stop);
	for (int i = 0; i < 20000; i++)
		syscall(SYS_getppid);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	n = hits(lv, id);
	check(n != UINT64_MAX && hits(lv, hot) >= 20000,
	      "defect 5: preempt_schedule_notrace spliced while gilk_entry runs under contention: no recursion (%" PRIu64 " hits; preemption %s)",
	      n, mode[0] ? mode : "unknown");
	live_unsplice(lv, id, &e);
	live_unsplice(lv, hot, &e);
return_thunk:
	thunk = NULL;
	symtab_by_name(lv->k.syms, "__x86_return_thunk", &thunk, 1);
	if (thunk) {
		static struct gilk_splice req;
		int err = send_forced(lv, thunk->addr, 1, &req);

		/* forced: the planner refuses it already */
		check(err == ELOOP && req.refusal == GILK_REFUSED_GILK_PATH &&
		      strstr(req.reason, "thunk"),
		      "defect 5: the return thunk gilk_entry returns through is refused: %s (%s)",
		      err > 0 ? strerror(err) : "accepted", req.reason);
	}
}

/* 6: idle code, and hlt in a region. */
static void defect_idle(struct live *lv)
{
	struct splice_plan p;
	static struct cfg g;
	struct gerr e;
	uint32_t id;
	uint64_t hlt = 0, f = sym(lv, "default_idle");

	if (live_plan(lv, live_block_site(lv, f), 0, &p, &e) == 0) {
		int ret = live_splice(lv, &p, "count", "", &id, &e);
		int err = errno;

		if (!ret)
			live_unsplice(lv, id, &e);
		check(ret && err == EACCES && strstr(e.msg, "idle code"),
		      "defect 6: default_idle (.cpuidle.text) refused by gilk.ko: %s", ret ? e.msg : "spliced");
	} else {
		check(p.reason == SR_BLACKLIST || p.reason == SR_IDLE,
		      "defect 6: default_idle refused by the planner: %s", e.msg);
	}
	if (kernel_cfg(&lv->k, sym(lv, "stop_this_cpu"), &g, &e) == 0)
		for (size_t i = 0; i < g.ninsn && !hlt; i++)
			if (g.insns[i].len == 1 && g.insns[i].bytes[0] == 0xf4)
				hlt = g.insns[i].addr;
	if (!hlt) {
		check(0, "defect 6: a hlt in stop_this_cpu");
		return;
	}
	check(live_plan(lv, hlt, SPLICE_ALLOW_TRAP, &p, &e) && p.reason == SR_IDLE,
	      "defect 6: the planner refuses a region holding hlt: %s", e.msg);
	{
		static struct gilk_splice req;
		int err = send_forced(lv, hlt, 1, &req);

		check(err == EBADMSG && req.refusal == GILK_REFUSED_UNVERIFIED_SITE &&
		      strstr(req.reason, "hlt"),
		      "defect 6: gilk.ko refuses a region holding hlt: %s (%s)",
		      err > 0 ? strerror(err) : "accepted", req.reason);
	}
}

/* 7: a patch outside the spliced module's text. */
static void defect_patch_outside(struct live *lv)
{
	static struct gilk_splice req;
	const struct ksym *fn;
	struct splice_plan p;
	struct gerr e;
	int err;

	if (symtab_by_name(lv->k.syms, "argfilter_fn", &fn, 1) != 1 ||
	    live_plan(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, &p, &e) ||
	    live_request(lv, &p, "count", "", &req, NULL, &e)) {
		check(0, "defect 7: a request to change");
		return;
	}
	/* the site in the core kernel, a patch in a module's text */
	req.patch[0].addr = fn->addr + 8;
	live_read_mem(lv, req.patch[0].addr, req.patch[0].orig, req.patch[0].len, &e);
	err = ioctl(lv->fd, GILK_IOC_SPLICE, &req) ? errno : 0;
	if (err)
		ioctl(lv->fd, GILK_IOC_RELEASE, &req.id);
	else
		live_unsplice(lv, req.id, &e);
	check(err == EXDEV && req.refusal == GILK_REFUSED_OTHER_TEXT && strstr(req.reason, "outside"),
	      "defect 7: a patch outside the spliced text is refused: %s (%s)",
	      err ? strerror(err) : "accepted", req.reason);
}

/* 8: FACTS over a range that runs past a module's text. */
static void defect_facts_range(struct live *lv)
{
	static struct gilk_fact out[64];
	const struct ksym *fn;
	int before = dmesg_count("WARNING:");
	struct gilk_facts f = { .max = 64, .buf = (uintptr_t)out };
	int ret;

	if (symtab_by_name(lv->k.syms, "argfilter_fn", &fn, 1) != 1) {
		check(0, "defect 8: argfilter_fn in /proc/kallsyms");
		return;
	}
	f.start = fn->addr;
	f.end = fn->addr + (1 << 20);
	ret = ioctl(lv->fd, GILK_IOC_FACTS, &f);
	check(ret == 0 && f.text == GILK_TEXT_MODULE && dmesg_count("WARNING:") == before,
	      "defect 8: FACTS from a module's text 1 MiB on answers without a WARNING (%d warnings before, %d after)",
	      before, dmesg_count("WARNING:"));
}

/* 9: a trampoline page reused from the pool is all int3 again. */
static void defect_pool(struct live *lv)
{
	struct gilk_reserve r = { .tramp_size = 64 };
	static uint8_t page[4096];
	struct gilk_read rd = { .len = sizeof(page), .buf = (uintptr_t)page };
	struct splice_plan p;
	struct gerr e;
	uint32_t id;
	size_t bad = 0;

	if (splice_at(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, "count", "", &id, &p) ||
	    live_unsplice(lv, id, &e) || ioctl(lv->fd, GILK_IOC_RESERVE, &r)) {
		check(0, "defect 9: splice, unsplice, reserve");
		return;
	}
	rd.addr = r.tramp;
	if (ioctl(lv->fd, GILK_IOC_READ, &rd) == 0)
		for (size_t i = 0; i < sizeof(page); i++)
			bad += page[i] != 0xcc;
	else
		bad = SIZE_MAX;
	ioctl(lv->fd, GILK_IOC_RELEASE, &r.id);
	check(bad == 0, "defect 9: a reused trampoline page holds only int3 (%zu other bytes)", bad);
}

/* 9: gilk's own handlers cannot be kprobed (a probe there recurses). */
static void defect_nokprobe(void)
{
	int a, b;

	mount("nodev", TRACING, "tracefs", 0, NULL);
	a = write_file(TRACING "/kprobe_events", "p:gilk_d9a gilk_entry\n", O_APPEND);
	b = write_file(TRACING "/kprobe_events", "p:gilk_d9b gilk_int3_notify\n", O_APPEND);
	write_file(TRACING "/kprobe_events", "-:gilk_d9a\n", O_APPEND);
	write_file(TRACING "/kprobe_events", "-:gilk_d9b\n", O_APPEND);
	check(a && b, "defect 9: kprobes on gilk_entry and the int3 notifier are refused (%s, %s)",
	      strerror(-a), strerror(-b));
}

/* 9: READ of ioremapped device memory. */
static void defect_read_mmio(struct live *lv)
{
	FILE *f;
	char line[256];
	unsigned long long lo = 0;
	uint8_t b[4];
	struct gilk_read rd = { .len = 4, .buf = (uintptr_t)b };
	int err;

	/* real addresses in /proc/vmallocinfo, not hashed ones */
	write_file("/proc/sys/kernel/kptr_restrict", "1", 0);
	f = fopen("/proc/vmallocinfo", "r");
	while (f && fgets(line, sizeof(line), f) && !lo)
		if (strstr(line, " ioremap"))
			sscanf(line, "0x%llx", &lo);
	if (f)
		fclose(f);
	if (!(lo >> 63)) {
		check(0, "defect 9: an ioremap area in /proc/vmallocinfo (0x%llx)", lo);
		return;
	}
	rd.addr = lo;
	err = ioctl(lv->fd, GILK_IOC_READ, &rd) ? errno : 0;
	check(err == EACCES, "defect 9: READ of ioremapped memory at 0x%llx refused: %s", lo,
	      err ? strerror(err) : "read");
	rd.addr = sym(lv, "jiffies");
	check(ioctl(lv->fd, GILK_IOC_READ, &rd) == 0, "defect 9: READ of kernel data (jiffies) still works");
}

/* 9: a blacklisted function reached only by a patch's later bytes. */
static void defect_blacklist_bytes(struct live *lv)
{
	FILE *f = fopen("/sys/kernel/debug/kprobes/blacklist", "r");
	unsigned long long s, e2;
	char name[128];
	uint64_t site = 0;

	while (f && !site && fscanf(f, "0x%llx-0x%llx %127s\n", &s, &e2, name) == 3) {
		FILE *g = fopen("/sys/kernel/debug/kprobes/blacklist", "r");
		unsigned long long s2, e3;
		char n2[128];
		int covered = 0;

		/* the 3 bytes before it are in no blacklisted range */
		while (g && fscanf(g, "0x%llx-0x%llx %127s\n", &s2, &e3, n2) == 3)
			covered |= s - 3 < e3 && s2 < s;
		if (g)
			fclose(g);
		if (!covered && s > 0xffffffff81000000ull && strcmp(name, "__do_softirq"))
			site = s - 3;
	}
	if (f)
		fclose(f);
	if (!site) {
		check(0, "defect 9: a blacklisted function with free bytes before it");
		return;
	}
	{
		static struct gilk_splice req;
		int err = send_forced(lv, site, 5, &req);

		check(err == EACCES && req.refusal == GILK_REFUSED_BLACKLIST &&
		      strstr(req.reason, "blacklisted"),
		      "defect 9: 5 bytes from 3 before blacklisted %s are refused: %s (%s)", name,
		      err > 0 ? strerror(err) : "accepted", req.reason);
	}
}

/* 9: LIST copies to user space without gilk_lock. A LIST whose buffer
 * faults into a page slow to come (gilk_target's slow page) waits there; a
 * RESERVE meanwhile must not. */
struct list_arg {
	int fd;
	void *buf;
	bool batch;	/* SPLICE_BATCH reading its requests, not LIST */
	int ret;
};

static void *list_thread(void *p)
{
	struct list_arg *a = p;
	struct gilk_list l = { .max = 1, .buf = (uintptr_t)a->buf };
	struct gilk_batch b = { .count = 1, .items = (uintptr_t)a->buf };

	a->ret = a->batch ? ioctl(a->fd, GILK_IOC_SPLICE_BATCH, &b) :
			    ioctl(a->fd, GILK_IOC_LIST, &l);
	return NULL;
}

static int ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

#define SLOWPAGE "/proc/gilk_target_slowpage"

/* How many faults wait on the slow page now (-1: no file). Only system
 * calls: while a fault holds this process's mmap_lock, a malloc that grows
 * the heap would wait for it. */
static int slow_waiting(void)
{
	char text[16];
	int fd = open(SLOWPAGE, O_RDONLY), n = -1;
	ssize_t len = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);

	if (len > 0) {
		text[len] = 0;
		n = atoi(text);
	}
	if (fd >= 0)
		close(fd);
	return n;
}

/*
 * A RESERVE from another process while an ioctl waits on its user buffer
 * (the slow page): LIST writing its list, or SPLICE_BATCH reading its
 * requests. Neither may wait holding gilk_lock.
 */
static void defect_list_lock(struct live *lv, bool batch)
{
	long pg = sysconf(_SC_PAGESIZE);
	int slow = open(SLOWPAGE, O_RDWR);
	struct gilk_reserve r = { .tramp_size = 64 };
	struct list_arg a = { .fd = lv->fd, .batch = batch };
	const char *what = batch ? "a SPLICE_BATCH reading its requests from" :
				   "a LIST waiting on";
	struct splice_plan p;
	struct timespec t0;
	struct gerr e;
	pthread_t t;
	uint32_t id;
	int ms, got, tries, go[2], st;
	pid_t k;
	void *area;
	char c;

	if (slow < 0) {
		check(0, "defect 9: " SLOWPAGE " (%s)", strerror(errno));
		return;
	}
	/* The other process, forked now: a fork once the fault waits would
	 * wait with it (it takes this process's mmap_lock for writing, and the
	 * slow page's fault holds it for reading; userfaultfd lets go). */
	if (pipe(go)) {
		check(0, "defect 9: pipe (%s)", strerror(errno));
		close(slow);
		return;
	}
	k = fork();
	if (k == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		/* a RESERVE that gilk_lock held by LIST would block */
		alarm(5);
		_exit(ioctl(lv->fd, GILK_IOC_RESERVE, &r) ? 1 : 0);
	}
	close(go[0]);
	/* one splice, so LIST has something to copy */
	if (splice_at(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, "count", "", &id, &p)) {
		check(0, "defect 9: a splice to list");
		goto out;
	}
	area = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, slow, 0);
	if (area == MAP_FAILED) {
		check(0, "defect 9: mapping the slow page (%s)", strerror(errno));
		live_unsplice(lv, id, &e);
		goto out;
	}
	a.buf = area;
	pthread_create(&t, NULL, list_thread, &a);
	/* the ioctl is now waiting on the page */
	for (tries = 0; tries < 500 && slow_waiting() < 1; tries++)
		usleep(10000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	got = write(go[1], "g", 1) == 1 && waitpid(k, &st, 0) == k &&
	      WIFEXITED(st) && WEXITSTATUS(st) == 0;
	ms = ms_since(&t0);
	if (write(slow, "release", 7) != 7)
		got = 0;
	pthread_join(t, NULL);
	/* the batch then reads a zeroed request: refused, as it should be */
	check(tries < 500 && got && ms < 3000 && (batch ? a.ret != 0 : a.ret == 0),
	      "defect 9: a RESERVE is not held up by %s its user buffer (%d ms)", what, ms);
	for (uint32_t i = 1; i < 1024; i++)
		if (i != id)
			ioctl(lv->fd, GILK_IOC_RELEASE, &i);
	live_unsplice(lv, id, &e);
	munmap(area, (size_t)pg);
	close(slow);
	close(go[1]);
	return;
out:
	close(go[1]);	/* the child reads nothing and goes */
	waitpid(k, NULL, 0);
	close(slow);
}

/* 9: more splices than one batch once held (256); unsplice all takes them
 * all, in one batch now. */
#define OLD_BATCH 256
static void defect_unsplice_all(struct live *lv)
{
	static const char *const fns[] = {
		"path_init", "link_path_walk", "walk_component", "do_sys_openat2",
		"do_filp_open", "tcp_v4_rcv", "ip_rcv", "__do_sys_newuname", "do_exit",
		"copy_process", "do_mmap", "vfs_read", "vfs_write", "tcp_sendmsg_locked", NULL,
	};
	static struct splice_plan plans[OLD_BATCH];
	static uint64_t sites[OLD_BATCH];
	static bool ok[OLD_BATCH];
	static enum splice_reason why[OLD_BATCH];
	static uint32_t ids[OLD_BATCH];
	static struct cfg g;
	size_t total = 0;
	struct gerr e;
	char out[256] = "";
	FILE *f;

	for (const char *const *fn = fns; *fn && total < 300; fn++) {
		size_t n = 0, good = 0;

		if (kernel_cfg(&lv->k, sym(lv, *fn), &g, &e))
			continue;
		for (size_t b = 0; b < g.nblocks && n < OLD_BATCH; b++)
			sites[n++] = live_block_site(lv, g.blocks[b].start);
		live_plan_many(lv, sites, n, 0, plans, ok, why);
		for (size_t i = 0; i < n; i++)
			if (ok[i])
				plans[good++] = plans[i];
		if (good && live_splice_batch(lv, plans, good, "count", "", ids, &e) == 0)
			total += good;
	}
	f = popen("build/gilk -c 'unsplice all' 2>&1; build/gilk -c 'info splices' 2>&1", "r");
	if (f) {
		size_t k = fread(out, 1, sizeof(out) - 1, f);

		out[k] = 0;
		pclose(f);
	}
	{
		char want[64];

		snprintf(want, sizeof(want), "unspliced %zu\nno splices\n", total);
		check(total > OLD_BATCH && !strcmp(out, want),
		      "defect 9: unsplice all removes all %zu splices, more than a batch (%s)", total, out);
	}
}

/* Writes s to path n times, "1" and "0" alternately when s is NULL. */
struct flipper {
	const char *path, *s;
	int n, ret;
	volatile int *done;
};

static void *flip(void *arg)
{
	struct flipper *f = arg;

	for (int i = 0; i < f->n && !f->ret; i++)
		f->ret = write_file(f->path, f->s ? f->s : i % 2 ? "0" : "1", 0);
	__atomic_add_fetch(f->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * The length of the one jump label fact FACTS gives over [lo, hi), which must
 * start at site; 0 if there is none, another, or the ioctl fails.
 */
static unsigned jump_fact_len(struct live *lv, uint64_t site, uint64_t lo, uint64_t hi,
			      struct gilk_fact *out)
{
	struct gilk_facts f = { .start = lo, .end = hi, .max = 64, .buf = (uintptr_t)out };
	unsigned len = 0, found = 0;

	if (ioctl(lv->fd, GILK_IOC_FACTS, &f) || f.count > f.max)
		return 0;
	for (uint32_t i = 0; i < f.count; i++)
		if (out[i].kind == GILK_RES_JUMP_LABEL) {
			found++;
			len = out[i].start == site ? (unsigned)(out[i].end - out[i].start) : 0;
		}
	return found == 1 ? len : 0;
}

/*
 * 10 (CI, session 9): a static key flipping while gilk asks about module
 * text. text_poke_bp() leaves an int3 at the key's sites for a while, and
 * gilk asked the kernel's jump_label_text_reserved(), which decodes every
 * site it walks (the core kernel's, then the module's) and BUG()s on an
 * int3. Both kinds flip here: the target module's own key and a tracepoint's.
 */
static void defect_jump_label_flip(struct live *lv)
{
	static struct gilk_fact out[64];
	volatile int done = 0;
	struct flipper own = { "/proc/gilk_target_jl", "flip 400", 1, 0, &done };
	struct flipper tp = { TRACING "/events/sched/sched_process_fork/enable", NULL, 300, 0, &done };
	pthread_t t1, t2;
	uint64_t site = 0, fs, fe;
	unsigned asked = 0, right = 0, tries = 0, refused = 0, len0 = 0;
	char buf[32] = "";
	struct timespec t0;
	FILE *pf = fopen("/proc/gilk_target_jl", "r");

	if (pf && fgets(buf, sizeof(buf), pf))
		site = strtoull(buf, NULL, 16);
	if (pf)
		fclose(pf);
	if (!site || symtab_function(lv->k.syms, sym(lv, "gilk_target_jl"), NULL, &fs, &fe) ||
	    site < fs || site >= fe) {
		check(0, "defect 10: gilk_target_jl's jump label (site 0x%" PRIx64 ")", site);
		return;
	}
	len0 = jump_fact_len(lv, site, fs - 32, fe + 32, out);
	if (len0 != 2 && len0 != 5) {
		check(0, "defect 10: FACTS finds gilk_target_jl's jump label at 0x%" PRIx64 " (%u bytes)",
		      site, len0);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&t1, NULL, flip, &own) || pthread_create(&t2, NULL, flip, &tp)) {
		check(0, "defect 10: flipping threads");
		return;
	}
	while (done < 2 && ms_since(&t0) < 120000) {
		struct gilk_splice req;
		unsigned n = jump_fact_len(lv, site, fs - 32, fe + 32, out);
		int err;

		/* mid-flip, where an int3 hides the length, the most a site holds */
		asked++;
		right += n == len0 || n == 5;
		if (asked % 4 == 0) {
			tries++;
			err = send_forced(lv, site, 5, &req);
			refused += err == EBUSY && req.refusal == GILK_REFUSED_JUMP_LABEL &&
				   strstr(req.reason, "jump label") != NULL;
		}
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	check(own.ret == 0 && tp.ret == 0 && asked >= 10 && right == asked && tries && refused == tries,
	      "defect 10: while a module's static key and a tracepoint flip, FACTS over the module's function is right %u of %u times (its %u-byte jump label, 5 bytes mid-flip, nothing else), a splice there refused as a jump label site %u of %u times (flips: %s, %s)",
	      right, asked, len0, refused, tries, own.ret ? strerror(-own.ret) : "done",
	      tp.ret ? strerror(-tp.ret) : "done");
}

/* FACTS over [lo, hi) in a loop until *stop: how many asked, how many failed. */
struct facts_racer {
	struct live *lv;
	uint64_t lo, hi;
	volatile int *stop;
	unsigned asked, failed;
};

static void *ask_facts(void *arg)
{
	struct facts_racer *r = arg;
	static struct gilk_fact out[256];

	while (!*r->stop) {
		struct gilk_facts q = { .start = r->lo, .end = r->hi, .max = 256,
					.buf = (uintptr_t)out };

		r->asked++;
		r->failed += ioctl(r->lv->fd, GILK_IOC_FACTS, &q) != 0;
	}
	return NULL;
}

/*
 * 11 (review, session 10): FACTS over a .cold part decodes the functions
 * named as it, through the original bytes of their splices, without
 * gilk_lock, while an unsplice frees a splice object under it (kfree, so
 * the read was of freed memory: KASAN says so on the debug kernel). Splice
 * objects are now freed after an RCU grace period. A core function with a
 * .cold part is spliced and unspliced while another thread asks FACTS
 * about its part.
 */
static void defect_cold_facts_race(struct live *lv)
{
	size_t n = symtab_count(lv->k.syms);
	uint64_t cs = 0, ce = 0, f = 0;
	volatile int stop = 0;
	struct facts_racer r = { lv, 0, 0, &stop, 0, 0 };
	unsigned rounds = 0, made = 0;
	pthread_t t;

	for (size_t i = 0; i < n && !f; i++) {
		const struct ksym *c = symtab_at(lv->k.syms, i);
		const char *dot = strstr(c->name, ".cold");
		char base[256];
		struct splice_plan p;
		struct gerr e;
		uint64_t fn;

		if (c->module || !dot || dot[5] || (size_t)(dot - c->name) >= sizeof(base) ||
		    symtab_function(lv->k.syms, c->addr, NULL, &cs, &ce))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(dot - c->name), c->name);
		fn = sym(lv, base);
		if (fn && strncmp(base, "tcp_", 4) == 0 &&
		    live_plan(lv, live_block_site(lv, fn), 0, &p, &e) == 0)
			f = fn;
	}
	if (!f) {
		/* 6.12 is built without hot/cold splitting */
		check(1, "defect 11: no tcp_ function with a .cold part to race FACTS over");
		return;
	}
	r.lo = cs;
	r.hi = ce;
	if (pthread_create(&t, NULL, ask_facts, &r)) {
		check(0, "defect 11: a FACTS thread");
		return;
	}
	for (rounds = 0; rounds < 50; rounds++) {
		struct splice_plan p;
		struct gerr e;
		uint32_t id;

		if (splice_at(lv, live_block_site(lv, f), 0, "count", "", &id, &p))
			continue;
		made += live_unsplice(lv, id, &e) == 0 && restored(lv, &p);
	}
	stop = 1;
	pthread_join(t, NULL);
	check(made == rounds && r.asked >= rounds && !r.failed,
	      "defect 11: %u splices made and undone in a function while FACTS asked %u times about its .cold part (%u failed)",
	      made, r.asked, r.failed);
}

/* 3: a tsc splice hit in NMI context (backtraces of every CPU by NMI). */
static void defect_nmi(struct live *lv)
{
	static uint8_t buf[1 << 16];
	struct splice_plan p;
	struct timespec t0, t1;
	uint32_t id;
	struct gerr e;
	uint64_t n;
	ssize_t got;
	size_t events = 0, sane = 0;
	pid_t busy;

	/* The backtraces print Call Traces: the log must be clean before,
	 * and is cleared after, so the suite's last look sees only real ones. */
	check(system("dmesg | grep -qE 'Oops|BUG:|WARNING:|general protection|soft lockup|RCU stall|Call Trace'") != 0,
	      "defect 3: dmesg clean before the NMI backtraces");
	live_read_events(lv, buf, sizeof(buf), &e);
	/* tsc's C function in the NMI, through gilk_entry, as when the defect
	 * was found (inline, it calls nothing) */
	lv->full_template = true;
	if (splice_at(lv, live_block_site(lv, sym(lv, "show_regs")), 0, "tsc", "", &id, &p)) {
		lv->full_template = false;
		check(0, "defect 3: a tsc splice on show_regs");
		return;
	}
	lv->full_template = false;
	/* An idle CPU's backtrace is skipped: keep the other one busy, so
	 * the NMI finds it running and calls show_regs() there. */
	busy = fork();
	if (busy == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (;;)
			;
	}
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	usleep(200000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	write_file("/proc/sysrq-trigger", "l", 0);
	sleep(1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (system("dmesg -c >/dev/null"))
		check(0, "defect 3: dmesg cleared");
	n = hits(lv, id);
	got = live_read_events(lv, buf, sizeof(buf), &e);
	for (ssize_t off = 0; got > 0 && off + (ssize_t)sizeof(struct gilk_event) <= got;) {
		const struct gilk_event *ev = (const void *)(buf + off);
		uint64_t a = (uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec;
		uint64_t b = (uint64_t)t1.tv_sec * 1000000000ull + (uint64_t)t1.tv_nsec;

		if (ev->splice == id) {
			events++;
			sane += ev->ns >= a && ev->ns <= b;
		}
		off += (ssize_t)sizeof(*ev) + ev->len;
	}
	live_unsplice(lv, id, &e);
	check(n >= 1 && events == n && sane == events,
	      "defect 3: show_regs spliced with tsc, hit in NMI by sysrq-l backtraces: %" PRIu64 " hits, %zu events, %zu on the monotonic clock",
	      n, events, sane);
}

/*
 * 12: gilk's own path. A CPU that meets gilk's int3 reaches gilk through
 * the die notifier chain, whose rcu_read_lock() is a call to
 * __rcu_read_lock() on a PREEMPT_RCU kernel: an int3 there was met again
 * inside its own handling, without end (the kernel died at once). So is
 * hw_breakpoint's die notifier, which runs before gilk's on every int3
 * (make torture found it, splicing every function at once), and what the
 * int3 exception's entry calls on a debug kernel (make torture again: the
 * NMI count overflowed in nested int3s). All are refused as gilk-path, by
 * the planner and by gilk.ko, while both vCPUs run code that takes
 * rcu_read_lock().
 */
static void *rcu_load(void *arg)
{
	volatile int *stop = arg;

	while (!*stop)
		syscall(SYS_getppid);	/* task_tgid_vnr() under rcu_read_lock() */
	return NULL;
}

/* The reservation kinds FACTS gives at site, a bit each (0: none, or the
 * ioctl failed). */
static unsigned fact_kinds_at(struct live *lv, uint64_t site)
{
	struct gilk_fact out[64];
	struct gilk_facts f = { .start = site, .end = site + 1, .max = 64,
				.buf = (uintptr_t)out };
	unsigned kinds = 0;

	if (ioctl(lv->fd, GILK_IOC_FACTS, &f) || f.count > f.max)
		return 0;
	for (uint32_t i = 0; i < f.count; i++)
		if (out[i].kind < 16)
			kinds |= 1u << out[i].kind;
	return kinds;
}

static void defect_own_path(struct live *lv)
{
	/*
	 * The chain's rcu_read_lock() and unlock, the notifier before gilk's,
	 * and what the int3 exception's entry runs before the chain: on the
	 * debug kernel ct_nmi_enter() calls trace_rcu_dyntick() out of line.
	 */
	static const char *const fns[] = {
		"__rcu_read_lock", "__rcu_read_unlock", "hw_breakpoint_exceptions_notify",
		"trace_rcu_dyntick",
	};
	volatile int stop = 0;
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, rcu_load, (void *)&stop);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		static struct gilk_splice req;
		uint64_t fn = sym(lv, fns[i]), site;
		unsigned kinds, lifecycle;
		struct splice_plan p;
		struct gerr e;
		int err, ret;

		if (!fn) {
			/* the first two are inline where RCU is not preemptible,
			 * the last where the kernel is built to be fast
			 */
			check(1, "defect 12: %s is not a function on this kernel", fns[i]);
			continue;
		}
		site = live_block_site(lv, fn);
		kinds = fact_kinds_at(lv, site);
		/* where the CPU's bring-up or idle runs it too (the debug
		 * kernel's lockdep and KASAN calls), that class may be named */
		lifecycle = kinds & (1u << GILK_RES_EARLY_CPU | 1u << GILK_RES_RCU_IDLE);
		check(kinds & (1u << GILK_RES_OWN_PATH),
		      "defect 12: FACTS puts %s on gilk's own path (kinds 0x%x)", fns[i], kinds);
		ret = live_plan(lv, site, SPLICE_ALLOW_TRAP, &p, &e);
		check(ret != 0 && (p.reason == SR_OWN_PATH ||
				   (p.reason == SR_EARLY_CPU &&
				    (lifecycle & 1u << GILK_RES_EARLY_CPU)) ||
				   (p.reason == SR_RCU_IDLE && (lifecycle & 1u << GILK_RES_RCU_IDLE))),
		      "defect 12: the planner refuses %s as gilk-path%s (%s)", fns[i],
		      lifecycle ? " or its lifecycle class" : "", ret ? e.msg : "planned");
		err = send_forced(lv, site, 5, &req);
		check((err == ELOOP && strstr(req.reason, "own path")) ||
		      (lifecycle && err == EACCES && *req.reason),
		      "defect 12: gilk.ko refuses a request for %s: %s (%s)", fns[i],
		      err > 0 ? strerror(err) : "accepted", req.reason);
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	check(syscall(SYS_getppid) == getppid(), "defect 12: the kernel lives on");
}

/*
 * 13: the kprobe blacklist was walked under RCU alone, but a module's
 * entries are freed with a plain kfree() when it unloads: FACTS (and every
 * splice's checks) could read a freed entry. FACTS asks in a loop while
 * the target module, which has a kprobe-blacklisted function, is loaded
 * and unloaded; a KASAN kernel (debug) reports the use after free.
 */
struct blacklist_race {
	struct live *lv;
	volatile int stop;
	unsigned asked, failed;
};

static void *facts_loop(void *arg)
{
	struct blacklist_race *r = arg;
	uint64_t a = sym(r->lv, "__x64_sys_getppid");
	struct gilk_fact out[64];

	while (!r->stop) {
		struct gilk_facts q = { .start = a, .end = a + 64, .max = 64,
					.buf = (uintptr_t)out };

		r->failed += ioctl(r->lv->fd, GILK_IOC_FACTS, &q) != 0;
		r->asked++;
	}
	return NULL;
}

void test_blacklist_race(struct live *lv, int rounds)
{
	struct blacklist_race r = { .lv = lv };
	pthread_t t;
	int loaded = 0;

	if (pthread_create(&t, NULL, facts_loop, &r)) {
		check(0, "defect 13: a FACTS thread");
		return;
	}
	for (int i = 0; i < rounds; i++)
		if (system("insmod build/tests/gilk_target.ko && rmmod gilk_target") == 0)
			loaded++;
	r.stop = 1;
	pthread_join(t, NULL);
	check(loaded == rounds && r.asked > (unsigned)rounds && !r.failed,
	      "defect 13: FACTS asked %u times (%u failed) while a module with a blacklisted function came and went %d of %d times",
	      r.asked, r.failed, loaded, rounds);
}

/*
 * 15: read() took each event out of the ring before copying it to the
 * user: a fault on the buffer lost it. Ten events, a read into an
 * unmapped page, then a read that must still get all ten.
 */
static void defect_events_fault(struct live *lv)
{
	static uint8_t buf[1 << 16];
	struct splice_plan p;
	struct gerr e;
	uint32_t id;
	size_t got = 0;
	ssize_t n;
	void *bad;
	int err;

	while (live_read_events(lv, buf, sizeof(buf), &e) > 0)
		;
	if (splice_at(lv, live_block_site(lv, sym(lv, "do_prlimit")), 0, "regs", "", &id, &p)) {
		check(0, "defect 15: a regs splice on do_prlimit");
		return;
	}
	for (int i = 0; i < 10; i++) {
		struct rlimit rl;

		getrlimit(RLIMIT_STACK, &rl);
	}
	live_unsplice(lv, id, &e);
	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	err = read(lv->fd, bad, 4096) < 0 ? errno : 0;
	munmap(bad, 4096);
	while ((n = live_read_events(lv, buf, sizeof(buf), &e)) > 0)
		for (uint8_t *q = buf; q < buf + n;) {
			const struct gilk_event *ev = (const void *)q;

			got += ev->splice == id;
			q += sizeof(*ev) + ev->len;
		}
	check(n == 0 && err == EFAULT && got == 10,
	      "defect 15: a read that faults loses no event (%s; then %zu of 10 read)",
	      strerror(err), got);
}

/*
 * 16: a reservation could be spliced, or released, through another open
 * /dev/gilk than the one that made it. Now only its own file may.
 */
static void defect_reservation_owner(struct live *lv)
{
	static struct gilk_splice req;
	struct splice_plan p;
	struct gerr e;
	int other = open("/dev/gilk", O_RDWR), spliced, released;
	uint32_t id;

	if (other < 0 || live_plan(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, &p, &e) ||
	    live_request(lv, &p, "count", "", &req, NULL, &e)) {
		check(0, "defect 16: a second /dev/gilk and a reservation");
		if (other >= 0)
			close(other);
		return;
	}
	id = req.id;
	spliced = ioctl(other, GILK_IOC_SPLICE, &req) ? errno : 0;
	released = ioctl(other, GILK_IOC_RELEASE, &id) ? errno : 0;
	close(other);
	check(spliced == EPERM && released == EPERM && strstr(req.reason, "another open") &&
	      ioctl(lv->fd, GILK_IOC_RELEASE, &id) == 0,
	      "defect 16: another file can neither splice nor release a reservation (%s, %s: %s)",
	      strerror(spliced), strerror(released), req.reason);
}

/*
 * Sends a splice of the n instructions from insns[0] (a region of len
 * bytes, the rest dead padding), made by hand; the splice is removed when
 * made. 0 or errno, gilk.ko's reason in req.
 */
static int send_region(struct live *lv, const struct insn *insns, unsigned n, unsigned len,
		       struct gilk_splice *req)
{
	struct splice_plan t;
	struct gerr e;
	int err;

	memset(&t, 0, sizeof(t));
	t.mode = SPLICE_JMP;
	t.region.addr = insns[0].addr;
	t.region.len = (uint8_t)len;
	t.region.ninsn = (uint8_t)n;
	for (unsigned i = 0; i < n; i++) {
		t.region.insns[i] = insns[i];
		t.region.live += insns[i].len;
	}
	live_read_mem(lv, t.region.addr, t.region.orig, len, &e);
	err = send_plan_keep(lv, &t, req);
	if (!err)
		live_unsplice(lv, req->id, &e);
	return err;
}

/*
 * 17: a region ran past its symbol. After gilk_target_edge_a's last
 * instruction, int3 padding and gilk_target_edge_b's first bytes (what a
 * sealed endbr64 becomes on 6.12) read as dead padding, and the jmp's int3
 * fill would have landed on gilk_target_edge_b's entry (target/edge.c).
 * 18: gilk.ko took a region that displaces an endbr64, where an IBT CPU
 * lands every indirect call (gilk_target_endbr). Both sent by hand: the
 * planner makes neither.
 */
static void defect_symbol_bounds(struct live *lv)
{
	uint64_t a = sym(lv, "gilk_target_edge_a"), b = sym(lv, "gilk_target_edge_b");
	uint64_t c = sym(lv, "gilk_target_endbr");
	static struct gilk_splice req;
	static struct cfg g;
	struct gerr e;
	int err;

	if (!a || !b || !c || live_load_text(lv, a, &e) || kernel_cfg(&lv->k, a, &g, &e) ||
	    g.ninsn < 2) {
		check(0, "defect 17: gilk_target_edge_a and its instructions");
		return;
	}
	err = send_region(lv, &g.insns[1], 1, (unsigned)(b + 4 - g.insns[1].addr), &req);
	check(err == EBADMSG && strstr(req.reason, "past the end of its symbol"),
	      "defect 17: a region from gilk_target_edge_a's last instruction into gilk_target_edge_b is refused: %s (%s)",
	      err > 0 ? strerror(err) : "accepted", req.reason);
	err = send_region(lv, &g.insns[1], 1, (unsigned)(b - g.insns[1].addr), &req);
	check(err == 0, "defect 17: the same region up to gilk_target_edge_b is taken (%s)",
	      err ? req.reason : "ok");
	if (live_load_text(lv, c, &e) || kernel_cfg(&lv->k, c, &g, &e) || g.ninsn < 2) {
		check(0, "defect 18: gilk_target_endbr and its instructions");
		return;
	}
	err = send_region(lv, &g.insns[0], 2, g.insns[0].len + g.insns[1].len, &req);
	check(err == EBADMSG && strstr(req.reason, "endbr"),
	      "defect 18: a region that displaces an endbr64 is refused: %s (%s)",
	      err > 0 ? strerror(err) : "accepted", req.reason);
}

static bool file_has_line(const char *path, const char *want)
{
	FILE *f = fopen(path, "r");
	char line[256];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, want, strlen(want));
	if (f)
		fclose(f);
	return found;
}

/*
 * 19: the text the checker decodes (textread.c) missed an optimized kprobe
 * that starts up to 4 bytes before where a read begins: the jmp's rel32 was
 * read as code. gilk_target_optsite's block at +55 is planned before the
 * kprobe at +46 goes in and is optimized, and sent after: the checker reads
 * again at +50, the last byte of the kprobe's jmp (target/optsite.c).
 */
static void defect_optprobe_read(struct live *lv)
{
	uint64_t fn = sym(lv, "gilk_target_optsite");
	static struct gilk_splice req;
	struct gilk_splice_info info = { 0 };
	struct splice_plan p;
	char want[160];
	struct gerr e;
	bool opt = false;
	long ret;
	int err;

	if (!fn || live_plan(lv, fn + 55, 0, &p, &e)) {
		check(0, "defect 19: a plan at gilk_target_optsite+55 (%s)",
		      fn ? e.msg : "no such symbol");
		return;
	}
	ret = write_file("/proc/gilk_target", "optkprobe 1", 0);
	if (!ret)
		ret = target_result();
	/* the kernel's optimizer runs a few jiffies after, in the background */
	mount("nodev", "/sys/kernel/debug", "debugfs", 0, NULL);
	snprintf(want, sizeof(want), "%" PRIx64 "  k  gilk_target_optsite+0x2e  gilk_target [OPTIMIZED]",
		 fn + 46);
	for (int i = 0; !ret && !opt && i < 100; i++) {
		usleep(50000);
		opt = file_has_line("/sys/kernel/debug/kprobes/list", want);
	}
	if (ret || !opt) {
		check(0, "defect 19: the kernel optimizes a kprobe at gilk_target_optsite+46 (%s)",
		      ret ? strerror((int)-ret) : "not in 5 s");
		write_file("/proc/gilk_target", "optkprobe 0", 0);
		return;
	}
	err = send_plan_keep(lv, &p, &req);
	check(err == 0, "defect 19: with an optimized kprobe at +46, the block at +55 is spliced: the checker reads +50 as it was (%s)",
	      err ? req.reason : "ok");
	if (!err) {
		write_file("/proc/gilk_target", "optsite 5", 0);
		ret = target_result();
		live_info(lv, req.id, &info, &e);
		err = live_unsplice(lv, req.id, &e);
		check(ret == 24 && info.hits == 1 && !err && restored(lv, &p),
		      "defect 19: it runs through both (%ld, %" PRIu64 " hit) and unsplices to the original bytes (%s)",
		      ret, (uint64_t)info.hits, err ? e.msg : "ok");
	}
	write_file("/proc/gilk_target", "optkprobe 0", 0);
}

void test_defects(struct live *lv)
{
	defect_optprobe_read(lv);
	defect_symbol_bounds(lv);
	defect_events_fault(lv);
	defect_reservation_owner(lv);
	defect_own_path(lv);
	defect_pool(lv);
	defect_nokprobe();
	defect_read_mmio(lv);
	defect_blacklist_bytes(lv);
	defect_list_lock(lv, false);
	defect_list_lock(lv, true);
	defect_facts_range(lv);
	defect_jump_label_flip(lv);
	defect_cold_facts_race(lv);
	defect_patch_outside(lv);
	defect_idle(lv);
	defect_nmi(lv);
	defect_kprobe_after_splice(lv);
	defect_kprobe_on_splice_read(lv);
	defect_kprobe_during_grace(lv);
	defect_recursion(lv);
	defect_unsplice_all(lv);
}
