/*
 * The trampoline templates in the running kernel (include/gilk_tramp.h): count
 * increments inline, saving the flags only where they are live
 * (gilk_target_flags: a block whose flags a later jl reads, and an entry
 * where a cmp writes them first), results and hit counts stay exact; gilk.ko
 * refuses a count trampoline that leaves live flags unsaved; the full
 * template on request; tsc inline, its ring's events intact, its losses
 * counted, drained when the splice goes, and through the full template on
 * request.
 * Needs gilk_target.ko loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

/* Runs "flags n" through the target's proc file; its result, or LONG_MIN. */
static long target_flags(long n)
{
	char buf[32];
	long r = -1;
	int fd = open("/proc/gilk_target", O_RDWR);
	ssize_t k;

	if (fd < 0)
		return -1;
	k = snprintf(buf, sizeof(buf), "flags %ld", n);
	if (write(fd, buf, (size_t)k) == k && lseek(fd, 0, SEEK_SET) == 0 &&
	    (k = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[k] = 0;
		r = strtol(buf, NULL, 10);
	}
	close(fd);
	return r;
}

/* Its results for n = 0..19 are all right (n + 5 below 10, n + 1005 after). */
static int flags_results_ok(void)
{
	for (long n = 0; n < 20; n++)
		if (target_flags(n) != n + (n < 10 ? 5 : 1005))
			return 0;
	return 1;
}

/* The first bytes of splice id's trampoline. */
static int tramp_head(struct live *lv, uint32_t id, uint8_t *b, size_t n)
{
	struct gilk_splice_info info;
	struct gerr e;

	return live_info(lv, id, &info, &e) || info.tramp_len < n ||
	       live_read_mem(lv, info.tramp, b, n, &e) ? -1 : 0;
}

/* Which template a header is, from its first bytes (kmod/arch/x86/tramp.c). */
static const char *template_of(const uint8_t *b)
{
	static const uint8_t inc_gs[] = { 0x65, 0x48, 0xff };
	static const uint8_t far[] = { 0x50, 0x48, 0xb8 };
	static const uint8_t full[] = { 0x48, 0x8d, 0xa4, 0x24 };	/* lea rsp, [rsp - frame] */
	static const uint8_t scratch[] = { 0x9c, 0x50, 0x51, 0x52, 0x56, 0x57, 0x41, 0x50 };

	if (!memcmp(b, inc_gs, 3) || !memcmp(b, far, 3))
		return "count";
	if (b[0] == 0x9c && (!memcmp(b + 1, inc_gs, 3) || !memcmp(b + 1, far, 3)))
		return "count, flags saved";
	if (!memcmp(b, full, 4))
		return "full";
	if (!memcmp(b, scratch, sizeof(scratch)))
		return "scratch";
	return "?";
}

/* Offset of gilk_target_flags's block 1: (mov 3 bytes, cmp 4, jmp rel8 2). */
#define FLAGS_LIVE_BLOCK 9

static void count_templates(struct live *lv)
{
	uint64_t f = sym(lv, "gilk_target_flags");
	struct splice_plan p[2], bad;
	struct gilk_splice req;
	uint8_t head[2][8];
	uint32_t id[2];
	uint64_t h[2];
	struct gerr e;
	int ok;

	if (!f || live_plan(lv, f, 0, &p[0], &e) ||
	    live_plan(lv, f + FLAGS_LIVE_BLOCK, 0, &p[1], &e)) {
		check(0, "gilk_target_flags: its entry and block 1: are planned (%s)", f ? e.msg : "no symbol");
		return;
	}
	check(p[0].flags_dead && !p[1].flags_dead,
	      "the planner finds the flags dead at gilk_target_flags's entry (cmp) and live at 1: (jl)");
	if (live_splice_batch(lv, p, 2, "count", "", id, &e)) {
		check(0, "count spliced at both: %s", e.msg);
		return;
	}
	ok = !tramp_head(lv, id[0], head[0], 8) && !tramp_head(lv, id[1], head[1], 8);
	{
		const char *k0 = ok ? template_of(head[0]) : "unreadable";
		const char *k1 = ok ? template_of(head[1]) : "unreadable";

		check(!strcmp(k0, "count") && !strcmp(k1, "count, flags saved"),
		      "count is inline: no flags saved at the entry (%s), saved at 1: (%s)", k0, k1);
	}
	h[0] = hits(lv, id[0]);
	h[1] = hits(lv, id[1]);
	ok = flags_results_ok();
	check(ok && hits(lv, id[0]) - h[0] == 20 && hits(lv, id[1]) - h[1] == 20,
	      "with both counted, gilk_target_flags is still right for 0..19 and each block counts 20 (%" PRIu64 ", %" PRIu64 ")",
	      hits(lv, id[0]) - h[0], hits(lv, id[1]) - h[1]);
	live_unsplice_batch(lv, id, 2, &e);

	/* the same trampoline without its pushfq/popfq: gilk.ko walks the
	 * code itself and refuses it */
	bad = p[1];
	bad.flags_dead = true;
	if (live_request(lv, &bad, "count", "", &req, NULL, &e) == 0) {
		int r = ioctl(lv->fd, GILK_IOC_SPLICE, &req), err = errno;

		check(r < 0 && err == EBADMSG && strstr(req.reason, "trampoline header"),
		      "gilk.ko refuses a count trampoline that leaves live flags unsaved (%s)",
		      r < 0 ? req.reason : "accepted");
		if (r < 0)
			ioctl(lv->fd, GILK_IOC_RELEASE, &req.id);
		else
			live_unsplice(lv, req.id, &e);
	}
	check(flags_results_ok(), "gilk_target_flags is right after the refusal");

	/* the full template on request, for comparisons */
	lv->full_template = true;
	if (live_splice(lv, &p[1], "count", "", &id[0], &e) == 0) {
		const char *kind;

		ok = !tramp_head(lv, id[0], head[0], 8);
		kind = ok ? template_of(head[0]) : "unreadable";
		h[0] = hits(lv, id[0]);
		ok = ok && flags_results_ok();
		check(ok && !strcmp(kind, "full") && hits(lv, id[0]) - h[0] == 20,
		      "count with the full template on request (%s) counts the same (%" PRIu64 ")",
		      kind, hits(lv, id[0]) - h[0]);
		live_unsplice(lv, id[0], &e);
	} else {
		check(0, "count with the full template: %s", e.msg);
	}
	lv->full_template = false;
}

/* What gilk.ko says the tsc instrument needs. */
static uint32_t tsc_needs(struct live *lv)
{
	struct gilk_instrument_info *ins;
	uint32_t needs = ~0u;
	struct gerr e;
	size_t n;

	if (live_instruments(lv, &ins, &n, &e))
		return needs;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ins[i].name, "tsc"))
			needs = ins[i].needs;
	free(ins);
	return needs;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* What a drain of the events gave for one splice. */
struct tsc_events {
	size_t n, bad_cpu, backwards, out_of_time;
	uint64_t last_tsc[64], last_ns[64];
};

/* Reads every event; those of splice id are tallied into t, checked: a CPU
 * that exists, TSC and ns not going back on one CPU, ns within [lo, hi]. */
static void drain_tsc(struct live *lv, uint32_t id, struct tsc_events *t, uint64_t lo,
		      uint64_t hi)
{
	static uint8_t buf[1 << 16];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct gerr e;
	ssize_t n;

	while ((n = live_read_events(lv, buf, sizeof(buf), &e)) > 0)
		for (size_t off = 0; off + sizeof(struct gilk_event) <= (size_t)n;) {
			const struct gilk_event *h = (const void *)(buf + off);
			uint64_t tsc;

			off += sizeof(*h) + h->len;
			if (h->splice != id || h->len != 8)
				continue;
			memcpy(&tsc, h + 1, 8);
			t->n++;
			if (h->cpu >= cpus || h->cpu >= 64) {
				t->bad_cpu++;
				continue;
			}
			t->backwards += tsc < t->last_tsc[h->cpu] || h->ns < t->last_ns[h->cpu];
			t->last_tsc[h->cpu] = tsc;
			t->last_ns[h->cpu] = h->ns;
			t->out_of_time += h->ns < lo || h->ns > hi;
		}
}

#define RING_SLOTS GILK_TSC_SLOTS
#define SLACK_NS 100000000ull

/*
 * tsc inline: its trampoline writes the splice's ring, which gilk.ko
 * drains into events as they are read, and before the splice goes; a ring
 * that fills counts what it lost.
 */
static void tsc_template(struct live *lv)
{
	uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_getppid"));
	/* five pushes, mov esi, %gs:disp32 (the CPU's number) */
	static const uint8_t tsc_start[] = { 0x50, 0x51, 0x52, 0x56, 0x57, 0x65, 0x8b, 0x34 };
	struct tsc_events t = { 0 };
	struct gilk_splice_info info;
	struct splice_plan p;
	uint8_t head[9];
	uint64_t t0, t1, h0;
	uint32_t id;
	struct gerr e;

	drain_tsc(lv, 0, &t, 0, 0);
	check(tsc_needs(lv) == GILK_NEEDS_TSC, "gilk.ko runs tsc inline on this CPU (needs %u)",
	      tsc_needs(lv));
	if (splice_at(lv, site, 0, "tsc", "", &id, &p))
		return;
	if (tramp_head(lv, id, head, 9))
		memset(head, 0, sizeof(head));
	check(!memcmp(head, tsc_start, 8) || (head[0] == 0x9c && !memcmp(head + 1, tsc_start, 8)),
	      "tsc's trampoline calls nothing: it pushes five registers and reads the CPU's number (%02x %02x %02x %02x %02x %02x %02x %02x)",
	      head[0], head[1], head[2], head[3], head[4], head[5], head[6], head[7]);

	t0 = now_ns();
	for (int i = 0; i < 200; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	drain_tsc(lv, id, &t, t0 - SLACK_NS, t1 + SLACK_NS);
	h0 = hits(lv, id);
	check(t.n >= 200 && t.n <= h0 && !t.bad_cpu && !t.backwards && !t.out_of_time &&
	      !live_info(lv, id, &info, &e) && info.lost == 0 && info.missed == 0,
	      "200 calls: %zu tsc events (hits %" PRIu64 "), each on a CPU that exists (%zu not), TSC and time going forward on each CPU (%zu not), within the calls' time (%zu not), none lost",
	      t.n, h0, t.bad_cpu, t.backwards, t.out_of_time);

	/* more than the ring holds, unread: the oldest are lost, and counted */
	memset(&t, 0, sizeof(t));
	t0 = now_ns();
	for (int i = 0; i < 3 * RING_SLOTS; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	drain_tsc(lv, id, &t, t0 - SLACK_NS, t1 + SLACK_NS);
	if (live_info(lv, id, &info, &e))
		info.lost = 0;
	check(t.n <= RING_SLOTS && t.n >= RING_SLOTS - 64 && info.lost >= 2 * RING_SLOTS - 64 &&
	      t.n + info.lost >= 3 * RING_SLOTS && t.n + info.lost <= hits(lv, id) - h0 &&
	      !t.bad_cpu && !t.backwards && !t.out_of_time,
	      "%d calls unread: %zu events (a ring holds %d), %" PRIu64 " counted lost, %" PRIu64 " hits",
	      3 * RING_SLOTS, t.n, RING_SLOTS, (uint64_t)info.lost, hits(lv, id) - h0);

	/* what the ring holds when the splice goes becomes events */
	memset(&t, 0, sizeof(t));
	t0 = now_ns();
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	live_unsplice(lv, id, &e);
	t1 = now_ns();
	drain_tsc(lv, id, &t, t0 - SLACK_NS, t1 + SLACK_NS);
	check(t.n >= 100 && !t.bad_cpu && !t.backwards && !t.out_of_time,
	      "100 calls, then unsplice: the ring's %zu events are read after the splice is gone", t.n);

	/* the full template on request still calls tsc's C function */
	lv->full_template = true;
	memset(&t, 0, sizeof(t));
	if (splice_at(lv, site, 0, "tsc", "", &id, &p) == 0) {
		const char *kind = tramp_head(lv, id, head, 8) ? "unreadable" : template_of(head);

		t0 = now_ns();
		for (int i = 0; i < 50; i++)
			syscall(SYS_getppid);
		t1 = now_ns();
		drain_tsc(lv, id, &t, t0 - SLACK_NS, t1 + SLACK_NS);
		check(!strcmp(kind, "full") && t.n >= 50 && !t.bad_cpu && !t.backwards && !t.out_of_time,
		      "tsc with the full template on request (%s): %zu events for 50 calls", kind, t.n);
		live_unsplice(lv, id, &e);
	}
	lv->full_template = false;
}

void test_templates(struct live *lv)
{
	count_templates(lv);
	tsc_template(lv);
}
