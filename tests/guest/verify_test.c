/*
 * gilk.ko's code checker in the running kernel: real plans (a plain jmp, a
 * bounce through padding, an eviction) are accepted as planned, and the same
 * requests changed in one place are refused with EBADMSG and "unverified
 * code at PART+OFFSET" naming the first byte refused. The user-space build
 * of the same checker sees tens of thousands of plans and mutations in the
 * differential tests; this shows the kernel runs it on every request.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "guest.h"

/* A request to change: what it is, and where its relocated code starts. */
struct tamper {
	struct gilk_splice req;
	size_t reloc;
	const struct splice_plan *p;
	struct live *lv;
};

/* Builds p's request, lets change() alter it, sends it; returns 0 or errno
 * (a splice made is removed, a reservation not used is given back). */
static int send_changed(struct live *lv, const struct splice_plan *p,
			void (*change)(struct tamper *t), struct tamper *t)
{
	struct gerr e;
	int err;

	memset(t, 0, sizeof(*t));
	t->p = p;
	t->lv = lv;
	if (live_request(lv, p, "count", "", &t->req, &t->reloc, &e)) {
		snprintf(t->req.reason, sizeof(t->req.reason), "request not built: %.100s", e.msg);
		return -1;
	}
	if (change)
		change(t);
	if (ioctl(lv->fd, GILK_IOC_SPLICE, &t->req) == 0) {
		live_unsplice(lv, t->req.id, &e);
		return 0;
	}
	err = errno;
	ioctl(lv->fd, GILK_IOC_RELEASE, &t->req.id);
	return err;
}

static void expect(struct live *lv, const struct splice_plan *p, const char *what,
		   void (*change)(struct tamper *t), int want, const char *words)
{
	static struct tamper t;
	int err = send_changed(lv, p, change, &t);

	check(err == want && (!words || strstr(t.req.reason, words)),
	      "%s: %s (%s)", what, err > 0 ? strerror(err) : err ? "error" : "accepted",
	      t.req.reason);
}

static void flip_relocated(struct tamper *t)
{
	t->req.tramp[t->reloc] ^= 0x01;
}

static void flip_header(struct tamper *t)
{
	t->req.tramp[t->reloc - 1] ^= 0x08;	/* count's last header byte */
}

static void add_trailing(struct tamper *t)
{
	t->req.tramp[t->req.tramp_len++] = 0x90;
}

static void divert_elsewhere(struct tamper *t)
{
	t->req.patch[t->req.npatch - 1].divert += 1;
}

static void site_call(struct tamper *t)
{
	t->req.patch[t->req.npatch - 1].bytes[0] = 0xe8;	/* call, not jmp */
}

/* Code of the caller's choosing: `xor eax, eax; ret` for the relocation. */
static void own_code(struct tamper *t)
{
	memset(t->req.tramp + t->reloc, 0x90, t->req.tramp_len - t->reloc);
	memcpy(t->req.tramp + t->reloc, "\x31\xc0\xc3", 3);
}

static void tramp_past_array(struct tamper *t)
{
	t->req.tramp_len = 2048;
}

static void evict_past_array(struct tamper *t)
{
	t->req.evict_len = GILK_TRAMP_MAX + 1;
}

static void flip_evicted(struct tamper *t)
{
	t->req.evict[0] ^= 0x01;
}

/* The bounce slot moved over the live code right after the region. */
static void slot_over_code(struct tamper *t)
{
	struct gilk_patch *slot = &t->req.patch[0], *site = &t->req.patch[1];
	uint64_t s = t->p->region.addr + t->p->region.len;
	int32_t rel = (int32_t)(site->divert - (s + 5));
	struct gerr e;

	slot->addr = s;
	live_read_mem(t->lv, s, slot->orig, 5, &e);
	memcpy(slot->bytes + 1, &rel, 4);
	site->bytes[1] = (uint8_t)(s - (t->p->region.addr + 2));
}

/* The first plan of mode and bounce kind over the blocks of fns. */
static int find_plan(struct live *lv, const char *const *fns, enum bounce_kind kind,
		     struct splice_plan *out)
{
	static struct cfg g;
	struct gerr e;

	for (; *fns; fns++) {
		uint64_t f = sym(lv, *fns);

		/* a module's function (the target's): its text read first */
		if (!f || live_load_text(lv, f, &e) || kernel_cfg(&lv->k, f, &g, &e))
			continue;
		for (size_t b = 0; b < g.nblocks; b++)
			if (live_plan(lv, live_block_site(lv, g.blocks[b].start), 0, out, &e) == 0 &&
			    out->mode == SPLICE_BOUNCE && out->bounce_kind == kind)
				return 0;
	}
	return -1;
}

void test_verifier(struct live *lv)
{
	static const char *const fns[] = {
		"path_init", "link_path_walk", "walk_component", "do_sys_openat2",
		"do_filp_open", "tcp_v4_rcv", "ip_rcv", "__do_sys_newuname",
		"gilk_target_pad", NULL,
	};
	struct splice_plan jmp, pad, ev;
	struct gerr e;

	if (live_plan(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, &jmp, &e)) {
		check(0, "plan at __x64_sys_getppid: %s", e.msg);
		return;
	}
	expect(lv, &jmp, "checker: a real jmp plan passes", NULL, 0, NULL);
	expect(lv, &jmp, "checker: one byte of the relocated code changed", flip_relocated,
	       EBADMSG, "unverified code at trampoline+");
	expect(lv, &jmp, "checker: the trampoline header changed", flip_header, EBADMSG,
	       "not gilk's trampoline header");
	expect(lv, &jmp, "checker: bytes after the relocated code", add_trailing, EBADMSG,
	       "bytes after the end of the relocated code");
	expect(lv, &jmp, "checker: an int3 divert off the trampoline's start", divert_elsewhere,
	       EBADMSG, "divert must go to the trampoline");
	expect(lv, &jmp, "checker: a call written at the site instead of the jmp", site_call,
	       EBADMSG, "unverified code at patch0+0");
	expect(lv, &jmp, "checker: code of the caller's choosing in the trampoline", own_code,
	       EBADMSG, "unverified code at trampoline+");
	/* Defect: lengths up to 2048 were taken while the arrays hold 512, so
	 * heap memory past the request went into a trampoline. */
	expect(lv, &jmp, "defect 1: a tramp_len past the request's array (2048)", tramp_past_array,
	       EINVAL, "malformed");
	expect(lv, &jmp, "defect 1: an evict_len past the request's array", evict_past_array,
	       EINVAL, "malformed");

	if (find_plan(lv, fns, BOUNCE_PADDING, &pad) == 0) {
		expect(lv, &pad, "checker: a real bounce through padding passes", NULL, 0, NULL);
		expect(lv, &pad, "checker: the bounce slot moved over live code", slot_over_code,
		       EBADMSG, "not dead padding");
	} else {
		check(0, "found a bounce through padding among the test functions");
	}
	if (find_plan(lv, fns, BOUNCE_EVICT, &ev) == 0) {
		expect(lv, &ev, "checker: a real eviction bounce passes", NULL, 0, NULL);
		expect(lv, &ev, "checker: one byte of the evicted neighbour's trampoline changed",
		       flip_evicted, EBADMSG, "unverified code at evicted+0");
	} else {
		check(0, "found an eviction bounce among the test functions");
	}
}
