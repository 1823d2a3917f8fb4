// SPDX-License-Identifier: GPL-2.0
/*
 * Several splices at one site (GILK_SPLICE_JOIN), as kprobes aggregate
 * probes at one address. The site's splices are a chain of trampolines:
 * the jmp at the first splice's join_at (the site, or the bounce slot its
 * jmp rel8 reaches) leads to the top one's; each joined splice's trampoline
 * is its template's header and a jmp to the one below; the first splice's,
 * the base's, replays the site's code and jumps back. Each splice keeps its
 * own instrument, filter, counts and removal.
 *
 * A splice joins at the top: the jmp at join_at is rewritten by the patch
 * protocol as any live patch is, its orig the jmp to the old top. Removing
 * some of a site's splices rewrites the jumps that led to them (the one at
 * join_at, the tail of a trampoline above) with the same int3 steps, one
 * run and one grace period for every site of a batch, before their
 * trampolines are freed. The base holds the site's code: removed while
 * others stay, it becomes a husk (unlisted, its call into gilk returns at
 * once, its inline count counts for no one), and goes, the site's bytes
 * put back, with the last of them. Everything here runs under gilk_lock,
 * which a removal lets go across its grace period, the chains it rewrites
 * marked taking so that nothing else changes them meanwhile.
 */
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gilk_internal.h"

struct gilk_splice_obj *gilk_join_base(struct gilk_splice_obj *s)
{
	return s->base ? s->base : s;
}

static struct gilk_splice_obj *base_of(struct gilk_splice_obj *s)
{
	return gilk_join_base(s);
}

static const struct gilk_splice_obj *top_of(const struct gilk_splice_obj *s)
{
	for (s = s->base ? s->base : s; s->above; s = s->above)
		;
	return s;
}

bool gilk_joined(const struct gilk_splice_obj *s)
{
	return s->base || s->above;
}

bool gilk_join_busy(struct gilk_splice_obj *s)
{
	struct gilk_splice_obj *m = base_of(s);

	if (m->joining || m->taking)
		return true;
	for (; m; m = m->above)
		if (m->state == GILK_SPLICING || m->state == GILK_UNSPLICING)
			return true;
	return false;
}

/*
 * What every splice of the chain expects at join_at (gilk_still_own(), the
 * protocol's checks): the jmp to the top.
 */
static void set_chain_jmp(struct gilk_splice_obj *b, unsigned long to)
{
	struct gilk_splice_obj *m;
	u32 k;

	for (k = 0; k < b->npatch; k++) {
		struct gilk_patch_state *p = &b->patch[k];

		if (p->addr <= b->join_at && b->join_at + GILK_JMP32_LEN <= p->addr + p->len)
			gilk_arch_jmp(p->bytes + (b->join_at - p->addr), b->join_at, to);
	}
	for (m = b->above; m; m = m->above)
		gilk_arch_jmp(m->patch[0].bytes, b->join_at, to);
}

static u32 depth(const struct gilk_splice_obj *b)
{
	u32 n = 0;

	for (; b; b = b->above)
		n += !b->husk;
	return n;
}

int gilk_join_check(struct gilk_splice_obj *s, struct gilk_splice *req,
		    struct gilk_splice_obj *base, u32 needs, struct gilk_walk_memo *memo)
{
	struct gilk_why *why = &GILK_WHY(req);
	const struct gilk_patch *p = &req->patch[0];
	const struct gilk_splice_obj *top;
	u8 exp[GILK_JMP32_LEN];

	if ((req->flags & ~(GILK_SPLICE_JOIN | GILK_SPLICE_FULL)) || req->npatch != 1 ||
	    req->evict_len || p->len != GILK_JMP32_LEN || p->kind != GILK_PATCH_LIVE)
		return gilk_refuse(why, GILK_REFUSED_MALFORMED,
				   "malformed request to join the splices at %pS", (void *)req->site);
	if (!base)
		return gilk_refuse(why, GILK_REFUSED_NOT_JOINABLE, "nothing is spliced at %pS to join",
				   (void *)req->site);
	if (base->site != req->site)
		return gilk_refuse(why, GILK_REFUSED_NOT_JOINABLE,
				   "splice %u at %pS owns bytes at %pS: a splice joins those at its own site",
				   base->id, (void *)base->site, (void *)req->site);
	if (!base->join_at)
		return gilk_refuse(why, GILK_REFUSED_NOT_JOINABLE,
				   "splice %u at %pS is in trap mode (an int3, no jmp): it takes no other",
				   base->id, (void *)base->site);
	if (base->region_len != req->region_len ||
	    memcmp(base->region_orig, req->region_orig, base->region_len))
		return gilk_refuse(why, GILK_REFUSED_MALFORMED, "the region is not splice %u's",
				   base->id);
	if ((base->state != GILK_ACTIVE && base->state != GILK_HUSK) || gilk_join_busy(base))
		return gilk_refuse(why, GILK_REFUSED_NOT_JOINABLE,
				   "the splices at %pS are on their way in or out; try again",
				   (void *)req->site);
	if (depth(base) >= GILK_JOIN_MAX)
		return gilk_refuse(why, GILK_REFUSED_NOT_JOINABLE,
				   "the site %pS holds %u splices already, the most it takes",
				   (void *)req->site, GILK_JOIN_MAX);
	top = top_of(base);
	gilk_arch_jmp(exp, base->join_at, top->tramp);
	if (p->addr != base->join_at || memcmp(p->orig, exp, sizeof(exp)))
		return gilk_refuse(why, GILK_REFUSED_CHANGED,
				   "the splices at %pS changed since the request was made",
				   (void *)req->site);
	return gilk_verify_request(s, req, needs, memo, top->tramp);
}

void gilk_join_claim(struct gilk_splice_obj *s, struct gilk_splice_obj *base)
{
	s->base = base;
	base->joining = s;
}

void gilk_join_unclaim(struct gilk_splice_obj *s)
{
	if (s->base)
		s->base->joining = NULL;
	s->base = NULL;
}

/* Its jmp is in: it is the top. */
void gilk_join_done(struct gilk_splice_obj *s)
{
	struct gilk_splice_obj *b = s->base, *top;

	if (!b)
		return;
	for (top = b; top->above; top = top->above)
		;
	s->below = top;
	top->above = s;
	b->joining = NULL;
	set_chain_jmp(b, s->tramp);
}

void gilk_join_info(const struct gilk_splice_obj *s, struct gilk_splice_info *out)
{
	const struct gilk_splice_obj *b = s->base ? s->base : s;

	u32 k;

	/*
	 * The site's bytes are the first splice's, kept while any of its
	 * splices is: each says what they were (a husk is not listed)
	 */
	if (s->base) {
		out->flags |= GILK_SPLICE_JOIN;
		out->npatch = b->npatch;
		for (k = 0; k < b->npatch; k++) {
			out->patch[k].addr = b->patch[k].addr;
			out->patch[k].len = b->patch[k].len;
			memcpy(out->patch[k].orig, b->patch[k].orig, sizeof(out->patch[k].orig));
		}
	}
	out->join_at = b->join_at;
	out->join_top = b->join_at ? top_of(b)->tramp : 0;
	out->join_depth = depth(b);
	out->below = s->below && !s->below->husk ? s->below->id : 0;
}

static bool leaving(const struct gilk_splice_obj *m)
{
	return m->state == GILK_UNSPLICING || m->husk;
}

/* Where a trampoline's jmp to the one below it is: its last bytes. */
static unsigned long tail_of(const struct gilk_splice_obj *m)
{
	return m->tramp + m->tramp_len - GILK_JMP32_LEN;
}

static void add_rewrite(struct gilk_rewrite *w, unsigned int *n, unsigned long at,
			unsigned long to)
{
	w[*n].addr = at;
	w[*n].divert = to;
	gilk_arch_jmp(w[*n].bytes, at, to);
	(*n)++;
}

/*
 * The jumps that change when the leaving splices of b's chain go: into
 * w[*n...]. Returns whether any of its splices stays (b is kept then, as a
 * husk if it is leaving).
 */
static bool plan_chain(struct gilk_splice_obj *b, struct gilk_rewrite *w, unsigned int *n)
{
	const struct gilk_splice_obj *top = top_of(b);
	struct gilk_splice_obj *m, *prev = b;
	bool stays = false;

	for (m = b->above; m; m = m->above) {
		if (leaving(m))
			continue;
		stays = true;
		if (m->below != prev)
			add_rewrite(w, n, tail_of(m), prev->tramp);
		prev = m;
	}
	if (prev != top)
		add_rewrite(w, n, b->join_at, prev->tramp);
	return stays;
}

/* The chain as plan_chain() rewrote it; the leaving joined splices out of it. */
static void relink_chain(struct gilk_splice_obj *b)
{
	struct gilk_splice_obj *m = b->above, *next, *prev = b;

	b->above = NULL;
	for (; m; m = next) {
		next = m->above;
		m->above = NULL;
		if (leaving(m)) {
			m->below = NULL;
			continue;
		}
		m->below = prev;
		prev->above = m;
		prev = m;
	}
	set_chain_jmp(b, prev->tramp);
}

/*
 * A base removed while others stay: its call into gilk returns at once
 * (gilk_entry() reads husk first), its inline count counts on, for no one.
 * After the grace period, what only its instrument used goes.
 */
static void husk_settle(struct gilk_splice_obj *b)
{
	/* what its ring holds from before is its own; what comes after, no one's */
	gilk_tsc_ring_drain(b, false);
	xa_clear_mark(&gilk_splices, b->id, GILK_MARK_TSC_RING);
	gilk_instrument_put(b->ins);
	b->ins = NULL;
	gilk_obj_drop_program(b);
}

/* Splices abandoned after a window, dropped once nothing runs their call. */
static void drop_gone(struct gilk_splice_obj **gone, u32 n)
{
	u32 i;

	if (!n)
		return;
	/* their trampolines skip gilk now; no task is still in gilk_entry() for them after this */
	gilk_text_unlock();
	mutex_unlock(&gilk_lock);
	synchronize_rcu_tasks();
	mutex_lock(&gilk_lock);
	for (i = 0; i < n; i++)
		gilk_splice_drop(gone[i]);
	gilk_text_lock();
}

static u32 take_some(struct gilk_splice_obj **objs, u32 n, struct gilk_rewrite *w)
{
	unsigned int nw = 0;
	u32 i, kept = 0;

	for (i = 0; i < n; i++) {
		struct gilk_splice_obj *b = base_of(objs[i]);

		if (!gilk_joined(objs[i]) || b->chain_seen)
			continue;
		b->chain_seen = true;
		b->taking = true;
		/* a leaving base that others outlive: its gilk_entry() returns
		 * at once from now; it stays UNSPLICING until settled
		 */
		if (plan_chain(b, w, &nw) && leaving(b))
			WRITE_ONCE(b->husk, true);
	}
	gilk_patch_rewrite(w, nw);
	for (i = 0; i < n; i++) {
		struct gilk_splice_obj *b = base_of(objs[i]);

		if (b->chain_seen) {
			b->chain_seen = false;
			relink_chain(b);
		}
	}
	/*
	 * No task is in the trampolines left behind after this, nor in a
	 * husk's gilk_entry(). Meanwhile the chains are marked taking, and
	 * gilk_join_busy() keeps joins, unsplices and unloads off them.
	 */
	gilk_text_unlock();
	mutex_unlock(&gilk_lock);
	synchronize_rcu_tasks();
	mutex_lock(&gilk_lock);
	for (i = 0; i < n; i++)
		base_of(objs[i])->taking = false;
	/*
	 * What the protocol run back puts back: the splices alone at their
	 * site, and a husk whose last joined splice left, in that one's place.
	 * A freed trampoline is filled with int3 under text_mutex: the text
	 * lock is taken again after.
	 */
	for (i = 0; i < n; i++) {
		struct gilk_splice_obj *s = objs[i], *b = base_of(s);

		if (s->base) {
			s->base = NULL;
			if (b->husk && !b->above && b->state == GILK_HUSK) {
				b->state = GILK_UNSPLICING;	/* it goes now, as any splice */
				objs[kept++] = b;
			}
			gilk_splice_drop(s);
		} else if (s->husk && s->state == GILK_UNSPLICING && s->above) {
			husk_settle(s);
			s->state = GILK_HUSK;
		} else {
			objs[kept++] = s;
		}
	}
	gilk_text_lock();
	return kept;
}

/*
 * The text lock was let go across a wait: a kprobe may have come on bytes
 * the protocol run back would now put back under it. Those of objs[0..n)
 * are abandoned, as an unload abandons a splice another patcher holds; the
 * others are moved to the front, their number returned.
 */
static u32 still_theirs(struct gilk_splice_obj **objs, u32 n)
{
	u32 i, kept = 0, gone = 0;

	for (i = 0; i < n; i++) {
		struct gilk_splice_obj *s = objs[i];

		if (gilk_still_own(s)) {
			objs[kept++] = s;
		} else {
			gilk_abandon(s);
			objs[n - 1 - gone++] = s;
		}
	}
	drop_gone(objs + n - gone, gone);
	return kept;
}

u32 gilk_join_take(struct gilk_splice_obj **objs, u32 n)
{
	struct gilk_rewrite *w;
	u32 i, kept = 0;
	bool any = false;

	for (i = 0; i < n && !any; i++)
		any = gilk_joined(objs[i]);
	if (!any)
		return n;
	/* at most two jumps change for each splice that leaves */
	w = kvmalloc_array(2 * (size_t)n + 1, sizeof(*w), GFP_KERNEL | __GFP_NOWARN);
	if (w) {
		kept = take_some(objs, n, w);
		kvfree(w);
		return still_theirs(objs, kept);
	}
	/*
	 * Short of memory: the splices of each site on their own, each with a
	 * grace period of its own (a chain rewrites at most one jump for each
	 * of its splices and the one into it)
	 */
	for (i = 0; i < n; i++) {
		struct gilk_rewrite one[GILK_JOIN_MAX + 1];
		struct gilk_splice_obj *s = objs[i];

		if (!gilk_joined(s) || take_some(&s, 1, one))
			objs[kept++] = s;
	}
	return still_theirs(objs, kept);
}
