/* Live splicing through /dev/gilk (see live.h). */
#include "live.h"
#include "request.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A plan's trampoline goes to gilk.ko whole: the planner's bound must be
 * the ABI's. */
_Static_assert(SPLICE_TRAMP_MAX == GILK_TRAMP_MAX,
	       "core/splice.h's SPLICE_TRAMP_MAX and the ABI's GILK_TRAMP_MAX differ");

#define REACH 160

static bool cpu_has_smap(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool yes = false;

	if (!f)
		return false;
	while (!yes && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " smap"))
			yes = true;
	fclose(f);
	return yes;
}

static int learn_splices(struct live *lv, struct gerr *e);

int live_version(const struct live *lv, struct gilk_version *v, struct gerr *e)
{
	if (ioctl(lv->fd, GILK_IOC_VERSION, v) < 0)
		return gerr_setc(e, errno, "asking gilk.ko its version: %s", strerror(errno));
	return 0;
}

int live_open(struct live *lv, const struct live_paths *paths, struct gerr *e)
{
	const char *dev = paths && paths->dev ? paths->dev : "/dev/gilk";
	struct gilk_version v;

	memset(lv, 0, sizeof(*lv));
	lv->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (lv->fd < 0)
		return gerr_setc(e, errno, "%s: %s%s", dev, strerror(errno),
				errno == ENOENT ? " (is gilk.ko loaded? modprobe gilk)" :
				(errno == EACCES || errno == EPERM) && geteuid() ?
				" (live, gilk needs root; offline it reads an image: gilk --kernel FILE --symbols FILE)" :
				errno == EPERM ? " (needs CAP_SYS_ADMIN, and no kernel lockdown)" : "");
	if (ioctl(lv->fd, GILK_IOC_VERSION, &v) < 0) {
		int err = errno;

		close(lv->fd);
		return gerr_setc(e, err, "%s does not answer gilk's VERSION request: %s", dev,
				 strerror(err));
	}
	if (v.abi != GILK_ABI_VERSION) {
		close(lv->fd);
		return gerr_setc(e, EPROTO, "%s speaks ABI %u, this gilk speaks %u", dev,
				v.abi, GILK_ABI_VERSION);
	}
	if (kernel_open_live(&lv->k, paths && paths->kcore ? paths->kcore : "/proc/kcore",
			     paths && paths->kallsyms ? paths->kallsyms : "/proc/kallsyms", e)) {
		close(lv->fd);
		return -1;
	}
	if (kimage_open(paths && paths->kcore ? paths->kcore : "/proc/kcore", &lv->kcore, e)) {
		kernel_close(&lv->k);
		close(lv->fd);
		return -1;
	}
	lv->smap = cpu_has_smap();
	/* The snapshot holds the jumps of the splices there now: put their
	 * original bytes back at once, or one removed later (by this
	 * session, or another) would leave its jump in the snapshot, and
	 * every plan there would be refused as made from the wrong bytes. */
	if (learn_splices(lv, e)) {
		live_close(lv);
		return -1;
	}
	return 0;
}

void live_close(struct live *lv)
{
	window_free(&lv->w);
	kernel_close(&lv->k);
	kimage_close(lv->kcore);
	free(lv->occupied);
	free(lv->splices);
	free(lv->pending);
	free(lv->pending_site);
	free(lv->near);
	free(lv->learnt);
	if (lv->fd >= 0)
		close(lv->fd);
	memset(lv, 0, sizeof(*lv));
	lv->fd = -1;
}

int live_list(struct live *lv, struct gilk_splice_info **out, size_t *n,
	      struct gerr *e)
{
	struct gilk_list l = { 0 };
	struct gilk_splice_info *buf = NULL;

	for (;;) {
		l.buf = (uintptr_t)buf;
		if (ioctl(lv->fd, GILK_IOC_LIST, &l) < 0) {
			free(buf);
			return gerr_setc(e, errno, "listing splices: %s", strerror(errno));
		}
		if (l.count <= l.max)
			break;
		free(buf);
		l.max = l.count + 8;
		buf = calloc(l.max, sizeof(*buf));
		if (!buf)
			return gerr_setc(e, ENOMEM, "out of memory");
	}
	*out = buf;
	*n = l.count;
	return 0;
}

int live_stats(struct live *lv, struct gilk_stats *st, struct gerr *e)
{
	if (ioctl(lv->fd, GILK_IOC_STATS, st) < 0)
		return gerr_setc(e, errno, "asking gilk.ko what it holds: %s", strerror(errno));
	return 0;
}

int live_info(struct live *lv, uint32_t id, struct gilk_splice_info *out,
	      struct gerr *e)
{
	struct gilk_splice_info *all;
	size_t n;

	if (live_list(lv, &all, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (all[i].id == id) {
			*out = all[i];
			free(all);
			return 0;
		}
	free(all);
	return gerr_setc(e, ENOENT, "no splice %u", id);
}

/* Room grows by doubling: it is a power of two at least *n (lists emptied
 * by setting *n to 0 keep theirs, and only shrink-and-grow on the way). */
static int push_range(struct range **arr, size_t *n, uint64_t lo, uint64_t hi)
{
	if (!(*n & (*n - 1))) {	/* 0 or a power of two: full */
		struct range *r = realloc(*arr, (*n ? 2 * *n : 1) * sizeof(**arr));

		if (!r)
			return -1;
		*arr = r;
	}
	(*arr)[(*n)++] = (struct range){ lo, hi };
	return 0;
}

static int cmp_range_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Which splices exist, and where: equal for the same set. */
static uint64_t splices_sig(const struct gilk_splice_info *all, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		uint64_t v[3] = { all[i].id, all[i].site, all[i].npatch };

		for (size_t k = 0; k < 3; k++)
			h = (h ^ v[k]) * 1099511628211ull;
	}
	return h;
}

/* What other splices own and changed: occupied ranges, and their original
 * bytes put back into the snapshot. Nothing changes (and cached CFGs stay)
 * when the splices are the ones learnt last time. */
static int learn_splices(struct live *lv, struct gerr *e)
{
	struct gilk_splice_info *all;
	size_t n;
	uint64_t sig;
	int rc = 0;

	if (live_list(lv, &all, &n, e))
		return -1;
	sig = splices_sig(all, n);
	if (lv->gen && sig == lv->splices_sig) {
		free(all);
		return 0;
	}
	free(lv->splices);
	lv->splices = all;
	lv->nsplices = n;
	lv->splices_sig = sig;
	lv->gen++;
	lv->noccupied = 0;
	kernel_text_changed(&lv->k);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct gilk_splice_info *s = &all[i];

		kimage_overlay(lv->k.img, s->site, s->region_orig, s->region_len);
		rc |= push_range(&lv->occupied, &lv->noccupied, s->site, s->site + s->region_len);
		for (uint32_t k = 0; k < s->npatch && k < GILK_MAX_PATCHES; k++) {
			const struct gilk_owned *p = &s->patch[k];

			kimage_overlay(lv->k.img, p->addr, p->orig, p->len);
			rc |= push_range(&lv->occupied, &lv->noccupied, p->addr, p->addr + p->len);
			/* No bounce slot goes in the dead tail of another
			 * splice's region: that splice's unsplice would put
			 * the original bytes back under it, and gilk.ko's
			 * checker accepts slots only over padding or in a
			 * neighbour the same splice evicts. */
		}
	}
	if (lv->noccupied)
		qsort(lv->occupied, lv->noccupied, sizeof(*lv->occupied), cmp_range_start);
	return rc ? gerr_setc(e, ENOMEM, "out of memory") : 0;
}

/* The original bytes of the splices last learnt, where they fall in
 * [lo, hi): module text read again holds their jumps. */
static void unsplice_snapshot(struct live *lv, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < lv->nsplices; i++) {
		const struct gilk_splice_info *s = &lv->splices[i];

		if (s->site >= lo && s->site + s->region_len <= hi)
			kimage_overlay(lv->k.img, s->site, s->region_orig, s->region_len);
		for (uint32_t k = 0; k < s->npatch && k < GILK_MAX_PATCHES; k++)
			if (s->patch[k].addr >= lo && s->patch[k].addr + s->patch[k].len <= hi)
				kimage_overlay(lv->k.img, s->patch[k].addr, s->patch[k].orig,
					       s->patch[k].len);
	}
}

/* The bytes one plan around [lo, hi) must leave alone: gilk.ko's splices
 * there (the sorted list, searched) and the batch's earlier plans (a sliding
 * window over plans made in address order). A splice's bytes are within a
 * bounce's reach of its site, so nothing further away matters. */
static int near_ranges(struct live *lv, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = lv->noccupied;

	lv->nnear = 0;
	while (a < b) {	/* the first splice starting at or above lo - 2 * REACH */
		size_t m = a + (b - a) / 2;

		if (lv->occupied[m].start + 2 * REACH < lo)
			a = m + 1;
		else
			b = m;
	}
	for (; a < lv->noccupied && lv->occupied[a].start < hi; a++)
		if (lv->occupied[a].end > lo &&
		    push_range(&lv->near, &lv->nnear, lv->occupied[a].start, lv->occupied[a].end))
			return -1;
	while (lv->pending_first < lv->npending &&
	       lv->pending_site[lv->pending_first] + 2 * REACH < lo)
		lv->pending_first++;
	for (size_t i = lv->pending_first; i < lv->npending; i++)
		if (lv->pending[i].start < hi && lv->pending[i].end > lo &&
		    push_range(&lv->near, &lv->nnear, lv->pending[i].start, lv->pending[i].end))
			return -1;
	return 0;
}

static int add_fact(struct textfacts *tf, const struct gilk_fact *f)
{
	static const enum res_kind kinds[] = {
		[GILK_RES_JUMP_LABEL] = RES_JUMP_LABEL,
		[GILK_RES_STATIC_CALL] = RES_STATIC_CALL,
		[GILK_RES_FTRACE] = RES_FTRACE,
		[GILK_RES_EXTABLE] = RES_EXTABLE,
		[GILK_RES_BLACKLIST] = RES_BLACKLIST,
		[GILK_RES_KPROBE] = RES_KPROBE,
		[GILK_RES_SMP_LOCK] = RES_SMP_LOCK,
		[GILK_RES_OWN_PATH] = RES_OWN_PATH,
	};

	switch (f->kind) {
	case GILK_FACT_TARGET:
		return textfacts_add_target(tf, f->start);
	case GILK_FACT_BUG:
	case GILK_FACT_WARN:
		return textfacts_add_bug(tf, f->start, f->kind == GILK_FACT_WARN);
	default:
		if (f->kind < sizeof(kinds) / sizeof(kinds[0]))
			return textfacts_add_range(tf, f->start, f->end, kinds[f->kind]);
		return 0;
	}
}

/* ftrace sites, blacklist, kprobes and modules' tables live only in gilk.ko's
 * view. Added unsorted: ensure_sorted() sorts once before planning. */
static int ask_facts(struct live *lv, uint64_t lo, uint64_t hi, struct gerr *e)
{
	struct gilk_fact few[256], *f = few;
	struct gilk_facts q = { .start = lo, .end = hi, .max = 256,
				.buf = (uintptr_t)few };
	int rc = 0;

	if (ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0)
		return gerr_setc(e, errno, "asking gilk.ko about 0x%llx: %s",
				(unsigned long long)lo, strerror(errno));
	if (q.count > q.max) {
		/* More than fit: ask again with room for all of them. */
		if (q.count > GILK_FACTS_MAX)
			return gerr_set(e, "0x%llx..0x%llx holds %u facts, more than gilk.ko reports at once",
					(unsigned long long)lo, (unsigned long long)hi, q.count);
		q.max = q.count;
		f = calloc(q.max, sizeof(*f));
		q.buf = (uintptr_t)f;
		if (!f)
			return gerr_setc(e, ENOMEM, "out of memory");
		if (ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0 || q.count > q.max) {
			free(f);
			return gerr_setc(e, errno, "asking gilk.ko about 0x%llx: %s",
					(unsigned long long)lo, strerror(errno));
		}
	}
	for (uint32_t i = 0; i < q.count && i < q.max && !rc; i++)
		rc = add_fact(lv->k.facts, &f[i]);
	if (f != few)
		free(f);
	if (rc)
		return gerr_setc(e, ENOMEM, "out of memory");
	lv->facts_unsorted = true;
	lv->gen++;
	return 0;
}

/* Marks [lo, hi) as answered, keeping lv->learnt sorted and merged. */
static int mark_learnt(struct live *lv, uint64_t lo, uint64_t hi)
{
	size_t i = 0, j;

	while (i < lv->nlearnt && lv->learnt[i].end < lo)
		i++;
	for (j = i; j < lv->nlearnt && lv->learnt[j].start <= hi; j++) {
		lo = lv->learnt[j].start < lo ? lv->learnt[j].start : lo;
		hi = lv->learnt[j].end > hi ? lv->learnt[j].end : hi;
	}
	if (j == i) {	/* overlaps none: a new one at i */
		if (push_range(&lv->learnt, &lv->nlearnt, 0, 0))
			return -1;
		memmove(&lv->learnt[i + 1], &lv->learnt[i],
			(lv->nlearnt - 1 - i) * sizeof(*lv->learnt));
	} else {	/* i..j-1 become one */
		memmove(&lv->learnt[i + 1], &lv->learnt[j],
			(lv->nlearnt - j) * sizeof(*lv->learnt));
		lv->nlearnt -= j - i - 1;
	}
	lv->learnt[i] = (struct range){ lo, hi };
	return 0;
}

/* Asks FACTS about the parts of [lo, hi) not answered before. */
static int learn_facts(struct live *lv, uint64_t lo, uint64_t hi, struct gerr *e)
{
	uint64_t at = lo;

	for (size_t i = 0; i < lv->nlearnt && at < hi; i++) {
		const struct range *r = &lv->learnt[i];

		if (r->end <= at)
			continue;
		if (r->start >= hi)
			break;
		if (r->start > at && ask_facts(lv, at, r->start, e))
			return -1;
		at = r->end;
	}
	if (at < hi && ask_facts(lv, at, hi, e))
		return -1;
	return mark_learnt(lv, lo, hi) ? gerr_setc(e, ENOMEM, "out of memory") : 0;
}

static void ensure_sorted(struct live *lv)
{
	if (lv->facts_unsorted)
		textfacts_finish(lv->k.facts);
	lv->facts_unsorted = false;
}

/* Module text is not in the snapshot taken at open: read the site's function
 * (modules come and go, so again each time) before planning there. */
static int snapshot_module_text(struct live *lv, uint64_t fs, uint64_t fe,
				struct gerr *e)
{
	struct gilk_facts q = { .start = fs, .end = fe };

	if (ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0 || q.text != GILK_TEXT_MODULE)
		return gerr_set(e, "0x%llx is not kernel or module text",
				(unsigned long long)fs);
	if (kimage_copy_range(lv->k.img, lv->kcore, "module", fs, fe - fs, e))
		return -1;
	unsplice_snapshot(lv, fs, fe);
	return 0;
}

int live_text_kind(struct live *lv, uint64_t addr)
{
	struct gilk_facts q = { .start = addr, .end = addr + 1 };

	if (addr >= lv->k.text_start && addr < lv->k.text_end)
		return GILK_TEXT_KERNEL;
	return ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0 ? GILK_TEXT_NONE : (int)q.text;
}

int live_load_text(struct live *lv, uint64_t addr, struct gerr *e)
{
	uint64_t fs, fe;

	if (symtab_function(lv->k.syms, addr, NULL, &fs, &fe))
		return gerr_set(e, "0x%llx is not inside a kernel function",
				(unsigned long long)addr);
	/* The original bytes under every splice, whoever made it: code is
	 * shown as it was, with its splices marked, not as their jumps. */
	if (addr >= lv->k.text_start && addr < lv->k.text_end)
		return lv->batch ? 0 : learn_splices(lv, e);
	/* A module's facts (WARN continuations, fixup landings) are edges
	 * its CFG needs: ask before it is built. */
	if (snapshot_module_text(lv, fs, fe, e) || (!lv->batch && learn_splices(lv, e)) ||
	    learn_facts(lv, fs, fe, e))
		return -1;
	ensure_sorted(lv);
	return 0;
}

/* The range FACTS is asked about for a site in [fs, fe): the function and
 * whatever a bounce from any of its blocks may reach; in a module, only the
 * function (its neighbours may not be text). */
static void facts_range(const struct live *lv, uint64_t fs, uint64_t fe,
			uint64_t *lo, uint64_t *hi)
{
	bool module = fs < lv->k.text_start || fs >= lv->k.text_end;

	*lo = module ? fs : fs - REACH;
	*hi = module ? fe : fe + REACH;
}

static int prepare(struct live *lv, uint64_t site, struct splice_env *env,
		   struct gerr *e)
{
	uint64_t fs, fe, lo, hi;
	bool module;

	if (symtab_function(lv->k.syms, site, NULL, &fs, &fe))
		return gerr_set(e, "0x%llx is not inside a kernel function",
				(unsigned long long)site);
	module = site < lv->k.text_start || site >= lv->k.text_end;
	if (module && snapshot_module_text(lv, fs, fe, e))
		return -1;
	facts_range(lv, fs, fe, &lo, &hi);
	if ((!lv->batch && learn_splices(lv, e)) || learn_facts(lv, lo, hi, e))
		return -1;
	ensure_sorted(lv);
	if (near_ranges(lv, site - 2 * REACH, site + 2 * REACH))
		return gerr_setc(e, ENOMEM, "out of memory");
	/* Cached CFGs hold while the snapshot and the facts are unchanged
	 * (module text is read again each time); the window, for the whole
	 * function, holds for its every site. */
	if (module || lv->window_gen != lv->gen) {
		window_free(&lv->w);
		lv->window_fn = 0;
	}
	lv->window_gen = lv->gen;
	if (lv->window_fn != fs) {
		lv->window_fn = 0;
		if (kernel_window_over(&lv->k, fs, fe - 1, REACH, &lv->w, e))
			return -1;
		lv->window_fn = fs;
	}
	kernel_env(&lv->k, &lv->w, env);
	env->occupied = lv->near;
	env->noccupied = lv->nnear;
	return 0;
}

int live_plan(struct live *lv, uint64_t site, unsigned flags,
	      struct splice_plan *p, struct gerr *e)
{
	struct splice_env env;
	char where[128];
	const char *lim;

	if (prepare(lv, site, &env, e))
		return -1;
	env.flags = flags;
	if (splice_plan(&env, site, p) == 0)
		return 0;
	symtab_format(lv->k.syms, p->reason_addr, where, sizeof(where));
	lim = splice_limit_str(p);
	return gerr_set(e, "cannot splice at 0x%llx: %s (at %s%s%s)",
			(unsigned long long)site, splice_reason_str(p->reason), where,
			lim ? ", where it cannot grow: " : "", lim ? lim : "");
}

uint64_t live_block_site(struct live *lv, uint64_t addr)
{
	struct splice_env env;
	struct gerr e;

	if (prepare(lv, addr, &env, &e))
		return addr;
	return splice_site_for_block(&env, addr);
}

/* The template gilk.ko gives instrument's splices (kmod/tramp.h): what the
 * instrument needs, unless the session asks for the full one. */
static enum tramp_template template_for(struct live *lv, const char *instrument)
{
	struct gilk_instrument_info *list;
	enum tramp_template tt = TT_FULL;
	struct gerr e;
	size_t n;

	if (lv->full_template || live_instruments(lv, &list, &n, &e))
		return TT_FULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, instrument))
			tt = list[i].needs == GILK_NEEDS_NOTHING ? TT_COUNT :
			     list[i].needs == GILK_NEEDS_TSC ? TT_TSC :
			     list[i].needs == GILK_NEEDS_SCRATCH ? TT_SCRATCH : TT_FULL;
	free(list);
	return tt;
}

/* The inline tsc template writes gilk.ko's ring as core/splice.h lays it out. */
_Static_assert(TSC_RING_SLOTS == GILK_TSC_SLOTS &&
	       TSC_RING_SLOT0 == offsetof(struct gilk_tsc_ring, slot) &&
	       sizeof(struct gilk_tsc_slot) == 1u << TSC_RING_SLOT_SHIFT &&
	       offsetof(struct gilk_tsc_slot, begin) == 0 &&
	       offsetof(struct gilk_tsc_slot, tsc) == 8 &&
	       offsetof(struct gilk_tsc_slot, cpu) == 16 &&
	       offsetof(struct gilk_tsc_slot, end) == 24,
	       "core/splice.h's tsc ring is gilk.ko's");

static int request_as(struct live *lv, const struct splice_plan *p,
		      const char *instrument, const char *arg, enum tramp_template tmpl,
		      struct gilk_splice *req, size_t *reloc_off, struct gerr *e)
{
	struct gilk_reserve r = {
		.tramp_size = (uint32_t)splice_tramp_size(p, tmpl),
		.evict_size = (uint32_t)splice_evict_tramp_size(p),
		/* a BUG/WARN replay gets the full template, which calls */
		.flags = tmpl == TT_TSC && p->bug == BUG_NONE ? GILK_RESERVE_TSC_RING : 0,
	};
	struct splice_params sp;
	struct splice_code code;
	enum splice_reason why;

	if (strlen(instrument) >= GILK_NAME_MAX || (arg && strlen(arg) >= GILK_ARG_MAX))
		return gerr_set(e, "instrument name or argument too long");
	if (ioctl(lv->fd, GILK_IOC_RESERVE, &r) < 0)
		return gerr_setc(e, errno, "reserving trampoline memory: %s", strerror(errno));
	sp = (struct splice_params){ .tramp = r.tramp, .evict_tramp = r.evict_tramp,
				     .handler = r.handler, .ctx = r.ctx, .clac = lv->smap,
				     .tmpl = tmpl, .counter = r.counter, .tsc_ring = r.tsc_ring,
				     .cpu_number = r.cpu_number };
	if (splice_emit(p, &sp, &code, &why)) {
		ioctl(lv->fd, GILK_IOC_RELEASE, &r.id);
		return gerr_set(e, "trampoline at 0x%llx: %s", (unsigned long long)r.tramp,
				splice_reason_str(why));
	}
	request_from_plan(p, &code, &r, req);
	if (reloc_off)
		*reloc_off = code.reloc_off;
	snprintf(req->instrument, sizeof(req->instrument), "%s", instrument);
	snprintf(req->arg, sizeof(req->arg), "%s", arg ? arg : "");
	return 0;
}

int live_request(struct live *lv, const struct splice_plan *p,
		 const char *instrument, const char *arg,
		 struct gilk_splice *req, size_t *reloc_off, struct gerr *e)
{
	return request_as(lv, p, instrument, arg, template_for(lv, instrument), req,
			  reloc_off, e);
}

int live_splice_batch(struct live *lv, const struct splice_plan *plans,
		      size_t n, const char *instrument, const char *arg,
		      uint32_t *ids, struct gerr *e)
{
	struct live_use use = { instrument, arg };

	return live_splice_batch_uses(lv, plans, n, &use, 1, ids, e);
}

int live_splice_batch_uses(struct live *lv, const struct splice_plan *plans,
			   size_t n, const struct live_use *uses, size_t nuses,
			   uint32_t *ids, struct gerr *e)
{
	struct gilk_splice *reqs;
	struct gilk_batch b = { .count = (uint32_t)n };
	size_t built = 0;
	int err, rc = 0;

	if (!n || n > GILK_BATCH_MAX)
		return gerr_set(e, "a batch holds 1 to %d splices, not %zu", GILK_BATCH_MAX, n);
	if (nuses != 1 && nuses != n)
		return gerr_set(e, "a batch of %zu splices takes 1 or %zu instruments, not %zu",
				n, n, nuses);
	/* one request each, sent together: gilk.ko reads them one by one */
	reqs = calloc(n, sizeof(*reqs));
	if (!reqs)
		return gerr_setc(e, ENOMEM, "out of memory");
	/* the template an instrument takes, asked of gilk.ko once for a run
	 * of the same instrument, not once a splice */
	const char *last = NULL;
	enum tramp_template tmpl = TT_FULL;

	for (; built < n; built++) {
		const struct live_use *u = &uses[nuses == n ? built : 0];

		if (!last || strcmp(last, u->instrument))
			tmpl = template_for(lv, u->instrument);
		last = u->instrument;
		if (request_as(lv, &plans[built], u->instrument, u->arg, tmpl, &reqs[built],
			       NULL, e)) {
			rc = -1;
			break;
		}
	}
	if (!rc) {
		b.items = (uintptr_t)reqs;
		if (ioctl(lv->fd, n == 1 ? GILK_IOC_SPLICE : GILK_IOC_SPLICE_BATCH,
			  n == 1 ? (void *)reqs : (void *)&b) < 0) {
			const struct gilk_splice *bad = &reqs[b.failed < n ? b.failed : 0];

			err = errno;
			gerr_setc(e, err, "gilk.ko refused the splice at 0x%llx: %s (%s)",
				 (unsigned long long)bad->site,
				 bad->reason[0] ? bad->reason : strerror(err), strerror(err));
			errno = err;
			rc = -1;
		}
	}
	err = errno;
	for (size_t i = 0; i < built; i++) {
		if (rc)
			ioctl(lv->fd, GILK_IOC_RELEASE, &reqs[i].id);
		else
			ids[i] = reqs[i].id;
	}
	errno = err;
	free(reqs);
	return rc;
}

int live_splice(struct live *lv, const struct splice_plan *p,
		const char *instrument, const char *arg, uint32_t *id,
		struct gerr *e)
{
	return live_splice_batch(lv, p, 1, instrument, arg, id, e);
}

int live_unsplice_batch(struct live *lv, const uint32_t *ids, size_t n,
			struct gerr *e)
{
	if (!n)
		return gerr_set(e, "nothing to unsplice");
	/* gilk.ko takes up to GILK_BATCH_MAX (all there can be, in practice)
	 * at a time: one pair of grace periods each */
	for (size_t done = 0; done < n; done += GILK_BATCH_MAX) {
		size_t k = n - done < GILK_BATCH_MAX ? n - done : GILK_BATCH_MAX;
		struct gilk_batch b = { .count = (uint32_t)k, .items = (uintptr_t)(ids + done) };

		if (ioctl(lv->fd, GILK_IOC_UNSPLICE_BATCH, &b) < 0)
			return gerr_setc(e, errno, "unsplice %u: %s%s",
					 b.failed < k ? ids[done + b.failed] : 0,
					 errno == ENOENT ? "no such splice" : strerror(errno),
					 done ? " (the splices before it are removed)" : "");
	}
	return 0;
}

static int cmp_site_index(const void *a, const void *b, void *ctx)
{
	const uint64_t *sites = ctx;
	uint64_t x = sites[*(const size_t *)a], y = sites[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

static int push_pending(struct live *lv, uint64_t site, uint64_t lo, uint64_t hi)
{
	uint64_t *k = realloc(lv->pending_site, (lv->npending + 1) * sizeof(*k));

	if (!k)
		return -1;
	lv->pending_site = k;
	k[lv->npending] = site;
	return push_range(&lv->pending, &lv->npending, lo, hi);
}

/* FACTS for the functions of n addresses (ascending) first, sorted once
 * after. */
static void learn_batch_facts(struct live *lv, const uint64_t *addrs,
			      const size_t *order, size_t n)
{
	uint64_t fs, fe, lo, hi, last = 0;
	struct gerr e;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = addrs[order ? order[i] : i];

		if (a < last || symtab_function(lv->k.syms, a, NULL, &fs, &fe) ||
		    fs < lv->k.text_start || fs >= lv->k.text_end)
			continue;	/* module text: prepare() reads it */
		last = fe;
		facts_range(lv, fs, fe, &lo, &hi);
		if (learn_facts(lv, lo, hi, &e))
			break;	/* prepare() asks again, and says why */
	}
	ensure_sorted(lv);
}

int live_batch_begin(struct live *lv, const uint64_t *fns, size_t n, struct gerr *e)
{
	if (learn_splices(lv, e))
		return -1;
	learn_batch_facts(lv, fns, NULL, n);
	lv->batch = true;
	return 0;
}

void live_batch_end(struct live *lv)
{
	lv->batch = false;
}

size_t live_plan_many(struct live *lv, const uint64_t *sites, size_t n,
		      unsigned flags, struct splice_plan *plans, bool *ok,
		      enum splice_reason *why)
{
	size_t good = 0, *order = calloc(n ? n : 1, sizeof(*order));
	struct gerr e;

	for (size_t i = 0; i < n; i++) {
		ok[i] = false;
		why[i] = SR_NOT_TEXT;
	}
	bool outer = !lv->batch;	/* else live_batch_begin() learnt the splices */

	if (!order || (outer && learn_splices(lv, &e))) {
		free(order);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_site_index, (void *)sites);
	learn_batch_facts(lv, sites, order, n);
	lv->batch = true;
	lv->npending = lv->pending_first = 0;
	for (size_t o = 0; o < n; o++) {
		size_t i = order[o];
		const struct splice_plan *p = &plans[i];
		int rc = 0;

		ok[i] = live_plan(lv, sites[i], flags, &plans[i], &e) == 0;
		why[i] = plans[i].reason;
		if (!ok[i])
			continue;
		good++;
		rc |= push_pending(lv, sites[i], p->region.addr, p->region.addr + p->region.len);
		if (p->mode == SPLICE_BOUNCE)
			rc |= push_pending(lv, sites[i], p->slot, p->slot + 5);
		if (p->bounce_kind == BOUNCE_EVICT)
			rc |= push_pending(lv, sites[i], p->evict.addr,
					   p->evict.addr + p->evict.len);
		if (rc) {	/* out of memory: the rest are not planned */
			ok[i] = false;
			good--;
			break;
		}
	}
	lv->batch = !outer;
	lv->npending = lv->pending_first = 0;
	free(order);
	return good;
}

int live_unsplice(struct live *lv, uint32_t id, struct gerr *e)
{
	if (ioctl(lv->fd, GILK_IOC_UNSPLICE, &id) < 0)
		return gerr_setc(e, errno, "unsplice %u: %s", id,
				errno == ENOENT ? "no such splice" : strerror(errno));
	return 0;
}

int live_instruments(struct live *lv, struct gilk_instrument_info **out,
		     size_t *n, struct gerr *e)
{
	struct gilk_instruments l = { .max = 256 };
	struct gilk_instrument_info *buf = calloc(256, sizeof(*buf));

	if (!buf)
		return gerr_setc(e, ENOMEM, "out of memory");
	l.buf = (uintptr_t)buf;
	if (ioctl(lv->fd, GILK_IOC_INSTRUMENTS, &l) < 0) {
		free(buf);
		return gerr_setc(e, errno, "listing instruments: %s", strerror(errno));
	}
	*out = buf;
	*n = l.count < l.max ? l.count : l.max;
	return 0;
}

int live_read_mem(struct live *lv, uint64_t addr, void *buf, size_t len,
		  struct gerr *e)
{
	struct gilk_read r = { .addr = addr, .len = len, .buf = (uintptr_t)buf };

	if (ioctl(lv->fd, GILK_IOC_READ, &r) < 0)
		return gerr_setc(e, errno, "reading %zu bytes at 0x%llx: %s", len,
				(unsigned long long)addr,
				errno == EIO ? "not mapped" : strerror(errno));
	return 0;
}

ssize_t live_read_events(struct live *lv, void *buf, size_t len, struct gerr *e)
{
	ssize_t n = read(lv->fd, buf, len);

	if (n < 0)
		gerr_setc(e, errno, "reading events: %s", strerror(errno));
	return n;
}
