// SPDX-License-Identifier: GPL-2.0
/*
 * The code checker (see verify.h). For every byte proposed it derives what
 * gilk itself would accept there and compares: the relocation of an
 * instruction has one faithful form, so "the same instructions in the same
 * order, each relocated as documented" is checked byte for byte. Here, the
 * request whole: its lengths, the bytes written at the site, a bounce slot
 * or an evicted neighbour, and the trampoline's header; the relocation and
 * the walk are verify_reloc.c's and verify_walk.c's, what all three share
 * verify_ctx.c's.
 */
#include "verify_ctx.h"

static bool overlap(unsigned long a, u32 alen, unsigned long b, u32 blen)
{
	return a < b + blen && b < a + alen;
}

/* The site: `jmp rel32` to the trampoline, or `jmp rel8` to slot; int3 after. */
static int check_site_patch(struct vctx *v, u32 idx, unsigned long slot)
{
	const struct gilk_splice *req = v->req;
	const struct gilk_patch *p = &req->patch[idx];
	const char *part = idx ? "patch1" : "patch0";
	u8 exp[GILK_PATCH_MAX_LEN];
	long d = (long)(slot - (req->site + JMP8));
	u32 i;

	if (p->addr != req->site || p->len != req->region_len ||
	    p->kind != GILK_PATCH_LIVE || memcmp(p->orig, req->region_orig, p->len))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, part, 0, "not the site's patch, last");
	if (p->divert != v->env->tramp)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, part, 0, "the int3 divert must go to the trampoline");
	memset(exp, 0xcc, sizeof(exp));
	if (slot) {
		if (p->len < JMP8)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, part, 0, "no room for a jmp rel8");
		exp[0] = 0xeb;
		exp[1] = (u8)d;
		if (d < -128 || d > 127)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, part, 1, "the bounce slot is out of rel8 reach");
	} else if (p->len < JMP32 || !jmp32(exp, req->site, v->env->tramp)) {
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, part, 0, "no room or no reach for a jmp rel32");
	}
	for (i = 0; i < p->len; i++)
		if (p->bytes[i] != exp[i])
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, part, i, "not the site's jmp and int3 fill");
	return 0;
}

/* A 5-byte slot in dead padding: `jmp rel32` to the trampoline. */
static int check_slot(struct vctx *v)
{
	const struct gilk_patch *p = &v->req->patch[0];
	u8 exp[JMP32];
	u32 i;

	if (p->len != JMP32 || v->req->evict_len ||
	    overlap(p->addr, p->len, v->req->site, v->req->region_len))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", 0, "a bounce slot is 5 bytes apart from the region");
	if (!jmp32(exp, p->addr, v->env->tramp))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", 0, "the trampoline is out of the slot's reach");
	for (i = 0; i < JMP32; i++)
		if (p->bytes[i] != exp[i])
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", i, "not a jmp rel32 to the trampoline");
	return gilk_vwalk(v, "patch0", p->addr, p->addr + JMP32, true);
}

/*
 * An evicted neighbour: `jmp rel32` to its own trampoline (the relocation
 * of what it displaced), int3, and the slot's `jmp rel32` in its dead tail.
 */
static int check_evicted(struct vctx *v, unsigned long slot)
{
	const struct gilk_splice *req = v->req;
	const struct gilk_patch *p = &req->patch[0];
	u8 exp[GILK_PATCH_MAX_LEN];
	unsigned long so = slot - p->addr;
	u32 i;
	int ret;

	if (p->divert != v->env->evict_tramp)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", 0, "the int3 divert must go to the evicted trampoline");
	if (overlap(p->addr, p->len, req->site, req->region_len) ||
	    slot < p->addr + JMP32 || so + JMP32 > p->len)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", 0, "the slot must lie in the evicted region's dead tail");
	ret = gilk_vwalk(v, "patch0", p->addr, p->addr + 1, false);
	if (ret)
		return ret;
	memset(exp, 0xcc, sizeof(exp));
	if (!jmp32(exp, p->addr, v->env->evict_tramp) ||
	    !jmp32(exp + so, slot, v->env->tramp))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", 0, "a trampoline out of reach");
	for (i = 0; i < p->len; i++)
		if (p->bytes[i] != exp[i])
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", i, "not the evicted region's jmp, int3 fill and slot");
	return gilk_vcheck_relocated(v, "evicted", 0, p->addr, p->orig, p->len, false,
			       req->evict, req->evict_len, v->env->evict_tramp);
}

/*
 * The header of the template the request gets (gilk_tramp.h) at the start of the
 * trampoline: its length, or -1 with the offset of the first byte refused.
 * The template is what the instrument, the filter and the fetch need
 * together (uapi gilk_filter_needs(), gilk_fetch_needs(), gilk_agg_needs());
 * a count whose filter is one test of the task may
 * have it inline instead (count_task). Inline templates keep the flags
 * unless they are dead at the site, which the checker finds out for
 * itself; saving them where they are dead is only slower. Tsc needs the
 * ring its code writes, reserved with the splice.
 */
static int check_header(struct vctx *v, enum gilk_tramp_kind *kind)
{
	const struct gilk_splice *req = v->req;
	const struct gilk_verify_env *env = v->env;
	struct gilk_tramp_params tp = {
		.kind = gilk_tramp_kind(gilk_agg_needs(&req->agg,
						       gilk_fetch_needs(&req->fetch,
									gilk_filter_needs(&req->filter,
											  env->needs))),
					req->flags),
		.tramp = env->tramp, .site = req->site, .ctx = env->ctx,
		.handler = env->handler, .clac = env->clac, .counter = env->counter,
		.ring = env->ring, .cpu_number = env->cpu_number,
		.preempt_count = env->preempt_count, .current_task = env->current_task,
		.task_pid = env->task_pid,
	};
	struct gilk_task_offsets off = { env->task_pid, env->task_tgid, env->task_comm };
	enum gilk_tramp_kind kinds[2];
	u8 exp[GILK_TRAMP_HEADER_MAX];
	size_t hlen, i, best = 0;
	bool dead = gilk_flags_dead(env, req->site);
	int k, n = 0;

	if (tp.kind == GILK_TRAMP_TSC && !env->ring)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_TRAMPOLINE, "trampoline", 0,
			      "the tsc template needs a reservation with a tsc ring");
	if (req->filter.len && !req->fetch.len && !req->agg.kind &&
	    env->needs == GILK_NEEDS_NOTHING &&
	    !(req->flags & (GILK_SPLICE_FULL | GILK_SPLICE_BUG)) &&
	    gilk_tramp_task_test(&tp, &req->filter, &off))
		kinds[n++] = GILK_TRAMP_COUNT_TASK;
	kinds[n++] = tp.kind;
	for (k = 0; k < n; k++) {
		tp.kind = kinds[k];
		if (gilk_tramp_inline(tp.kind) && !dead)
			tp.kind = gilk_tramp_flags_kept(tp.kind);
		for (;;) {
			hlen = gilk_tramp_header(exp, &tp);
			for (i = 0; i < hlen && i < req->tramp_len && req->tramp[i] == exp[i]; i++)
				;
			if (i == hlen) {
				*kind = tp.kind;
				return (int)hlen;
			}
			if (i > best)
				best = i;
			if (gilk_tramp_flags_kept(tp.kind) == tp.kind)
				break;
			tp.kind = gilk_tramp_flags_kept(tp.kind);
		}
	}
	gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_TRAMPOLINE, "trampoline", (u32)best, "not gilk's trampoline header");
	return -1;
}

/*
 * A splice joining those at its site: gilk's header, then a jmp rel32 to the
 * trampoline the site led to, and nothing else; its one patch, the jmp
 * into the chain, rewritten to lead to it. Where that jmp is and what it
 * holds now, the caller checks against the site's splices. Nothing else
 * of the kernel's changes, so there is nothing to walk.
 */
static int verify_joined(struct vctx *v, enum gilk_tramp_kind *kind)
{
	const struct gilk_splice *req = v->req;
	const struct gilk_patch *p = &req->patch[0];
	u8 exp[JMP32];
	int hlen;
	u32 i;

	if (req->npatch != 1 || req->evict_len || p->len != JMP32 ||
	    p->kind != GILK_PATCH_LIVE || !v->env->join_to ||
	    (req->flags & (GILK_SPLICE_TRAP | GILK_SPLICE_BUG)))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_REQUEST, "request", 0,
				    "a joining splice has one live 5-byte patch, no trap, no BUG replay");
	hlen = check_header(v, kind);
	if (hlen < 0)
		return -EBADMSG;
	if (req->tramp_len != hlen + JMP32 ||
	    !jmp32(exp, v->env->tramp + hlen, v->env->join_to))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_TRAMPOLINE, "trampoline", hlen,
				    "a joining trampoline ends its header with a jmp on, and nothing else");
	for (i = 0; i < JMP32; i++)
		if (req->tramp[hlen + i] != exp[i])
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_TRAMPOLINE, "trampoline",
					    hlen + i, "not a jmp to the trampoline the site led to");
	if (p->divert != v->env->tramp)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", 0,
				    "the int3 divert must go to the trampoline");
	if (!jmp32(exp, p->addr, v->env->tramp))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", 0,
				    "the trampoline is out of the jmp's reach");
	for (i = 0; i < JMP32; i++)
		if (p->bytes[i] != exp[i])
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_PATCH, "patch0", i,
					    "not a jmp rel32 to the trampoline");
	return 0;
}

int gilk_verify(const struct gilk_splice *req,
		const struct gilk_verify_env *env, struct gilk_why *why,
		enum gilk_tramp_kind *kind)
{
	struct vctx v = { .req = req, .env = env, .why = why };
	unsigned long slot;
	int ret, hlen;
	u32 i;

	if (req->tramp_len > GILK_TRAMP_MAX || req->evict_len > GILK_TRAMP_MAX ||
	    !req->region_len || req->region_len > GILK_PATCH_MAX_LEN ||
	    req->npatch > GILK_MAX_PATCHES)
		return gilk_vrefuse(&v, GILK_REFUSED_UNVERIFIED_REQUEST, "request", 0, "lengths out of range");
	for (i = 0; i < req->npatch; i++)
		if (!req->patch[i].len || req->patch[i].len > GILK_PATCH_MAX_LEN)
			return gilk_vrefuse(&v, GILK_REFUSED_UNVERIFIED_REQUEST, "request", 0, "patch %u's length out of range", i);
	v.region = req->site;
	v.region_len = req->region_len;
	if (req->flags & GILK_SPLICE_JOIN)
		return verify_joined(&v, kind);
	if (req->npatch == 2) {
		v.slot = req->site + JMP8 + (s8)req->patch[1].bytes[1];
		if (req->patch[0].kind == GILK_PATCH_LIVE) {
			v.evicted = req->patch[0].addr;
			v.evicted_len = req->patch[0].len;
		}
	}
	hlen = check_header(&v, kind);
	if (hlen < 0)
		return -EBADMSG;
	ret = gilk_vcheck_bounds(&v);
	if (!ret)
		ret = gilk_vwalk(&v, "site", req->site, req->site + 1, false);
	if (!ret)
		ret = gilk_vcheck_relocated(&v, "trampoline", hlen, req->site, req->region_orig,
				      req->region_len, req->flags & GILK_SPLICE_BUG,
				      req->tramp + hlen, req->tramp_len - hlen,
				      env->tramp + hlen);
	if (ret)
		return ret;
	switch (req->npatch) {
	case 0:
		if (!(req->flags & GILK_SPLICE_TRAP) || req->evict_len)
			return gilk_vrefuse(&v, GILK_REFUSED_UNVERIFIED_REQUEST, "request", 0, "no patch, and not trap mode");
		return 0;	/* the int3 alone: the rest of the region stays */
	case 1:
		if (req->evict_len)
			return gilk_vrefuse(&v, GILK_REFUSED_UNVERIFIED_REQUEST, "evicted", 0, "an evicted trampoline without an evicted region");
		ret = check_site_patch(&v, 0, 0);
		break;
	default:
		/* host of the bounce slot first, the site last */
		slot = req->site + JMP8 + (s8)req->patch[1].bytes[1];
		ret = check_site_patch(&v, 1, slot);
		if (ret)
			return ret;
		if (req->patch[0].kind == GILK_PATCH_DEAD)
			ret = slot == req->patch[0].addr ? check_slot(&v) :
			      gilk_vrefuse(&v, GILK_REFUSED_UNVERIFIED_PATCH, "patch1", 1, "the jmp rel8 misses the slot");
		else if (req->patch[0].kind == GILK_PATCH_LIVE)
			ret = check_evicted(&v, slot);
		else
			ret = gilk_vrefuse(&v, GILK_REFUSED_UNVERIFIED_REQUEST, "patch0", 0, "unknown patch kind");
		break;
	}
	return ret ? ret : gilk_vcheck_edges(&v);
}
