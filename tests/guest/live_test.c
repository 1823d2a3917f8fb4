/*
 * Guest tests of live splicing: run in the reference kernel with gilk.ko
 * loaded (tests/guest/run.sh). Each subcommand prints PASS/FAIL lines.
 *   basic      entry (past ftrace), mid-function, trap mode: exact hit counts,
 *              bytes restored on unsplice, counting stops
 *   blocks     every block of a 50+ block function, and bounced blocks
 *   facts      instrument list, kernel facts, the recursion guard
 *   module     a splice in module text (argfilter.ko), which stays pinned
 *   refusals   each refusal provoked for real, with its errno and reason
 *   verifier   gilk.ko's code checker: real plans pass, tampered ones and
 *              regions over another symbol's jump into them (assembly,
 *              .cold parts) are refused (verify_test.c)
 *   defects    each defect found by review, provoked (defects_test.c)
 *   blacklist-race [N]  FACTS while the target module comes and goes N times
 *   trap-hold  a trap-mode splice left in place (defects_test.c says where)
 *   templates  count inline (flags saved where live), full on request, tsc
 *              through the scratch template (templates_test.c)
 *   badreq N   N requests with one field changed, racing (badreq_test.c)
 *   filters    filters by task, CPU, context and registers, counted exactly;
 *              malformed programs refused; hot code filtered under load
 *              (filters_test.c)
 *   agg        aggregations: the maps' layout as read, malformed ones refused
 *              (agg_test.c)
 *   events     tsc/regs/argfilter events; lost events counted when full
 *   stress     splice/unsplice cycles on a hot path under load
 *   fuzz       random ioctls
 *   privs      EPERM without CAP_SYS_ADMIN; a dead process's reservations go
 *   splice-hold SITE-SYMBOL INSTRUMENT ARG  (leaves a splice in place)
 *   workload getppid|getpgrp|getrlimit|open N (calls for shell tests)
 *   sleep-migrate N MS  N sleeps of MS ms, each begun on CPU 0 and ended on
 *              CPU 1 (for latency)
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "live.h"

static void getppid_n(int n, pid_t want, int *bad)
{
	for (int i = 0; i < n; i++)
		if (syscall(SYS_getppid) != want)
			(*bad)++;
}

/* The ftrace call site of the function at f: its entry, or past its endbr64
 * (or the nop a sealed one becomes) where the kernel has IBT (6.12). */
static uint64_t ftrace_site_of(struct live *lv, uint64_t f)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t sealed[] = { 0x66, 0x0f, 0x1f, 0x00 };
	uint8_t b[4];
	struct gerr e;

	if (live_read_mem(lv, f, b, sizeof(b), &e))
		return f;
	return !memcmp(b, endbr64, 4) || !memcmp(b, sealed, 4) ? f + 4 : f;
}

/* One page of GILK_IOC_BRIEFS from an id, max of them; the ioctl's status. */
static int briefs(struct live *lv, uint32_t from, uint32_t max, struct gilk_brief *out,
		  struct gilk_briefs *b)
{
	*b = (struct gilk_briefs){ .from = from, .max = max, .buf = (uintptr_t)out };
	return ioctl(lv->fd, GILK_IOC_BRIEFS, b);
}

/*
 * Splices in brief, a page at a time in id order: three count splices read
 * two and then one, each with its site, hits and instrument, the next id
 * to ask from said; a request wrong in one field is refused (EINVAL).
 */
static void test_briefs(struct live *lv)
{
	static const char *const fns[] = { "__x64_sys_getppid", "__x64_sys_getpid",
					   "__x64_sys_getuid" };
	struct gilk_brief out[4];
	struct gilk_briefs b, b2;
	struct splice_plan p[3];
	uint64_t sites[3];
	uint32_t ids[3];
	struct gerr e;
	int rc, rc2, bad = 0;

	for (int i = 0; i < 3; i++) {
		sites[i] = live_block_site(lv, sym(lv, fns[i]));
		if (splice_at(lv, sites[i], 0, "count", "brief", &ids[i], &p[i])) {
			check(0, "briefs: splice %s", fns[i]);
			while (i-- > 0)
				live_unsplice(lv, ids[i], &e);
			return;
		}
	}
	getppid_n(7, getppid(), &bad);
	rc = briefs(lv, ids[0], 2, out, &b);
	check(rc == 0 && b.count == 2 && b.next == ids[2] && out[0].id == ids[0] &&
	      out[0].site == sites[0] && out[0].hits >= 7 && !strcmp(out[0].instrument, "count") &&
	      !strcmp(out[0].arg, "brief") && out[1].id == ids[1] && out[1].site == sites[1],
	      "BRIEFS from splice %u, 2 at most: %u listed (ids %u, %u; %llu hits of getppid), "
	      "next %u", ids[0], b.count, out[0].id, out[1].id, (unsigned long long)out[0].hits,
	      b.next);
	rc = briefs(lv, b.next, 4, out, &b2);
	check(rc == 0 && b2.count == 1 && b2.next == 0 && out[0].id == ids[2] &&
	      out[0].site == sites[2],
	      "BRIEFS from the next id: the last one (%u), and no next (%u)", out[0].id, b2.next);
	b = (struct gilk_briefs){ .max = 0, .buf = (uintptr_t)out };
	rc = ioctl(lv->fd, GILK_IOC_BRIEFS, &b) < 0 ? errno : 0;
	b2 = (struct gilk_briefs){ .max = GILK_BRIEFS_MAX + 1, .buf = (uintptr_t)out };
	rc2 = ioctl(lv->fd, GILK_IOC_BRIEFS, &b2) < 0 ? errno : 0;
	check(rc == EINVAL && rc2 == EINVAL,
	      "BRIEFS with no room, or more than GILK_BRIEFS_MAX: EINVAL (%s, %s)", strerror(rc),
	      strerror(rc2));
	b = (struct gilk_briefs){ .max = 2, .next = 5, .buf = (uintptr_t)out };
	rc = ioctl(lv->fd, GILK_IOC_BRIEFS, &b) < 0 ? errno : 0;
	b2 = (struct gilk_briefs){ .max = 2, .buf = 8 };
	rc2 = ioctl(lv->fd, GILK_IOC_BRIEFS, &b2) < 0 ? errno : 0;
	check(rc == EINVAL && rc2 == EFAULT,
	      "BRIEFS with an out field set: EINVAL; with a buffer nothing maps: EFAULT (%s, %s)",
	      strerror(rc), strerror(rc2));
	for (int i = 0; i < 3; i++)
		live_unsplice(lv, ids[i], &e);
}

/* One page of GILK_IOC_LIST from an id, max of them; the ioctl's status. */
static int list_page(struct live *lv, uint32_t from, uint32_t max,
		     struct gilk_splice_info *out, struct gilk_list *l)
{
	*l = (struct gilk_list){ .from = from, .max = max, .buf = (uintptr_t)out };
	return ioctl(lv->fd, GILK_IOC_LIST, l);
}

/*
 * Splices in full, a page at a time in id order, as briefs are listed: two
 * and then one of three, the next id said, each record whole; a request
 * wrong in one field is refused; live_each_splice() reads them all however
 * small the pages.
 */
static void test_list_pages(struct live *lv)
{
	static const char *const fns[] = { "__x64_sys_getppid", "__x64_sys_getpid",
					   "__x64_sys_getuid" };
	struct gilk_splice_info out[3], one;
	struct gilk_list l, l2;
	struct splice_plan p[3];
	uint64_t sites[3];
	uint32_t ids[3];
	struct gerr e;
	int rc, rc2;

	for (int i = 0; i < 3; i++) {
		sites[i] = live_block_site(lv, sym(lv, fns[i]));
		if (splice_at(lv, sites[i], 0, "count", "page", &ids[i], &p[i])) {
			check(0, "list pages: splice %s", fns[i]);
			while (i-- > 0)
				live_unsplice(lv, ids[i], &e);
			return;
		}
	}
	rc = list_page(lv, ids[0], 2, out, &l);
	check(rc == 0 && l.count == 2 && l.next == ids[2] && out[0].id == ids[0] &&
	      out[0].site == sites[0] && out[0].region_len == p[0].region.len &&
	      !memcmp(out[0].region_orig, p[0].region.orig, p[0].region.len) &&
	      !strcmp(out[0].instrument, "count") && !strcmp(out[0].arg, "page") &&
	      out[1].id == ids[1] && out[1].site == sites[1],
	      "LIST from splice %u, 2 at most: %u listed (ids %u, %u), each whole, next %u",
	      ids[0], l.count, out[0].id, out[1].id, l.next);
	rc = list_page(lv, l.next, 3, out, &l2);
	check(rc == 0 && l2.count == 1 && l2.next == 0 && out[0].id == ids[2] &&
	      out[0].site == sites[2],
	      "LIST from the next id: the last one (%u), and no next (%u)", out[0].id, l2.next);
	check(live_info(lv, ids[1], &one, &e) == 0 && one.id == ids[1] && one.site == sites[1] &&
	      live_info(lv, ids[2] + 1000, &one, &e) == -1 && e.code == ENOENT,
	      "live_info() reads one splice by a page of one from its id, and no other (%s)",
	      e.msg);
	l = (struct gilk_list){ .max = 0, .buf = (uintptr_t)out };
	rc = ioctl(lv->fd, GILK_IOC_LIST, &l) < 0 ? errno : 0;
	l2 = (struct gilk_list){ .max = GILK_LIST_MAX + 1, .buf = (uintptr_t)out };
	rc2 = ioctl(lv->fd, GILK_IOC_LIST, &l2) < 0 ? errno : 0;
	check(rc == EINVAL && rc2 == EINVAL,
	      "LIST with no room, or more than GILK_LIST_MAX: EINVAL (%s, %s)", strerror(rc),
	      strerror(rc2));
	l = (struct gilk_list){ .max = 2, .count = 1, .buf = (uintptr_t)out };
	rc = ioctl(lv->fd, GILK_IOC_LIST, &l) < 0 ? errno : 0;
	l2 = (struct gilk_list){ .max = 2, .buf = 8 };
	rc2 = ioctl(lv->fd, GILK_IOC_LIST, &l2) < 0 ? errno : 0;
	check(rc == EINVAL && rc2 == EFAULT,
	      "LIST with an out field set: EINVAL; with a buffer nothing maps: EFAULT (%s, %s)",
	      strerror(rc), strerror(rc2));
	for (int i = 0; i < 3; i++)
		live_unsplice(lv, ids[i], &e);
}

static void test_basic(struct live *lv)
{
	uint64_t f = sym(lv, "__x64_sys_getppid"), site;
	struct splice_plan p, mid, trap;
	uint32_t id, id2, id3;
	pid_t parent = getppid();
	int bad = 0;
	const int n = 10000;

	site = live_block_site(lv, f);
	check(site == ftrace_site_of(lv, f) + 5, "entry splice point is past the ftrace nop (fn+%" PRIu64 ")",
	      site - f);
	if (splice_at(lv, site, 0, "count", "", &id, &p)) {
		check(0, "splice at __x64_sys_getppid entry");
		return;
	}
	getppid_n(n, parent, &bad);
	check(hits(lv, id) == (uint64_t)n, "entry (%s): %d getppid calls, %" PRIu64 " hits",
	      splice_mode_name(p.mode), n, hits(lv, id));
	/* The instruction after the entry splice's region: mid-block. */
	if (splice_at(lv, site + p.region.len, 0, "count", "", &id2, &mid) == 0) {
		getppid_n(n, parent, &bad);
		check(hits(lv, id2) == (uint64_t)n && hits(lv, id) == 2ull * n,
		      "mid-function splice at +%" PRIu64 " counts %d (entry now %" PRIu64 ")",
		      mid.region.addr - f, n, hits(lv, id));
		check(live_unsplice(lv, id2, &(struct gerr){ 0 }) == 0 && restored(lv, &mid),
		      "mid-function splice removed, bytes restored");
	} else {
		check(0, "mid-function splice");
	}
	check(live_unsplice(lv, id, &(struct gerr){ 0 }) == 0 && restored(lv, &p),
	      "entry splice removed, bytes restored");
	getppid_n(n, parent, &bad);
	check(hits(lv, id) == UINT64_MAX, "a removed splice no longer counts (not listed)");
	/* Trap mode: the int3 stays and diverts every hit. The planner only
	 * chooses it where no jump fits; here a 5-byte jmp fits, so the plan
	 * is cut down to its first instruction, as a trap plan is. */
	trap = p;
	trap.mode = SPLICE_TRAP;
	trap.bounce_kind = BOUNCE_NONE;
	trap.region.len = trap.region.live = trap.region.insns[0].len;
	trap.region.ninsn = 1;
	{
		struct gilk_splice_info in;
		struct gerr e;
		uint8_t b = 0;

		if (live_splice(lv, &trap, "count", "", &id3, &e) == 0) {
			getppid_n(n, parent, &bad);
			live_info(lv, id3, &in, &e);
			live_read_mem(lv, site, &b, 1, &e);
			check(in.hits == (uint64_t)n && (in.flags & GILK_SPLICE_TRAP) && b == 0xcc,
			      "trap mode: int3 stays at the site, %" PRIu64 " hits for %d calls, listed as trap",
			      (uint64_t)in.hits, n);
			check(live_unsplice(lv, id3, &e) == 0 && restored(lv, &trap),
			      "trap splice removed, bytes restored");
		} else {
			check(0, "trap splice: %s", e.msg);
		}
	}
	check(bad == 0, "getppid returned the right parent on every call while spliced");
}

#define MAXB 512

/* Splices every block of fn it can, in one batch; ids in id[]. */
static size_t splice_blocks(struct live *lv, const char *fn, uint32_t *id,
			    struct splice_plan *plans, size_t *bounced)
{
	size_t nblocks, n = plan_blocks(lv, fn, plans, MAXB, &nblocks);
	struct gerr e;

	for (size_t i = 0; i < n; i++)
		*bounced += plans[i].mode == SPLICE_BOUNCE;
	if (n && live_splice_batch(lv, plans, n, "count", "", id, &e)) {
		printf("  batch: %s\n", e.msg);
		return 0;
	}
	printf("  %s: %zu blocks, %zu spliced in one batch (%zu bounced)\n", fn, nblocks, n, *bounced);
	return n;
}

static void test_blocks(struct live *lv)
{
	static const char *const fns[] = { "path_init", "link_path_walk.part.0.constprop.0",
					   "complete_walk", "lookup_fast" };
	static uint32_t id[4][MAXB];
	static struct splice_plan plans[4][MAXB];
	static uint64_t h0[4][MAXB], h1[4][MAXB];
	size_t n[4], bounced[4] = { 0 };
	const int N = 500;
	size_t nonlinear = 0, ran_bounce = 0, ran_evict = 0, ran_pad = 0;

	open_n(50); /* warm the caches: later iterations all behave alike */
	for (int f = 0; f < 4; f++)
		n[f] = splice_blocks(lv, fns[f], id[f], plans[f], &bounced[f]);
	check(n[0] >= 50, "every spliceable block of path_init spliced at once (%zu)", n[0]);
	for (int f = 0; f < 4; f++)
		for (size_t i = 0; i < n[f]; i++)
			h0[f][i] = hits(lv, id[f][i]);
	open_n(N);
	for (int f = 0; f < 4; f++)
		for (size_t i = 0; i < n[f]; i++)
			h1[f][i] = hits(lv, id[f][i]) - h0[f][i];
	open_n(2 * N);
	for (int f = 0; f < 4; f++)
		for (size_t i = 0; i < n[f]; i++) {
			uint64_t h2 = hits(lv, id[f][i]) - h0[f][i];

			if (h2 - h1[f][i] != 2 * h1[f][i]) {
				if (nonlinear++ < 5)
					printf("  %s block %zu: %" PRIu64 " after N, %" PRIu64 " after 3N\n",
					       fns[f], i, h1[f][i], h2);
			}
			if (plans[f][i].mode == SPLICE_BOUNCE && h1[f][i]) {
				ran_bounce++;
				if (plans[f][i].bounce_kind == BOUNCE_EVICT)
					ran_evict++;
				else
					ran_pad++;
			}
		}
	check(nonlinear == 0, "every block's count over 3N opens is exactly 3x its count over N");
	check(h1[0][0] > 0 && h1[0][0] % N == 0, "path_init entry block: %" PRIu64 " hits for %d opens",
	      h1[0][0], N);
	check(ran_bounce > 0, "bounced blocks ran and counted exactly (%zu: %zu via padding, %zu via eviction)",
	      ran_bounce, ran_pad, ran_evict);
	{
		size_t bad = 0;
		struct gerr e;

		for (int f = 0; f < 4; f++) {
			if (n[f] && live_unsplice_batch(lv, id[f], n[f], &e))
				bad++;
			for (size_t i = 0; i < n[f]; i++)
				bad += !restored(lv, &plans[f][i]);
		}
		check(bad == 0, "all block splices removed in one batch per function, bytes restored");
	}
	{
		/* All or nothing: the same plan twice overlaps itself. */
		struct splice_plan twice[2];
		uint32_t ids[2];
		struct gilk_splice_info *act;
		size_t nact = 1;
		struct gerr e;

		live_plan(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, &twice[0], &e);
		twice[1] = twice[0];
		check(live_splice_batch(lv, twice, 2, "count", "", ids, &e) && errno == EADDRNOTAVAIL &&
		      strstr(e.msg, "splice ") && strstr(e.msg, " owns bytes at ") &&
		      strstr(e.msg, "sys_getppid+0x"),
		      "a batch with overlapping members is refused whole, naming the splice that "
		      "owns the bytes: %s", e.msg);
		live_list(lv, &act, &nact, &e);
		free(act);
		check(nact == 0 && gilk_holds(lv) == 0,
		      "nothing of the refused batch stays spliced or reserved");
	}
}

static void test_refusals(struct live *lv)
{
	uint64_t f = sym(lv, "__x64_sys_getppid");
	/* the first instruction after the ftrace nop */
	uint64_t past = ftrace_site_of(lv, f) + 5;
	const struct res_range *jl = NULL;
	struct splice_plan p;
	struct gerr e;
	uint8_t live5[5], wrong[5];
	char reason[512];
	int err;

	/* a jump label site: the first one in .text */
	for (uint64_t a = lv->k.text_start; a < lv->k.text_end && !jl; a += 4096) {
		const struct res_range *r = textfacts_reserved(lv->k.facts, a, a + 4096, RES_NKINDS);

		if (r && r->kind == RES_JUMP_LABEL)
			jl = r;
	}
	if (jl) {
		/* planning learns facts, and may move the one jl points at */
		uint64_t at = jl->start;

		check(live_plan(lv, at, 0, &p, &e) && p.reason == SR_JUMP_LABEL,
		      "planner refuses a jump label site: %s", e.msg);
		expect_refusal(lv, "jump label site", at, EBUSY, "jump label");
	} else {
		check(0, "found a jump label site");
	}
	check(live_plan(lv, ftrace_site_of(lv, f), 0, &p, &e) && p.reason == SR_FTRACE,
	      "planner refuses the ftrace nop: %s", e.msg);
	expect_refusal(lv, "ftrace site", ftrace_site_of(lv, f), EALREADY, "ftrace");
	if (ftrace_site_of(lv, f) != f)
		check(live_plan(lv, f, 0, &p, &e) && p.reason == SR_ENDBR,
		      "planner refuses the endbr64 at a function's entry: %s", e.msg);
	expect_refusal(lv, "kprobe-blacklisted function (notify_die)",
		       live_block_site(lv, sym(lv, "notify_die")), EACCES, "blacklisted");
	expect_refusal(lv, "non-text address (jiffies)", sym(lv, "jiffies"), EFAULT, "not kernel or module text");
	expect_refusal(lv, "a static call trampoline", sym(lv, "__static_call_text_start"), EADDRINUSE,
		       "static call trampoline");
	check(live_plan(lv, sym(lv, "__static_call_text_start"), 0, &p, &e) && p.reason == SR_STATIC_CALL,
	      "planner refuses a static call trampoline: %s", e.msg);
	live_read_mem(lv, past, live5, 5, &e);
	memcpy(wrong, live5, 5);
	wrong[2] ^= 0xff;
	force_splice(lv, past, wrong, BUG_NONE, &err, reason, sizeof(reason));
	check(err == EILSEQ && strstr(reason, "not the ones the plan was made from"),
	      "mismatched expected bytes refused: %s (%s)", strerror(err), reason);
	{
		static struct cfg g;
		uint64_t mid = 0;

		if (kernel_cfg(&lv->k, f, &g, &e) == 0)
			for (size_t i = 1; i < g.ninsn && !mid; i++)
				if (g.insns[i].len >= 3)
					mid = g.insns[i].addr + 1;
		check(mid && live_plan(lv, mid, 0, &p, &e) && p.reason == SR_NOT_BOUNDARY,
		      "an address mid-instruction is refused: %s", e.msg);
	}
	{
		uint32_t id;

		live_plan(lv, past, 0, &p, &e);
		check(live_splice(lv, &p, "no-such-instrument", "", &id, &e) && errno == ENOENT &&
		      strstr(e.msg, "no instrument"), "an unknown instrument is refused: %s", e.msg);
	}
	{
		/* gilk.ko's own entry function: a hit there would recurse */
		const struct ksym *own[4];
		size_t k = symtab_by_name(lv->k.syms, "gilk_entry", own, 4);

		if (k == 1 && own[0]->module && !strcmp(own[0]->module, "gilk"))
			expect_refusal(lv, "gilk.ko's own code (gilk_entry)", own[0]->addr, ELOOP,
				       "own code");
		else
			check(0, "gilk_entry found in /proc/kallsyms [gilk]");
	}
	check(live_unsplice(lv, 999, &e) && strstr(e.msg, "no such splice"),
	      "unsplicing an unknown id is refused: %s", e.msg);
	{
		/* A WARN() site: planned with its replay; forced without it,
		 * refused. The replay flag on a site that is no bug site,
		 * refused too. */
		uint64_t fs, fe, warn = 0;

		symtab_function(lv->k.syms, sym(lv, "do_exit"), NULL, &fs, &fe);
		for (uint64_t a = fs; a < fe && !warn; a++)
			if (textfacts_bug(lv->k.facts, a) == BUG_WARN)
				warn = a;
		check(warn && live_plan(lv, warn, 0, &p, &e) == 0 && p.bug == BUG_WARN,
		      "planner takes a WARN() site in do_exit, replayed: %s",
		      warn ? "" : "none found");
		if (warn)
			expect_refusal(lv, "a WARN() site without its replay", warn, EPROTO,
				       "BUG/WARN site");
		live_read_mem(lv, past, live5, 5, &e);
		force_splice(lv, past, live5, BUG_WARN, &err, reason, sizeof(reason));
		check(err == EINVAL && strstr(reason, "not a BUG/WARN ud2"),
		      "the replay flag where there is no ud2 refused: %s (%s)", strerror(err), reason);
	}
}

static void test_facts(struct live *lv)
{
	struct gilk_instrument_info *ins;
	struct gilk_fact f[256];
	size_t n, found = 0;
	struct gerr e;

	if (live_instruments(lv, &ins, &n, &e) == 0) {
		for (size_t i = 0; i < n; i++) {
			const char *want = !strcmp(ins[i].name, "argfilter") ? "argfilter" : "gilk";

			if ((!strcmp(ins[i].name, "count") || !strcmp(ins[i].name, "tsc") ||
			     !strcmp(ins[i].name, "regs") || !strcmp(ins[i].name, "argfilter")) &&
			    !strcmp(ins[i].module, want) && ins[i].help[0])
				found++;
		}
		free(ins);
	}
	check(found == 4, "instruments listed with module and help: count, tsc, regs (gilk), argfilter (argfilter)");

	/* FACTS for strncpy_from_user: user accesses with exception fixups
	 * whose landings are in the function, agreeing with the tables. */
	{
		uint64_t fs, fe;
		struct gilk_facts q = { .max = 256, .buf = (uintptr_t)f };
		size_t ex = 0, tgt = 0, agree = 0;
		const uint64_t *snap;
		size_t nsnap;

		symtab_function(lv->k.syms, sym(lv, "strncpy_from_user"), NULL, &fs, &fe);
		q.start = fs;
		q.end = fe;
		ioctl(lv->fd, GILK_IOC_FACTS, &q);
		nsnap = textfacts_targets(lv->k.facts, fs, fe, &snap);
		for (uint32_t i = 0; i < q.count && i < 256; i++) {
			if (f[i].kind == GILK_RES_EXTABLE)
				ex++;
			if (f[i].kind == GILK_FACT_TARGET) {
				tgt++;
				for (size_t k = 0; k < nsnap; k++)
					agree += snap[k] == f[i].start;
			}
		}
		check(q.text == GILK_TEXT_KERNEL && ex > 0 && tgt > 0 && agree == tgt,
		      "FACTS on strncpy_from_user: kernel text, %zu extable ranges, %zu fixup targets, all in the live tables",
		      ex, tgt);
	}
	{
		struct gilk_facts q = { .start = sym(lv, "jiffies"), .max = 256,
					.buf = (uintptr_t)f };

		q.end = q.start + 64;
		check(ioctl(lv->fd, GILK_IOC_FACTS, &q) == 0 && q.text == GILK_TEXT_NONE && q.count == 0,
		      "FACTS on data (jiffies): not text, nothing reserved");
	}
	/* The recursion guard: the regs instrument calls into the ring
	 * buffer; a splice there is hit inside an instrument. */
	{
		struct splice_plan pr, pp;
		uint32_t rid, pid;
		struct rlimit rl;
		struct gilk_splice_info in;
		static uint8_t buf[1 << 16];

		int ok;

		/* count with the full template: it goes through gilk_entry
		 * and its guard (inline, it would count and never miss) */
		lv->full_template = true;
		ok = splice_at(lv, live_block_site(lv, sym(lv, "ring_buffer_lock_reserve")), 0,
			       "count", "", &rid, &pr) == 0;
		lv->full_template = false;
		if (ok) {
			if (splice_at(lv, live_block_site(lv, sym(lv, "do_prlimit")), 0, "regs", "",
				      &pid, &pp) == 0) {
				for (int i = 0; i < 100; i++)
					getrlimit(RLIMIT_STACK, &rl);
				live_unsplice(lv, pid, &e);
			}
			live_info(lv, rid, &in, &e);
			check(in.hits >= 100 && in.missed == 100,
			      "recursion guard: a splice hit inside an instrument counts (%" PRIu64 " hits) but does not run it (%" PRIu64 " missed)",
			      (uint64_t)in.hits, (uint64_t)in.missed);
			live_unsplice(lv, rid, &e);
			while (live_read_events(lv, buf, sizeof(buf), &e) > 0)
				;
		} else {
			check(0, "splice ring_buffer_lock_reserve");
		}
	}
}

struct regs_event {
	struct gilk_event h;
	uint64_t args[6];
};

static void test_events(struct live *lv)
{
	uint64_t f = sym(lv, "do_prlimit");
	static uint8_t buf[1 << 20];
	struct splice_plan p;
	struct rlimit rl;
	uint32_t id;
	struct gerr e;
	size_t off, n7 = 0, n3 = 0, other = 0;
	ssize_t got;

	/* argfilter: arguments through regs_get_kernel_argument() */
	while (live_read_events(lv, buf, sizeof(buf), &e) > 0)
		;
	if (splice_at(lv, live_block_site(lv, f), 0, "argfilter", "1=7", &id, &p)) {
		check(0, "splice do_prlimit with argfilter");
		return;
	}
	for (int i = 0; i < 300; i++)
		getrlimit(RLIMIT_NOFILE, &rl); /* resource 7 */
	for (int i = 0; i < 200; i++)
		getrlimit(RLIMIT_STACK, &rl); /* resource 3 */
	got = live_read_events(lv, buf, sizeof(buf), &e);
	for (off = 0; got > 0 && off + sizeof(struct gilk_event) <= (size_t)got;) {
		const struct gilk_event *h = (const void *)(buf + off);

		if (h->splice == id && h->len == 48 && ((const uint64_t *)(h + 1))[1] == 7)
			n7++;
		else if (h->splice == id)
			other++;
		off += sizeof(*h) + h->len;
	}
	check(n7 == 300 && other == 0 && hits(lv, id) == 500,
	      "argfilter (instruments/argfilter.ko) saw argument 1 == 7 exactly 300 times of %" PRIu64 " hits",
	      hits(lv, id));
	check(system("rmmod argfilter 2>/dev/null") != 0,
	      "an instrument module in use cannot be unloaded");
	live_unsplice(lv, id, &e);
	check(system("rmmod argfilter") == 0, "after unsplice the instrument module unloads");

	/* regs: every hit an event; resource visible as argument 1 (rsi) */
	if (splice_at(lv, live_block_site(lv, f), 0, "regs", "", &id, &p) == 0) {
		for (int i = 0; i < 400; i++)
			getrlimit(RLIMIT_STACK, &rl);
		got = live_read_events(lv, buf, sizeof(buf), &e);
		n3 = 0;
		for (off = 0; got > 0 && off < (size_t)got;) {
			const struct gilk_event *h = (const void *)(buf + off);
			const uint64_t *r = (const void *)(h + 1);

			/* rax rbx rcx rdx rsi rdi ...; rip at 16 */
			if (h->splice == id && h->len == 144 && r[4] == 3 && r[16] == p.region.addr)
				n3++;
			off += sizeof(*h) + h->len;
		}
		check(n3 == 400, "regs events: %zu of 400 with rsi == RLIMIT_STACK and rip == the site", n3);
		live_unsplice(lv, id, &e);
	}
	/* tsc, and lost events: fill the buffer without reading it */
	if (splice_at(lv, live_block_site(lv, f), 0, "regs", "", &id, &p) == 0) {
		struct gilk_splice_info in;
		size_t events = 0;
		const int many = 40000;

		for (int i = 0; i < many; i++)
			getrlimit(RLIMIT_STACK, &rl);
		while ((got = live_read_events(lv, buf, sizeof(buf), &e)) > 0)
			for (off = 0; off < (size_t)got;) {
				const struct gilk_event *h = (const void *)(buf + off);

				events += h->splice == id;
				off += sizeof(*h) + h->len;
			}
		live_info(lv, id, &in, &e);
		check(in.lost > 0 && events + in.lost == (uint64_t)many && in.hits == (uint64_t)many,
		      "a full buffer loses events, counted: %zu read + %" PRIu64 " lost = %d hits",
		      events, (uint64_t)in.lost, many);
		live_unsplice(lv, id, &e);
	}
	if (splice_at(lv, live_block_site(lv, f), 0, "tsc", "", &id, &p) == 0) {
		uint64_t last = 0;
		size_t ok = 0, cnt = 0;

		for (int i = 0; i < 100; i++)
			getrlimit(RLIMIT_STACK, &rl);
		got = live_read_events(lv, buf, sizeof(buf), &e);
		for (off = 0; got > 0 && off < (size_t)got;) {
			const struct gilk_event *h = (const void *)(buf + off);

			if (h->splice == id && h->len == 8) {
				uint64_t tsc = *(const uint64_t *)(h + 1);

				cnt++;
				ok += tsc > last && h->ns > 0;
				last = tsc;
			}
			off += sizeof(*h) + h->len;
		}
		check(cnt == 100 && ok == 100, "tsc events: %zu of 100, increasing", cnt);
		live_unsplice(lv, id, &e);
	}
}

static volatile sig_atomic_t stop;

static void on_term(int s)
{
	(void)s;
	stop = 1;
}

/* Syscalls whose entry points the stress test splices, and a workload that
 * checks each one's result. */
static const struct {
	const char *fn;
	long nr;
} hot[] = {
	{ "__x64_sys_getppid", SYS_getppid }, { "__x64_sys_getpid", SYS_getpid },
	{ "__x64_sys_getuid", SYS_getuid }, { "__x64_sys_geteuid", SYS_geteuid },
	{ "__x64_sys_getgid", SYS_getgid }, { "__x64_sys_getegid", SYS_getegid },
	{ "__x64_sys_gettid", SYS_gettid }, { "__x64_sys_getpgrp", SYS_getpgrp },
	{ "__x64_sys_getpgid", SYS_getpgid }, { "__x64_sys_getsid", SYS_getsid },
	{ "__x64_sys_sched_yield", SYS_sched_yield }, { "__x64_sys_getresuid", SYS_getresuid },
	{ "__x64_sys_getresgid", SYS_getresgid }, { "__x64_sys_getpriority", SYS_getpriority },
	{ "__x64_sys_getrlimit", SYS_getrlimit }, { "__x64_sys_times", SYS_times },
	{ "__x64_sys_newuname", SYS_uname }, { "__x64_sys_umask", SYS_umask },
	{ "__x64_sys_getcpu", SYS_getcpu }, { "__x64_sys_getcwd", SYS_getcwd },
};
#define NHOT (sizeof(hot) / sizeof(hot[0]))

static long call_hot(size_t i)
{
	static char buf[4096];
	struct rlimit rl;

	switch (hot[i].nr) {
	case SYS_getpgid: case SYS_getsid:
		return syscall(hot[i].nr, 0);
	case SYS_getresuid: case SYS_getresgid: {
		unsigned a, b, c;

		return syscall(hot[i].nr, &a, &b, &c) ?: (long)(a + b + c);
	}
	case SYS_getpriority:
		return syscall(hot[i].nr, PRIO_PROCESS, 0);
	case SYS_getrlimit:
		return syscall(hot[i].nr, RLIMIT_STACK, &rl) ?: (long)rl.rlim_cur;
	case SYS_times:
		return syscall(hot[i].nr, NULL) > 0;
	case SYS_uname:
		return syscall(hot[i].nr, buf) ?: buf[0];
	case SYS_umask:
		return syscall(hot[i].nr, 022);
	case SYS_getcpu:
		return syscall(hot[i].nr, NULL, NULL, NULL);
	case SYS_getcwd:
		return syscall(hot[i].nr, buf, sizeof(buf));
	default:
		return syscall(hot[i].nr);
	}
}

static void test_stress(struct live *lv, int cycles)
{
	static struct splice_plan plans[NHOT];
	pid_t load[2], workers[NHOT];
	size_t nsites = 0;
	struct gerr e;
	int failures = 0, per;
	struct timespec t0, t1;

	umask(022);
	for (size_t i = 0; i < NHOT; i++) {
		uint64_t f = sym(lv, hot[i].fn);

		if (f && live_plan(lv, live_block_site(lv, f), 0, &plans[nsites], &e) == 0)
			nsites++;
	}
	if (nsites < 10) {
		check(0, "stress: only %zu hot sites could be planned", nsites);
		return;
	}
	per = (cycles + (int)nsites - 1) / (int)nsites;
	/* One workload process per vCPU calls every one of the syscalls and
	 * checks every result, all the while. */
	for (int k = 0; k < 2; k++) {
		load[k] = fork();
		if (load[k] == 0) {
			long wrong = 0, mine[NHOT];

			/* pid, tid, parent and session answers are this
			 * process's own */
			for (size_t i = 0; i < NHOT; i++)
				mine[i] = call_hot(i);
			signal(SIGTERM, on_term);
			while (!stop)
				for (size_t i = 0; i < NHOT; i++)
					if (hot[i].nr != SYS_getcpu && hot[i].nr != SYS_times &&
					    call_hot(i) != mine[i] && !wrong++)
						fprintf(stderr, "  %s returned %ld, not %ld\n",
							hot[i].fn, call_hot(i), mine[i]);
			_exit(wrong ? 1 : 0);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* One splicer per site: grace periods are shared between them. */
	for (size_t s = 0; s < nsites; s++) {
		workers[s] = fork();
		if (workers[s] == 0) {
			int bad = 0;

			for (int c = 0; c < per; c++) {
				uint32_t id;
				struct gerr we;

				if (live_splice(lv, &plans[s], "count", "", &id, &we) ||
				    live_unsplice(lv, id, &we)) {
					if (!bad++)
						fprintf(stderr, "  %s\n", we.msg);
				}
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (size_t s = 0; s < nsites; s++) {
		int st;

		waitpid(workers[s], &st, 0);
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			printf("  splicer of %s failed\n", hot[s].fn);
			failures++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int k = 0; k < 2; k++) {
		int st;

		kill(load[k], SIGTERM);
		waitpid(load[k], &st, 0);
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			printf("  workload %d saw a wrong result\n", k);
			failures++;
		}
	}
	for (size_t s = 0; s < nsites; s++)
		if (!restored(lv, &plans[s])) {
			printf("  bytes at %s not restored\n", hot[s].fn);
			failures++;
		}
	check(failures == 0,
	      "stress: %d splice/unsplice cycles over %zu syscall entries while both vCPUs call them (%.1f s); every result unchanged, every byte restored",
	      per * (int)nsites, nsites,
	      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}

static void test_fuzz(struct live *lv, int calls)
{
	static uint8_t buf[8192];
	uint64_t rng = 0xf00d;
	static const unsigned long cmds[] = {
		GILK_IOC_VERSION, GILK_IOC_READ, GILK_IOC_RESERVE, GILK_IOC_SPLICE,
		GILK_IOC_UNSPLICE, GILK_IOC_LIST, GILK_IOC_INSTRUMENTS, GILK_IOC_FACTS,
		GILK_IOC_RELEASE, GILK_IOC_AGG_READ, GILK_IOC_BRIEFS,
	};
	const size_t ncmds = sizeof(cmds) / sizeof(cmds[0]);
	int ok = 0;

	for (int i = 0; i < calls; i++) {
		uint64_t r = rng_next(&rng);
		unsigned long cmd;
		void *arg;

		for (size_t k = 0; k < sizeof(buf); k += 8) {
			uint64_t v = rng_next(&rng);

			memcpy(buf + k, &v, 8);
		}
		switch (r % 4) {
		case 0: /* a real command with random contents */
			cmd = cmds[(r >> 8) % ncmds];
			break;
		case 1: /* a real number with a wrong size */
			cmd = (cmds[(r >> 8) % ncmds] & ~(0x3fffUL << 16)) | ((r >> 16) & 0x3fff) << 16;
			break;
		default: /* anything */
			cmd = (unsigned long)(r >> 20);
			break;
		}
		switch ((r >> 4) % 4) {
		case 0: arg = NULL; break;
		case 1: arg = (void *)(uintptr_t)rng_next(&rng); break;
		case 2: arg = (void *)0xffffffff81000000ull; break;
		default: arg = buf; break;
		}
		/* Keep the fuzzer from unsplicing anything real: none exists. */
		if (ioctl(lv->fd, cmd, arg) == 0)
			ok++;
	}
	/* Give back any reservations random RESERVE calls made. */
	{
		struct gilk_splice_info *all = NULL;
		struct gilk_version v;
		struct gerr e;
		size_t active = 1;
		int leaked = 0;

		release_all(lv);
		leaked = gilk_holds(lv) != 0;
		live_list(lv, &all, &active, &e);
		free(all);
		check(ioctl(lv->fd, GILK_IOC_VERSION, &v) == 0 && v.abi == GILK_ABI_VERSION &&
		      active == 0 && !leaked,
		      "fuzz: %d random ioctls (%d succeeded); gilk.ko still answers, no splice or reservation left",
		      calls, ok);
	}
}

/* A process that reserves and dies leaves nothing behind. */
static void test_orphans(struct live *lv)
{
	pid_t k = fork();
	int st;

	if (k == 0) {
		int fd = open("/dev/gilk", O_RDWR);

		for (int i = 0; i < 50; i++) {
			struct gilk_reserve x = { .tramp_size = 64 };

			if (ioctl(fd, GILK_IOC_RESERVE, &x))
				_exit(1);
		}
		_exit(0); /* no RELEASE: the file closes as the process dies */
	}
	int got;

	waitpid(k, &st, 0);
	got = gilk_holds(lv);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0 && got == 0,
	      "50 reservations of a process that died are gone (gilk.ko holds %d)", got);
}

/* Module text: argfilter's function runs inside gilk_entry for each hit of
 * a splice that uses argfilter, so a count splice on it (with the full
 * template, through gilk_entry's guard) is hit exactly as often, each time
 * nested (missed). Its module is pinned meanwhile. */
static void test_module_text(struct live *lv)
{
	const struct ksym *fn[2];
	struct splice_plan pm, pp;
	uint32_t mid, pid;
	struct gilk_splice_info in;
	struct rlimit rl;
	struct gerr e;

	if (symtab_by_name(lv->k.syms, "argfilter_fn", fn, 2) != 1 || !fn[0]->module) {
		check(0, "argfilter_fn found in /proc/kallsyms [argfilter]");
		return;
	}
	lv->full_template = true;
	if (splice_at(lv, live_block_site(lv, fn[0]->addr), 0, "count", "", &mid, &pm)) {
		lv->full_template = false;
		check(0, "splice module text (argfilter_fn)");
		return;
	}
	lv->full_template = false;
	check(pm.region.addr > fn[0]->addr, "module text: the splice point is past argfilter_fn's ftrace nop (+%" PRIu64 ")",
	      pm.region.addr - fn[0]->addr);
	if (splice_at(lv, live_block_site(lv, sym(lv, "do_prlimit")), 0, "argfilter", "1=99", &pid, &pp) == 0) {
		for (int i = 0; i < 250; i++)
			getrlimit(RLIMIT_STACK, &rl);
		live_unsplice(lv, pid, &e);
	}
	live_info(lv, mid, &in, &e);
	check(in.hits == 250 && in.missed == 250,
	      "module text: argfilter_fn spliced, %" PRIu64 " hits for 250 calls", (uint64_t)in.hits);
	check(system("rmmod argfilter 2>/dev/null") != 0,
	      "a module whose text is spliced cannot be unloaded");
	check(live_unsplice(lv, mid, &e) == 0 && restored(lv, &pm),
	      "module text splice removed, bytes restored");
}

static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1u << CAP_SYS_ADMIN);
	d[0].permitted &= ~(1u << CAP_SYS_ADMIN);
	return (int)syscall(SYS_capset, &h, d);
}

static void test_privs(struct live *lv)
{
	pid_t k = fork();
	int st;

	if (k == 0) {
		int fd, held = lv->fd, r = 0;
		struct gilk_version v;

		if (drop_sys_admin())
			_exit(10);
		fd = open("/dev/gilk", O_RDWR);
		if (!(fd < 0 && errno == EPERM))
			r |= 1;
		if (!(ioctl(held, GILK_IOC_VERSION, &v) < 0 && errno == EPERM))
			r |= 2;
		if (setuid(65534) == 0 && !(open("/dev/gilk", O_RDWR) < 0 && errno == EACCES))
			r |= 4;
		_exit(r);
	}
	waitpid(k, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "without CAP_SYS_ADMIN: open and ioctl fail with EPERM; as nobody, EACCES (status %d)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	{
		struct stat s;

		check(stat("/dev/gilk", &s) == 0 && (s.st_mode & 0777) == 0600, "/dev/gilk is mode 0600");
	}
}

/* N calls of getppid, getpgrp, getrlimit or open, for shell tests; it needs
 * no gilk.ko, so it also runs after gilk.ko is gone. */
static int workload(const char *kind, int n)
{
	struct rlimit rl;

	for (int i = 0; i < n; i++) {
		if (!strcmp(kind, "getppid"))
			syscall(SYS_getppid);
		else if (!strcmp(kind, "getpgrp"))
			syscall(SYS_getpgrp);
		else if (!strcmp(kind, "getrlimit"))
			getrlimit(RLIMIT_STACK, &rl);
		else
			open_n(1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct live lv;
	struct gerr e;

	if (argc < 2) {
		fprintf(stderr, "usage: test-live basic|blocks|page-runs|facts|rangefacts|scale [GLOB]|refusals|uniproc|events|stress N|fuzz N|privs|splice-hold SYM INS ARG\n");
		return 2;
	}
	if (!strcmp(argv[1], "workload") && argc == 4)
		return workload(argv[2], atoi(argv[3]));
	if (!strcmp(argv[1], "sleep-migrate") && argc == 4)
		return sleep_migrate(atoi(argv[2]), atoi(argv[3]));
	if (live_open(&lv, NULL, &e)) {
		check(0, "open gilk: %s", e.msg);
		check_summary();
		return 1;
	}
	if (!strcmp(argv[1], "bug-functions") || !strcmp(argv[1], "bug-traps-covered")) {
		int rc = (argv[1][4] == 'f' ? bug_functions : bug_traps_covered)(
			&lv, argc > 2 ? (size_t)atoi(argv[2]) : 64);

		live_close(&lv);
		return rc;
	}
	if (!strcmp(argv[1], "basic")) {
		test_basic(&lv);
		test_briefs(&lv);
		test_list_pages(&lv);
	}
	else if (!strcmp(argv[1], "blocks"))
		test_blocks(&lv);
	else if (!strcmp(argv[1], "page-runs"))
		test_page_runs(&lv);
	else if (!strcmp(argv[1], "facts"))
		test_facts(&lv);
	else if (!strcmp(argv[1], "rangefacts"))
		test_rangefacts(&lv);
	else if (!strcmp(argv[1], "scale"))
		test_scale(&lv, argc > 2 ? argv[2] : "tcp_*");
	else if (!strcmp(argv[1], "module"))
		test_module_text(&lv);
	else if (!strcmp(argv[1], "refusals"))
		test_refusals(&lv);
	else if (!strcmp(argv[1], "verifier"))
		test_verifier(&lv);
	else if (!strcmp(argv[1], "ibt"))
		test_ibt(&lv);
	else if (!strcmp(argv[1], "defects"))
		test_defects(&lv);
	else if (!strcmp(argv[1], "trap-hold")) {
		int rc = trap_hold(&lv);

		live_close(&lv);
		return rc;
	} else if (!strcmp(argv[1], "blacklist-race"))
		test_blacklist_race(&lv, argc > 2 ? atoi(argv[2]) : 50);
	else if (!strcmp(argv[1], "templates"))
		test_templates(&lv);
	else if (!strcmp(argv[1], "uniproc"))
		test_uniproc(&lv);
	else if (!strcmp(argv[1], "filters"))
		test_filters(&lv);
	else if (!strcmp(argv[1], "fetch"))
		test_fetch(&lv);
	else if (!strcmp(argv[1], "agg"))
		test_agg(&lv);
	else if (!strcmp(argv[1], "badreq"))
		test_badreq(&lv, argc > 2 ? atoi(argv[2]) : 100000);
	else if (!strcmp(argv[1], "events"))
		test_events(&lv);
	else if (!strcmp(argv[1], "stress"))
		test_stress(&lv, argc > 2 ? atoi(argv[2]) : 1000);
	else if (!strcmp(argv[1], "fuzz"))
		test_fuzz(&lv, argc > 2 ? atoi(argv[2]) : 10000);
	else if (!strcmp(argv[1], "privs")) {
		test_privs(&lv);
		test_orphans(&lv);
	} else if (!strcmp(argv[1], "refuse") && argc == 5) {
		/* refuse SYM ERRNO WORDS: gilk.ko refuses a forced splice at SYM
		 * with that errno and a reason holding WORDS */
		static const struct { const char *name; int err; } errs[] = {
			{ "EADDRINUSE", EADDRINUSE }, { "EBUSY", EBUSY }, { "EPROTO", EPROTO },
			{ "EACCES", EACCES }, { "EFAULT", EFAULT },
		};
		int want = -1;

		for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
			if (!strcmp(errs[i].name, argv[3]))
				want = errs[i].err;
		expect_refusal(&lv, argv[2], sym(&lv, argv[2]), want, argv[4]);
	} else if (!strcmp(argv[1], "splice-hold") && argc == 5) {
		struct splice_plan p;
		uint32_t id;

		if (splice_at(&lv, live_block_site(&lv, sym(&lv, argv[2])), 0, argv[3], argv[4], &id, &p))
			return 1;
		printf("%u %" PRIx64 " %u ", id, p.region.addr, p.region.len);
		for (unsigned i = 0; i < p.region.len; i++)
			printf("%02x", p.region.orig[i]);
		printf("\n");
		live_close(&lv);
		return 0;
	}
	live_close(&lv);
	return check_summary();
}
