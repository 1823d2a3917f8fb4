/* Planning and splicing live (see live.h): plans from the snapshot and the
 * facts, requests as gilk.ko checks them, batches. */
#include "errnos.h"
#include "flags_x86_64.h"
#include "live_internal.h"
#include "request.h"
#include "template.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/*
 * The planner plans within what gilk.ko's checker holds a plan to, and a
 * plan's region and trampoline go to gilk.ko whole: the bounds are the ABI's.
 */
_Static_assert(NEIGHBOUR_REACH == GILK_NEIGHBOUR_REACH && NEIGHBOUR_SPAN == GILK_NEIGHBOUR_SPAN &&
	       TABLE_MAX == GILK_TABLE_MAX && TABLE_GAP_MAX == GILK_TABLE_GAP_MAX &&
	       FLAGS_WALK_MAX == GILK_FLAGS_WALK_MAX && SPLICE_TRAMP_MAX == GILK_TRAMP_MAX &&
	       SPLICE_REGION_MAX == GILK_PATCH_MAX_LEN,
	       "core/ and gilk.ko's checker agree on their limits");

static int prepare(struct live *lv, uint64_t site, struct splice_env *env,
		   struct gerr *e)
{
	uint64_t fs, fe, lo, hi;
	bool module;

	if (symtab_function(lv->k.syms, site, NULL, &fs, &fe))
		return gerr_set(e, "0x%llx is not inside a kernel function",
				(unsigned long long)site);
	module = site < lv->k.text_start || site >= lv->k.text_end;
	if (module && lv_snapshot_module_text(lv, fs, fe, e))
		return -1;
	lv_facts_range(lv, fs, fe, &lo, &hi);
	if ((!lv->batch && lv_learn_splices(lv, e)) || lv_learn_facts(lv, lo, hi, e))
		return -1;
	lv_ensure_sorted(lv);
	if (lv_near_ranges(lv, site - 2 * REACH, site + 2 * REACH))
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

/* Whether a plan of this batch so far is at site (pending_site ascends). */
static bool pending_at(const struct live *lv, uint64_t site)
{
	size_t lo = lv->pending_first, hi = lv->npending;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lv->pending_site[mid] == site)
			return true;
		if (lv->pending_site[mid] < site)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * A site other splices hold, joined (GILK_SPLICE_JOIN) where they start at
 * that very site, take more, and no plan of this batch joins them already:
 * gilk.ko runs every instrument of a site, each with its own counts.
 */
static bool plan_join(struct live *lv, uint64_t site, struct splice_plan *p)
{
	const struct lv_splice *s = lv_splice_at(lv, site);

	if (!s || !s->join_at || !s->join_top || s->join_depth >= GILK_JOIN_MAX ||
	    pending_at(lv, site))
		return false;
	splice_plan_join(p, site, s->region_len, lv->orig + s->orig, s->join_at,
			 s->join_top);
	return true;
}

/* One site; owner: name the splice that owns the bytes of an occupied one
 * (from the splices last learnt, which a single plan has just learnt; a
 * batch's many plans give their reasons alone). */
static int plan_site(struct live *lv, uint64_t site, unsigned flags, struct splice_plan *p,
		     bool owner, struct gerr *e)
{
	struct splice_env env;
	char where[128], who[256] = "";
	const char *lim;

	if (prepare(lv, site, &env, e))
		return -1;
	env.flags = flags;
	if (splice_plan(&env, site, p) == 0)
		return 0;
	if (p->reason == SR_OCCUPIED && plan_join(lv, site, p))
		return 0;
	if (!owner)
		return gerr_set(e, "%s", splice_reason_str(p->reason));
	symtab_format(lv->k.syms, p->reason_addr, where, sizeof(where));
	if (p->reason == SR_OCCUPIED && lv_splice_at(lv, site) &&
	    lv_splice_at(lv, site)->join_depth >= GILK_JOIN_MAX)
		return gerr_set(e, "cannot splice at 0x%llx: the site holds %d splices, the most a site takes (at %s)",
				(unsigned long long)site, GILK_JOIN_MAX, where);
	lim = splice_limit_str(p);
	if (p->reason == SR_OCCUPIED)
		lv_known_owner_text(lv, p->reason_addr, SPLICE_REGION_MAX, who, sizeof(who));
	return gerr_set(e, "cannot splice at 0x%llx: %s%s (at %s%s%s)",
			(unsigned long long)site, splice_reason_str(p->reason), who, where,
			lim ? ", where it cannot grow: " : "", lim ? lim : "");
}

int live_plan(struct live *lv, uint64_t site, unsigned flags,
	      struct splice_plan *p, struct gerr *e)
{
	return plan_site(lv, site, flags, p, true, e);
}

uint64_t live_block_site(struct live *lv, uint64_t addr)
{
	struct splice_env env;
	struct gerr e;

	if (prepare(lv, addr, &env, &e))
		return addr;
	return splice_site_for_block(&env, addr);
}

/* What gilk.ko says instrument needs (GILK_NEEDS_*): a full pt_regs
 * unless it says less, or the session asks for the full template. */
static uint32_t needs_of(struct live *lv, const char *instrument)
{
	struct gilk_instrument_info *list;
	uint32_t needs = GILK_NEEDS_REGS;
	struct gerr e;
	size_t n;

	if (lv->full_template || live_instruments(lv, &list, &n, &e))
		return GILK_NEEDS_REGS;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, instrument))
			needs = list[i].needs;
	free(list);
	return needs;
}

/* The name of the site's function, of the aliases at its address the one
 * the user named (symtab_prefer()): gilk.ko keeps it, and another process
 * shows the splice by it. */
static void site_name(struct live *lv, uint64_t site, struct gilk_splice *req)
{
	const struct ksym *f;

	if (!symtab_function(lv->k.syms, site, &f, NULL, NULL) &&
	    strlen(f->name) < sizeof(req->site_name))
		memcpy(req->site_name, f->name, strlen(f->name) + 1);
}

static int request_as(struct live *lv, const struct splice_plan *p,
		      const struct live_use *u, enum gilk_tramp_kind kind,
		      struct gilk_splice *req, size_t *reloc_off, uint64_t *tramp,
		      struct gerr *e)
{
	struct gilk_reserve r = {
		.tramp_size = (uint32_t)template_tramp_size(p, kind),
		.evict_size = (uint32_t)splice_evict_tramp_size(p),
		/* a BUG/WARN replay gets the full template, which calls */
		.flags = kind == GILK_TRAMP_TSC && p->bug == BUG_NONE ? GILK_RESERVE_TSC_RING : 0,
	};
	struct splice_params sp;
	struct splice_code code;
	enum splice_reason why;
	struct template t;

	const char *instrument = u->instrument, *arg = u->arg;

	if (strlen(instrument) >= GILK_NAME_MAX || (arg && strlen(arg) >= GILK_ARG_MAX))
		return gerr_set(e, "instrument name or argument too long");
	if (ioctl(lv->fd, GILK_IOC_RESERVE, &r) < 0) {
		/* the rings' budget is spent: the tsc instrument's C function
		 * records the same events through the full template */
		if (errno == EDQUOT && kind == GILK_TRAMP_TSC)
			return request_as(lv, p, u, GILK_TRAMP_FULL, req, reloc_off, tramp, e);
		return gerr_setc(e, errno, "reserving trampoline memory: %s", strerror(errno));
	}
	/* where the task's fields are out of the template's reach: a call */
	if (!template_init(&t, kind, &r, lv->smap, u->filter)) {
		ioctl(lv->fd, GILK_IOC_RELEASE, &r.id);
		return request_as(lv, p, u, GILK_TRAMP_SCRATCH, req, reloc_off, tramp, e);
	}
	sp = (struct splice_params){ .tramp = r.tramp, .evict_tramp = r.evict_tramp,
				     .header = &t.header };
	if (splice_emit(p, &sp, &code, &why)) {
		ioctl(lv->fd, GILK_IOC_RELEASE, &r.id);
		return gerr_set(e, "trampoline at 0x%llx: %s", (unsigned long long)r.tramp,
				splice_reason_str(why));
	}
	request_from_plan(p, &code, &r, kind, req);
	site_name(lv, p->region.addr, req);
	if (reloc_off)
		*reloc_off = code.reloc_off;
	if (tramp)
		*tramp = r.tramp;
	snprintf(req->instrument, sizeof(req->instrument), "%s", instrument);
	snprintf(req->arg, sizeof(req->arg), "%s", arg ? arg : "");
	if (u->filter)
		req->filter = *u->filter;
	if (u->fetch)
		req->fetch = *u->fetch;
	if (u->agg)
		req->agg = *u->agg;
	return 0;
}

int live_request(struct live *lv, const struct splice_plan *p,
		 const char *instrument, const char *arg,
		 struct gilk_splice *req, size_t *reloc_off, struct gerr *e)
{
	struct live_use u = { instrument, arg, NULL, NULL, NULL };

	return request_as(lv, p, &u, template_of(needs_of(lv, instrument), NULL, NULL, NULL), req,
			  reloc_off, NULL, e);
}

int live_splice_batch(struct live *lv, const struct splice_plan *plans,
		      size_t n, const char *instrument, const char *arg,
		      uint32_t *ids, struct gerr *e)
{
	struct live_use use = { instrument, arg, NULL, NULL, NULL };

	return live_splice_batch_uses(lv, plans, n, &use, 1, ids, e);
}

int live_splice_batch_uses(struct live *lv, const struct splice_plan *plans,
			   size_t n, const struct live_use *uses, size_t nuses,
			   uint32_t *ids, struct gerr *e)
{
	return live_splice_batch_made(lv, plans, n, uses, nuses, ids, NULL, e);
}

int live_splice_batch_made(struct live *lv, const struct splice_plan *plans,
			   size_t n, const struct live_use *uses, size_t nuses,
			   uint32_t *ids, uint64_t *tramps, struct gerr *e)
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
	uint32_t needs = GILK_NEEDS_REGS;

	for (; built < n; built++) {
		const struct live_use *u = &uses[nuses == n ? built : 0];

		if (!last || strcmp(last, u->instrument))
			needs = needs_of(lv, u->instrument);
		last = u->instrument;
		if (request_as(lv, &plans[built], u, template_of(needs, u->filter, u->fetch, u->agg), &reqs[built],
			       NULL, tramps ? &tramps[built] : NULL, e)) {
			rc = -1;
			break;
		}
	}
	if (!rc) {
		b.items = (uintptr_t)reqs;
		if (ioctl(lv->fd, n == 1 ? GILK_IOC_SPLICE : GILK_IOC_SPLICE_BATCH,
			  n == 1 ? (void *)reqs : (void *)&b) < 0) {
			const struct gilk_splice *bad = &reqs[b.failed < n ? b.failed : 0];
			const struct gilk_refusal_row *why = gilk_refusal_of(bad->refusal);

			err = errno;
			gerr_setc(e, err, "gilk.ko refused the splice at 0x%llx: %s (%s%s%s)",
				 (unsigned long long)bad->site,
				 bad->reason[0] ? bad->reason : strerror(err), why ? why->name : "",
				 why ? ": " : "", strerror(err));
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
	return lv_push_range(&lv->pending, &lv->npending, lo, hi);
}

int live_batch_begin(struct live *lv, const uint64_t *fns, size_t n, struct gerr *e)
{
	if (lv_learn_splices(lv, e))
		return -1;
	lv_learn_batch_facts(lv, fns, NULL, n);
	lv->batch = true;
	return 0;
}

void live_batch_facts(struct live *lv, const uint64_t *fns, size_t n)
{
	lv_learn_batch_facts(lv, fns, NULL, n);
}

void live_batch_end(struct live *lv)
{
	lv->batch = false;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int live_batch_spliced(struct live *lv, const struct splice_plan *plans, size_t n,
		       struct gerr *e)
{
	size_t old = lv->noccupied, k, i, j, w;
	struct range *tail;
	int rc = 0;

	for (size_t p = 0; p < n && !rc; p++) {
		const struct splice_plan *pl = &plans[p];

		rc |= lv_push_range(&lv->occupied, &lv->noccupied, pl->region.addr,
				    pl->region.addr + pl->region.len);
		if (pl->mode == SPLICE_BOUNCE)
			rc |= lv_push_range(&lv->occupied, &lv->noccupied, pl->slot, pl->slot + 5);
		if (pl->bounce_kind == BOUNCE_EVICT)
			rc |= lv_push_range(&lv->occupied, &lv->noccupied, pl->evict.addr,
					    pl->evict.addr + pl->evict.len);
	}
	k = lv->noccupied - old;
	tail = k ? malloc(k * sizeof(*tail)) : NULL;
	if (rc || (k && !tail)) {
		free(tail);
		/* what is there stays sorted; the next look at gilk.ko's
		 * splices outside a batch learns them all again
		 */
		lv->noccupied = old;
		lv->splices_sig = 0;
		return gerr_setc(e, ENOMEM, "out of memory");
	}
	/* sorted, then merged in from the top: a batch in address order
	 * moves few of those before it */
	memcpy(tail, lv->occupied + old, k * sizeof(*tail));
	qsort(tail, k, sizeof(*tail), cmp_range);
	for (i = old, j = k, w = old + k; j > 0; ) {
		if (i > 0 && lv->occupied[i - 1].start > tail[j - 1].start)
			lv->occupied[--w] = lv->occupied[--i];
		else
			lv->occupied[--w] = tail[--j];
	}
	free(tail);
	return 0;
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

	if (!order || (outer && lv_learn_splices(lv, &e))) {
		free(order);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_site_index, (void *)sites);
	lv_learn_batch_facts(lv, sites, order, n);
	lv->batch = true;
	lv->npending = lv->pending_first = 0;
	for (size_t o = 0; o < n; o++) {
		size_t i = order[o];
		const struct splice_plan *p = &plans[i];
		int rc = 0;

		ok[i] = plan_site(lv, sites[i], flags, &plans[i], false, &e) == 0;
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
