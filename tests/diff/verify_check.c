/* The code checker against every plan and its mutations (see verify_check.h). */
#include "verify_check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "emu.h"
#include "gen.h"
#include "kverify.h"
#include "request.h"
#include "template.h"

enum mutation {
	MUT_BYTE,        /* one byte of the relocated code changed */
	MUT_INSERT,      /* an instruction added among the relocated ones */
	MUT_REMOVE,      /* a relocated instruction removed */
	MUT_SWAP,        /* two relocated instructions swapped */
	MUT_TARGET,      /* a branch target, displacement or the jump back moved */
	MUT_SLOT_LIVE,   /* the bounce slot moved over live code */
	MUT_DIVERT,      /* the int3 divert sent elsewhere */
	MUT_HEADER,      /* one byte of the trampoline header changed */
	MUT_TRAILING,    /* bytes after the relocated code */
	MUT_SITE_PATCH,  /* one byte of the site's jmp or its int3 fill changed */
	MUT_EVICT_BYTE,  /* one byte of an evicted neighbour's trampoline changed */
	MUT_NKINDS
};

static const char *const names[MUT_NKINDS] = {
	"byte", "insert", "remove", "swap", "target", "slot-over-live-code",
	"divert", "header", "trailing", "site-patch", "evicted-byte",
};

const char *vc_mutation_name(unsigned kind)
{
	return kind < MUT_NKINDS ? names[kind] : "?";
}

unsigned vc_mutation_kinds(void)
{
	return MUT_NKINDS;
}

static int text_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct vc_text *t = priv;

	for (size_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		const uint8_t *b = t->byte(t->ctx, a);

		if (!b)
			return -1;
		((uint8_t *)buf)[i] = a >= t->flip_at && a < t->flip_at + t->flip_len ?
				      t->flip[a - t->flip_at] : *b;
	}
	return 0;
}

static uint64_t text_func_start(void *priv, uint64_t addr)
{
	const struct vc_text *t = priv;
	const struct ksym *s;

	if (!t->syms)
		return addr < t->func_start ? 0 : t->split && addr >= t->split ? t->split :
		       t->func_start;
	s = symtab_by_addr(t->syms, addr);
	return s ? s->addr : 0;
}

static uint64_t text_func_end(void *priv, uint64_t func)
{
	const struct vc_text *t = priv;
	const struct ksym *s;
	uint64_t lo, hi;

	if (!t->syms)
		return func == t->func_start ? (t->split ? t->split : t->func_end) :
		       t->split && func == t->split ? t->func_end : 0;
	return symtab_function(t->syms, func, &s, &lo, &hi) || lo != func ? 0 : hi;
}

/* Jump-label targets and exception fixup landings: the image's facts (which
 * hold every landing, whatever function its instruction is in). */
static bool text_hidden_edge(void *priv, uint64_t lo, uint64_t hi)
{
	const struct vc_text *t = priv;
	const uint64_t *first;

	return t->facts && lo < hi && textfacts_targets(t->facts, lo, hi, &first);
}

static enum kv_bug text_bug(void *priv, uint64_t addr)
{
	const struct vc_text *t = priv;

	switch (t->facts ? textfacts_bug(t->facts, addr) : BUG_NONE) {
	case BUG_BUG: return KV_BUG;
	case BUG_WARN: return KV_WARN;
	default: return KV_NOT_BUG;
	}
}

static bool text_jump_label(void *priv, uint64_t addr, uint32_t len)
{
	const struct vc_text *t = priv;

	return t->facts && textfacts_overlaps(t->facts, addr, addr + len, RES_JUMP_LABEL);
}

static bool text_fixup(void *priv, uint64_t addr, uint32_t len)
{
	const struct vc_text *t = priv;

	return t->facts && textfacts_overlaps(t->facts, addr, addr + len, RES_EXTABLE);
}

/* The instrument's needs that make gilk.ko pick template kind. */
static uint32_t needs_of(enum gilk_tramp_kind kind)
{
	return kind == GILK_TRAMP_COUNT || kind == GILK_TRAMP_COUNT_TASK ? GILK_NEEDS_NOTHING :
	       kind == GILK_TRAMP_TSC ? GILK_NEEDS_TSC :
	       kind == GILK_TRAMP_SCRATCH ? GILK_NEEDS_SCRATCH : GILK_NEEDS_REGS;
}

/* The template plan p gets as kind: full for a BUG/WARN replay, the
 * flags saved around an inline one unless the plan found them dead. */
static enum gilk_tramp_kind expected(const struct splice_plan *p, enum gilk_tramp_kind kind)
{
	if (p->bug != BUG_NONE)
		return GILK_TRAMP_FULL;
	return p->flags_dead ? kind : gilk_tramp_flags_kept(kind);
}

/*
 * A count plan whose flags the planner found live, emitted as if they were
 * dead: the checker must refuse it unless it finds them dead itself (its
 * walk may see further than the planner's CFG, which ends at the function).
 */
static void check_unsaved_flags(const struct splice_plan *p, const struct splice_params *sp,
				enum gilk_tramp_kind kind, const struct gilk_reserve *r,
				const struct gilk_filter *filter, const struct kv_env *env,
				struct vc_tally *t)
{
	static struct gilk_splice m;
	static struct splice_code c;
	struct splice_plan bad = *p;
	enum splice_reason why;
	char reason[GILK_REASON_MAX];

	bad.flags_dead = true;
	if (splice_emit(&bad, sp, &c, &why))
		return;
	request_from_plan(&bad, &c, r, kind, &m);
	if (filter)
		m.filter = *filter;
	t->unsaved++;
	if (kv_flags_dead(env, p->region.addr)) {
		t->unsaved_checker_dead++;
		return;
	}
	if (kv_verify(&m, env, reason, sizeof(reason), NULL) == -EBADMSG) {
		t->unsaved_refused++;
		return;
	}
	fprintf(stderr, "FAIL-DETAIL the checker accepts a %s trampoline without its pushfq at 0x%" PRIx64 ", where the flags are live\n",
		kind == GILK_TRAMP_TSC ? "tsc" : kind == GILK_TRAMP_COUNT_TASK ? "count_task" : "count",
		p->region.addr);
}

/* The code a vc_text without a callback of its own reads: a buffer. */
static const uint8_t *src_byte(void *ctx, uint64_t a)
{
	const struct { const uint8_t *base; uint64_t lo, hi; } *c = ctx;

	return a >= c->lo && a < c->hi ? c->base + (a - c->lo) : NULL;
}

static uint64_t rnd(uint64_t *rng, uint64_t n)
{
	return n ? rng_next(rng) % n : 0;
}

/* Boundaries of the relocated instructions in the trampoline, and its end. */
static size_t boundaries(const struct splice_plan *p, const struct splice_code *c,
			 size_t hlen, size_t *at)
{
	size_t n = 0;

	for (unsigned i = 0; i < p->region.ninsn; i++)
		if (c->insn_off[i] >= hlen && (n == 0 || c->insn_off[i] > at[n - 1]))
			at[n++] = c->insn_off[i];
	at[n] = c->tramp_len;
	return n;
}

static void put32(uint8_t *b, uint32_t v)
{
	memcpy(b, &v, 4);
}

/* An instruction of a block after the region, within the site's jmp8 reach
 * and clear of the plan's other bytes: live code. 0 when there is none. */
static uint64_t live_code_near(const struct splice_plan *p, const struct cfg *g)
{
	uint64_t end = p->region.addr + p->region.len;
	ssize_t i = g ? cfg_insn_at(g, end) : -1;

	for (; i >= 0 && (size_t)i < g->ninsn; i++) {
		uint64_t a = g->insns[i].addr;

		if (a + 5 > p->region.addr + 2 + 127)
			break;
		if (cfg_block_at(g, a) >= 0 &&
		    (p->bounce_kind != BOUNCE_EVICT ||
		     a + 5 <= p->evict.addr || a >= p->evict.addr + p->evict.len))
			return a;
	}
	return 0;
}

/*
 * Applies mutation kind to m (a copy of the request); false when it does
 * not apply to this plan.
 */
static bool mutate(unsigned kind, struct gilk_splice *m, const struct splice_plan *p,
		   const struct splice_code *c, size_t hlen, const struct kv_env *env,
		   const struct cfg *g, uint64_t *rng)
{
	size_t at[SPLICE_INSN_MAX + 1], n = boundaries(p, c, hlen, at), i, a, b;
	uint8_t tmp[SPLICE_TRAMP_MAX];

	switch (kind) {
	case MUT_BYTE:
		if (m->tramp_len <= hlen)
			return false;
		m->tramp[hlen + rnd(rng, m->tramp_len - hlen)] ^= (uint8_t)(1 + rnd(rng, 255));
		return true;
	case MUT_INSERT: {
		static const uint8_t ins[][3] = { { 0x90 }, { 0x48, 0x31, 0xc0 }, { 0xc3 }, { 0xcc } };
		const uint8_t *x = ins[rnd(rng, 4)];
		size_t len = x[0] == 0x48 ? 3 : 1;

		i = at[rnd(rng, n + 1)];
		if (m->tramp_len + len > GILK_TRAMP_MAX)
			return false;
		memmove(m->tramp + i + len, m->tramp + i, m->tramp_len - i);
		memcpy(m->tramp + i, x, len);
		m->tramp_len += (uint32_t)len;
		return true;
	}
	case MUT_REMOVE:
		if (!n)
			return false;
		i = rnd(rng, n);
		memmove(m->tramp + at[i], m->tramp + at[i + 1], m->tramp_len - at[i + 1]);
		m->tramp_len -= (uint32_t)(at[i + 1] - at[i]);
		return true;
	case MUT_SWAP:
		if (n < 2)
			return false;
		i = rnd(rng, n - 1);
		a = at[i + 1] - at[i];
		b = at[i + 2] - at[i + 1];
		memcpy(tmp, m->tramp + at[i + 1], b);
		memcpy(tmp + b, m->tramp + at[i], a);
		memcpy(m->tramp + at[i], tmp, a + b);
		return true;
	case MUT_TARGET: {
		/* the last rel32 or displacement of a relocated instruction,
		 * or the jump back: the last 4 bytes of the trampoline */
		size_t pos = m->tramp_len - 4;
		uint32_t v;

		for (i = 0; i < p->region.ninsn && i < n; i++) {
			const struct insn *in = &p->region.insns[i];

			if (in->disp_off && p->bug == BUG_NONE) {
				pos = at[i] + (in->kind == IK_CALL_IND ?
					       (at[i + 1] - at[i]) - in->len : 0) + in->disp_off;
				break;
			}
			if (insn_has_target(in) && p->bug == BUG_NONE) {
				pos = at[i + 1] - 4;
				break;
			}
		}
		if (m->tramp_len < hlen + 4 || pos < hlen)
			return false;
		memcpy(&v, m->tramp + pos, 4);
		put32(m->tramp + pos, v + (rnd(rng, 2) ? 1 : 0x1000));
		return true;
	}
	case MUT_SLOT_LIVE: {
		uint64_t s = live_code_near(p, g), site = m->site;
		uint8_t j[5] = { 0xe9 };
		long d8;

		if (p->mode != SPLICE_BOUNCE || !s)
			return false;
		d8 = (long)(s - (site + 2));
		if (d8 > 127 || env->read(env->priv, s, m->patch[0].orig, 5))
			return false;
		put32(j + 1, (uint32_t)(env->tramp - (s + 5)));
		m->patch[0].addr = s;
		m->patch[0].len = 5;
		m->patch[0].kind = GILK_PATCH_DEAD;
		memcpy(m->patch[0].bytes, j, 5);
		m->patch[1].bytes[1] = (uint8_t)d8;
		m->evict_len = 0;
		return true;
	}
	case MUT_DIVERT: {
		struct gilk_patch *pt = &m->patch[rnd(rng, m->npatch ? m->npatch : 1)];

		if (!m->npatch || pt->kind != GILK_PATCH_LIVE)
			return false;
		pt->divert = rnd(rng, 2) ? pt->divert + 1 + rnd(rng, 16) :
			     (pt->divert == env->tramp ? env->evict_tramp : env->tramp);
		return true;
	}
	case MUT_HEADER:
		m->tramp[rnd(rng, hlen)] ^= (uint8_t)(1 + rnd(rng, 255));
		return true;
	case MUT_TRAILING:
		if (m->tramp_len >= GILK_TRAMP_MAX)
			return false;
		m->tramp[m->tramp_len++] = rnd(rng, 2) ? 0x90 : 0xcc;
		return true;
	case MUT_SITE_PATCH: {
		struct gilk_patch *pt = &m->patch[m->npatch ? m->npatch - 1 : 0];

		if (!m->npatch)
			return false;
		pt->bytes[rnd(rng, pt->len)] ^= (uint8_t)(1 + rnd(rng, 255));
		return true;
	}
	case MUT_EVICT_BYTE:
		if (!m->evict_len)
			return false;
		m->evict[rnd(rng, m->evict_len)] ^= (uint8_t)(1 + rnd(rng, 255));
		return true;
	}
	return false;
}

void vc_memo_reset(struct vc_tally *t)
{
	if (t->memo)
		kv_memo_reset(t->memo);
	else
		t->memo = kv_memo_new();
}

void vc_memo_free(struct vc_tally *t)
{
	kv_memo_free(t->memo);
	kv_memo_free(t->memo_scratch);
	t->memo = t->memo_scratch = NULL;
}

/*
 * In the kernel a jump label may flip between two requests of a batch
 * (nop5 <-> jmp rel32, its length kept): the last such site of 5 bytes
 * before req's site is flipped, and the request checked on that text from
 * the start, and with a copy of the memory whose marks were made before.
 * The memory may refuse more, never less.
 */
static void verify_flipped(const struct gilk_splice *req, const struct kv_env *env,
			   const struct vc_text *text, struct vc_tally *t)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	struct vc_text flipped = *text;
	struct kv_env e2 = *env;
	char why[GILK_REASON_MAX], why2[GILK_REASON_MAX];
	const struct insn *label = NULL;
	int fresh, remembered;

	if (!text->facts || !t->memo)
		return;
	for (size_t i = 0; i < text->cfg->ninsn; i++) {
		const struct insn *in = &text->cfg->insns[i];

		if (in->addr >= req->site)
			break;
		if (in->len == 5 &&
		    textfacts_overlaps(text->facts, in->addr, in->addr + 1, RES_JUMP_LABEL))
			label = in;
	}
	if (!label)
		return;
	if (!t->memo_scratch && !(t->memo_scratch = kv_memo_new()))
		return;
	flipped.flip_at = label->addr;
	flipped.flip_len = 5;
	if (memcmp(label->bytes, nop5, 5)) {
		memcpy(flipped.flip, nop5, 5);
	} else {	/* a jmp to the function's end, as good as any */
		int32_t rel = (int32_t)(text->cfg->end - (label->addr + 5));

		flipped.flip[0] = 0xe9;
		memcpy(flipped.flip + 1, &rel, 4);
	}
	e2.priv = &flipped;
	e2.memo = NULL;
	fresh = kv_verify(req, &e2, why, sizeof(why), NULL);
	kv_memo_copy(t->memo_scratch, t->memo);
	e2.memo = t->memo_scratch;
	remembered = kv_verify(req, &e2, why2, sizeof(why2), NULL);
	t->flip_checks++;
	t->flip_refused += fresh != 0;
	if (!remembered && fresh && t->flip_looser++ < 5)
		fprintf(stderr, "FAIL-DETAIL with the jump label at 0x%" PRIx64 " flipped, the walk memory lets the request at 0x%" PRIx64 " pass: %s\n",
			label->addr, (uint64_t)req->site, why);
}

/*
 * kv_verify() as one request alone has it, and again as in a batch, with
 * the walk memory of the requests before: the two must agree, template and
 * reason included. Returns the first.
 */
static int verify_both(const struct gilk_splice *req, struct kv_env *env, char *why,
		       size_t len, enum gilk_tramp_kind *tmpl, struct vc_tally *t)
{
	char why2[GILK_REASON_MAX] = "";
	enum gilk_tramp_kind got2 = GILK_TRAMP_FULL;
	int ret, ret2;

	env->memo = NULL;
	ret = kv_verify(req, env, why, len, tmpl);
	if (!t->memo)
		return ret;
	env->memo = t->memo;
	ret2 = kv_verify(req, env, why2, sizeof(why2), &got2);
	env->memo = NULL;
	t->memo_checks++;
	verify_flipped(req, env, env->priv, t);
	if (ret != ret2 || (ret && strcmp(why, why2)) || (!ret && tmpl && *tmpl != got2)) {
		if (t->memo_differ++ < 5)
			fprintf(stderr, "FAIL-DETAIL the checker answers otherwise with a batch's walk memory at 0x%" PRIx64 ": %s / %s\n",
				(uint64_t)req->site, ret ? why : "accepted", ret2 ? why2 : "accepted");
	}
	return ret;
}

enum join_mutation {
	JM_TAIL,        /* a byte of the jmp on to the site's splices */
	JM_TRAILING,    /* a byte after it */
	JM_PATCH,       /* a byte of the jmp into the joining trampoline */
	JM_DIVERT,      /* the int3 divert sent elsewhere */
	JM_AT,          /* the jmp written one byte off */
	JM_HEADER,      /* a byte of the header */
	JM_TO,          /* the site's splices' trampoline is not the one it goes to */
	JM_NKINDS
};

/*
 * A second splice joining p's site, as if p's trampoline were the top of
 * the site's chain: the checker accepts its plan and refuses each of its
 * mutations.
 */
static void check_join(const struct splice_plan *p, const struct splice_params *sp,
		       const struct template *tpl, const struct gilk_filter *filter,
		       const struct kv_env *base_env, struct vc_tally *t)
{
	static struct gilk_splice req, m;
	struct splice_plan jp;
	struct splice_params jsp = *sp;
	struct splice_code code;
	enum splice_reason r;
	struct kv_env env = *base_env;
	struct gilk_reserve res = { .id = 2 };
	char why[GILK_REASON_MAX];
	size_t hlen;

	splice_plan_join(&jp, p->region.addr, p->region.len, p->region.orig,
			 p->mode == SPLICE_BOUNCE ? p->slot : p->region.addr, sp->tramp);
	jsp.tramp = sp->tramp + 0x3000;
	jsp.evict_tramp = 0;
	res.tramp = jsp.tramp;
	env.tramp = jsp.tramp;
	env.evict_tramp = 0;
	env.join_to = sp->tramp;
	if (splice_emit(&jp, &jsp, &code, &r)) {
		if (t->join_refused++ < 5)
			fprintf(stderr, "FAIL-DETAIL no joining plan emitted at 0x%" PRIx64 ": %s\n",
				p->region.addr, splice_reason_str(r));
		return;
	}
	request_from_plan(&jp, &code, &res, tpl->params.kind, &req);
	if (filter)
		req.filter = *filter;
	env.memo = NULL;
	if (kv_verify(&req, &env, why, sizeof(why), NULL)) {
		if (t->join_refused++ < 5)
			fprintf(stderr, "FAIL-DETAIL the checker refuses a splice joining the %s plan at 0x%" PRIx64 ": %s\n",
				splice_mode_name(p->mode), p->region.addr, why);
		return;
	}
	t->join_accepted++;
	hlen = code.reloc_off;
	for (unsigned k = 0; k < JM_NKINDS; k++) {
		struct kv_env menv = env;
		uint64_t at = rnd(&t->rng, 5);

		m = req;
		switch (k) {
		case JM_TAIL:
			m.tramp[hlen + at] ^= (uint8_t)(1 + rnd(&t->rng, 255));
			break;
		case JM_TRAILING:
			m.tramp[m.tramp_len++] = 0x90;
			break;
		case JM_PATCH:
			m.patch[0].bytes[at] ^= (uint8_t)(1 + rnd(&t->rng, 255));
			break;
		case JM_DIVERT:
			m.patch[0].divert += 1 + rnd(&t->rng, 64);
			break;
		case JM_AT:
			m.patch[0].addr++;
			break;
		case JM_HEADER:
			m.tramp[rnd(&t->rng, hlen)] ^= (uint8_t)(1 + rnd(&t->rng, 255));
			break;
		case JM_TO:
			menv.join_to += 1 + rnd(&t->rng, 64);
			break;
		}
		t->join_mutations++;
		if (kv_verify(&m, &menv, why, sizeof(why), NULL) == -EBADMSG &&
		    !strncmp(why, "unverified code at ", 19)) {
			t->join_mutations_refused++;
			continue;
		}
		if (t->join_mutations - t->join_mutations_refused <= 3)
			fprintf(stderr, "FAIL-DETAIL the checker accepts mutation %u of a splice joining the %s plan at 0x%" PRIx64 "\n",
				k, splice_mode_name(p->mode), p->region.addr);
	}
}

void vc_check_plan(const struct splice_plan *p, const struct splice_params *sp,
		   const struct template *tpl, const struct splice_code *code,
		   const struct gilk_filter *filter, const struct vc_text *text,
		   unsigned mutations, struct vc_tally *t)
{
	const struct gilk_tramp_params *tp = &tpl->params;
	uint64_t *rng = &t->rng;
	struct gilk_reserve r = { .id = 1, .tramp = sp->tramp,
				  .evict_tramp = code->evict_tramp_len ? sp->evict_tramp : 0 };
	struct kv_env env = {
		.tramp = sp->tramp, .evict_tramp = sp->evict_tramp,
		.handler = tp->handler, .ctx = tp->ctx, .clac = tp->clac,
		.read = text_read, .func_start = text_func_start,
		.func_end = text_func_end, .hidden_edge = text_hidden_edge,
		.bug_kind = text_bug, .jump_label = text_jump_label,
		.fixup = text_fixup, .priv = (void *)text,
		.needs = needs_of(tp->kind), .counter = tp->counter, .ring = tp->ring,
		.cpu_number = tp->cpu_number, .preempt_count = tp->preempt_count,
		.current_task = tp->current_task, .task_pid = tp->task_pid,
		.task_tgid = TASK_TGID_OFF,
		/* where the request's test reads comm: the harness keeps the
		 * task's names of each width at their own offsets */
		.task_comm = filter && filter->test[0].field == GILK_FF_COMM ?
			     tp->task_field : TASK_COMM_OFF,
	};
	bool inline_kind = tp->kind == GILK_TRAMP_COUNT || tp->kind == GILK_TRAMP_TSC ||
			   tp->kind == GILK_TRAMP_COUNT_TASK;
	static struct gilk_splice req, m;
	char why[GILK_REASON_MAX];
	size_t hlen = code->reloc_off;
	enum gilk_tramp_kind got;

	request_from_plan(p, code, &r, tp->kind, &req);
	if (filter)
		req.filter = *filter;
	if (verify_both(&req, &env, why, sizeof(why), &got, t)) {
		if (t->refused_plans++ < 10)
			fprintf(stderr, "FAIL-DETAIL the checker refuses a %s plan at 0x%" PRIx64 ": %s\n",
				splice_mode_name(p->mode), p->region.addr, why);
		return;
	}
	if (got != expected(p, tp->kind)) {
		if (t->refused_plans++ < 10)
			fprintf(stderr, "FAIL-DETAIL the checker took template %d for the plan at 0x%" PRIx64 ", not %d\n",
				got, p->region.addr, expected(p, tp->kind));
		return;
	}
	t->accepted++;
	t->by_template[got]++;
	if (p->mode != SPLICE_TRAP)
		check_join(p, sp, tpl, filter, &env, t);
	if (inline_kind && p->bug == BUG_NONE && !p->flags_dead)
		check_unsaved_flags(p, sp, tp->kind, &r, filter, &env, t);
	if (tp->kind == GILK_TRAMP_TSC && p->bug == BUG_NONE) {
		struct kv_env ringless = env;

		ringless.ring = 0;
		t->ringless++;
		if (kv_verify(&req, &ringless, why, sizeof(why), NULL) == -EBADMSG &&
		    strstr(why, "tsc ring"))
			t->ringless_refused++;
		else
			fprintf(stderr, "FAIL-DETAIL the checker accepts a tsc trampoline at 0x%" PRIx64 " with no ring reserved\n",
				p->region.addr);
	}
	for (unsigned k = 0; k < mutations; k++) {
		unsigned kind = (unsigned)rnd(rng, MUT_NKINDS);

		m = req;
		if (!mutate(kind, &m, p, code, hlen, &env, text->cfg, rng) || !memcmp(&m, &req, sizeof(m)))
			continue;
		t->mutations++;
		t->by_kind[kind]++;
		if (verify_both(&m, &env, why, sizeof(why), NULL, t) == -EBADMSG &&
		    !strncmp(why, "unverified code at ", 19)) {
			t->mutations_refused++;
			continue;
		}
		if (t->escaped_by_kind[kind]++ < 3) {
			uint8_t code[96];
			uint64_t lo = p->region.addr > 32 ? p->region.addr - 32 : 0;

			fprintf(stderr, "FAIL-DETAIL the checker accepts a %s mutation of the %s plan at 0x%" PRIx64 "\n",
				names[kind], splice_mode_name(p->mode), p->region.addr);
			if (!env.read(env.priv, lo, code, sizeof(code))) {
				fprintf(stderr, "    text at 0x%" PRIx64 ":", lo);
				for (size_t i = 0; i < sizeof(code); i++)
					fprintf(stderr, " %02x", code[i]);
				fprintf(stderr, "\n");
			}
			for (uint32_t i = 0; i < m.npatch; i++) {
				fprintf(stderr, "    patch %u at 0x%" PRIx64 " (%s):", i,
					(uint64_t)m.patch[i].addr,
					m.patch[i].kind == GILK_PATCH_DEAD ? "dead" : "live");
				for (uint32_t k = 0; k < m.patch[i].len; k++)
					fprintf(stderr, " %02x", m.patch[i].bytes[k]);
				fprintf(stderr, "\n");
			}
		}
	}
}

/* The checker's environment for hand-made code at GEN_BASE, read from text. */
static struct kv_env gen_kenv(struct vc_text *text)
{
	return (struct kv_env){
		.tramp = TRAMP_ADDR, .evict_tramp = EVICT_ADDR, .handler = STUB_ADDR,
		.ctx = INSTR_CTX, .read = text_read, .func_start = text_func_start,
		.func_end = text_func_end, .hidden_edge = text_hidden_edge,
		.bug_kind = text_bug, .jump_label = text_jump_label,
		.fixup = text_fixup, .priv = text,
	};
}

/* The full template's parameters for the generated functions: the handler
 * and its argument gen_kenv() gives the checker. */
static struct splice_params gen_params(struct template *t)
{
	const struct gilk_reserve r = { .tramp = TRAMP_ADDR, .evict_tramp = EVICT_ADDR,
					.handler = STUB_ADDR, .ctx = INSTR_CTX };

	template_init(t, GILK_TRAMP_FULL, &r, false, NULL);
	return (struct splice_params){ .tramp = r.tramp, .evict_tramp = r.evict_tramp,
				       .header = &t->header };
}

/*
 * VEX-encoded instructions whose opcode byte is a legacy branch's (vpor is
 * eb, vpavgb e0, vcmpps c2, vmovdqu 7f) must be copied, never taken for
 * jmp, loop, ret or jg: a plan over them passes, and one relocating vpor
 * as a jmp is refused.
 */
bool vc_vex_copied(char *why, size_t len)
{
	static const uint8_t code[] = {
		0xc5, 0xf1, 0xeb, 0xc2,                         /* vpor xmm0, xmm1, xmm2 */
		0xc5, 0xf1, 0xe0, 0xc2,                         /* vpavgb */
		0xc5, 0xf0, 0xc2, 0xc2, 0x00,                   /* vcmpps */
		0xc5, 0xfa, 0x7f, 0x05, 0x00, 0x10, 0x00, 0x00, /* vmovdqu [rip+0x1000] */
		0xc3,
	};
	uint8_t buf[GEN_MAX + 64];
	struct vc_text text = { .func_start = GEN_BASE, .func_end = GEN_BASE + GEN_MAX + 64 };
	struct code_src { const uint8_t *base; uint64_t lo, hi; } src = { buf, GEN_BASE, GEN_BASE + sizeof(buf) };
	struct template tpl;
	struct splice_params sp = gen_params(&tpl);
	struct gilk_reserve r = { .id = 1, .tramp = TRAMP_ADDR };
	static struct gilk_splice req;
	static struct splice_code c;
	struct decoder *dec;
	struct splice_plan p;
	struct cfg g;
	struct gerr e;
	enum splice_reason bad;
	bool ok = false;

	memset(buf, 0xcc, sizeof(buf));
	memcpy(buf, code, sizeof(code));
	memset(&g, 0, sizeof(g));
	if (decoder_open(&dec, &e) ||
	    cfg_build(&g, dec, buf, GEN_BASE, GEN_BASE + sizeof(code), NULL, 0, &e)) {
		snprintf(why, len, "no CFG: %s", e.msg);
		return false;
	}
	{
		const struct cfg *view[1] = { &g };
		struct splice_env env = { .cfgs = view, .ncfg = 1, .tramp_hint = TRAMP_ADDR };
		struct kv_env kenv = gen_kenv(&text);

		text.byte = src_byte;
		text.ctx = &src;
		if (splice_plan(&env, GEN_BASE, &p) || splice_emit(&p, &sp, &c, &bad)) {
			snprintf(why, len, "no plan at the VEX code");
		} else {
			request_from_plan(&p, &c, &r, GILK_TRAMP_FULL, &req);
			if (kv_verify(&req, &kenv, why, len, NULL)) {
				/* why says it */
			} else {
				size_t at = c.reloc_off;

				/* vpor relocated as if it were jmp rel8 */
				req.tramp[at] = 0xe9;
				ok = kv_verify(&req, &kenv, why, len, NULL) == -EBADMSG;
				if (!ok)
					snprintf(why, len, "a vpor turned jmp was accepted");
			}
		}
	}
	cfg_free(&g);
	decoder_close(dec);
	return ok;
}

/*
 * One function of code at GEN_BASE, planned from a CFG of its first
 * planned_len bytes (the planner sees no further) at site, emitted, turned
 * into a request and checked as the whole function, with facts.
 */
struct edge_case {
	const uint8_t *code;
	size_t len, planned_len, site;
	uint64_t target;          /* a hidden edge there, or 0 */
	int slot_at;              /* >= 0: the bounce slot moved there */
	size_t split;             /* a second function from there, or 0 */
	size_t site_func;         /* where the site's function starts */
	size_t table_at;          /* 0, or where words[] lie, read as a table */
	const uint64_t *words;
	size_t nwords;
};

/* 4 bytes put at +at once planned: in the text, the request and the
 * relocation (a request the planner would not make). */
struct edge_swap {
	const uint8_t *bytes;
	size_t at;
};

/* A computed goto's table, for edge_verdict(): past the code, and text is
 * the code. */
static bool gen_table_data(void *priv, uint64_t t, uint64_t func)
{
	const struct vc_text *text = priv;

	(void)func;
	return t >= text->func_end && t < GEN_BASE + GEN_MAX;
}

static bool gen_is_text(void *priv, uint64_t a)
{
	const struct vc_text *text = priv;

	return a >= text->func_start && a < text->func_end;
}

static int edge_verdict_swapped(const struct edge_case *k, const struct edge_swap *swap,
				char *why, size_t len)
{
	uint8_t buf[GEN_MAX + 64];
	struct code_src { const uint8_t *base; uint64_t lo, hi; } src = { buf, GEN_BASE, GEN_BASE + sizeof(buf) };
	struct vc_text text = { .byte = src_byte, .ctx = &src, .func_start = GEN_BASE,
				.func_end = GEN_BASE + k->len,
				.split = k->split ? GEN_BASE + k->split : 0 };
	struct template tpl;
	struct splice_params sp = gen_params(&tpl);
	struct gilk_reserve r = { .id = 1, .tramp = TRAMP_ADDR };
	struct kv_env kenv = gen_kenv(&text);
	static struct gilk_splice req;
	static struct splice_code c;
	struct textfacts *tf = textfacts_new();
	struct decoder *dec = NULL;
	enum splice_reason bad;
	struct splice_plan p;
	struct cfg g;
	struct gerr e;
	int ret = 1;

	memset(buf, 0xcc, sizeof(buf));
	memcpy(buf, k->code, k->len);
	if (k->table_at) {
		memcpy(buf + k->table_at, k->words, k->nwords * sizeof(*k->words));
		kenv.table_data = gen_table_data;
		kenv.is_text = gen_is_text;
	}
	memset(&g, 0, sizeof(g));
	if (!tf || decoder_open(&dec, &e) ||
	    cfg_build(&g, dec, buf + k->site_func, GEN_BASE + k->site_func,
		      GEN_BASE + k->site_func + k->planned_len, NULL, 0, &e)) {
		snprintf(why, len, "no CFG");
		goto out;
	}
	if (k->target) {
		textfacts_add_target(tf, k->target);
		textfacts_finish(tf);
		text.facts = tf;
	}
	{
		const struct cfg *view[1] = { &g };
		struct splice_env env = { .cfgs = view, .ncfg = 1, .tramp_hint = TRAMP_ADDR };

		if (splice_plan(&env, GEN_BASE + k->site, &p) || splice_emit(&p, &sp, &c, &bad)) {
			snprintf(why, len, "no plan at +%zu", k->site);
			goto out;
		}
	}
	request_from_plan(&p, &c, &r, GILK_TRAMP_FULL, &req);
	if (swap) {
		size_t off = swap->at - k->site, i;

		for (i = 0; i + 4 <= req.tramp_len; i++)
			if (!memcmp(req.tramp + i, buf + swap->at, 4))
				break;
		if (off + 4 > req.region_len || i + 4 > req.tramp_len) {
			snprintf(why, len, "nothing to swap at +%zu", swap->at);
			goto out;
		}
		memcpy(req.tramp + i, swap->bytes, 4);
		memcpy(req.region_orig + off, swap->bytes, 4);
		memcpy(req.patch[0].orig + off, swap->bytes, 4);
		memcpy(buf + swap->at, swap->bytes, 4);
	}
	if (k->slot_at >= 0) {
		uint64_t s = GEN_BASE + (uint64_t)k->slot_at;
		uint8_t j[5] = { 0xe9 };

		if (req.npatch != 2 || req.patch[0].kind != GILK_PATCH_DEAD) {
			snprintf(why, len, "the plan at +%zu is not a bounce via padding", k->site);
			goto out;
		}
		put32(j + 1, (uint32_t)(TRAMP_ADDR - (s + 5)));
		req.patch[0].addr = s;
		memcpy(req.patch[0].orig, buf + k->slot_at, 5);
		memcpy(req.patch[0].bytes, j, 5);
		req.patch[1].bytes[1] = (uint8_t)(s - (req.site + 2));
	}
	ret = kv_verify(&req, &kenv, why, len, NULL);
out:
	cfg_free(&g);
	if (dec)
		decoder_close(dec);
	textfacts_free(tf);
	return ret;
}

static int edge_verdict(const struct edge_case *k, char *why, size_t len)
{
	return edge_verdict_swapped(k, NULL, why, len);
}

bool vc_edges_refused(char *why, size_t len)
{
	/* a bounce slot moved onto the nop5 after the site's jmp: padding to a
	 * walk from the start, but the jmp at +0x18 comes back to it */
	static const uint8_t slot_code[] = {
		0x85, 0xc0,                     /* test eax, eax */
		0x74, 0x02,                     /* je +6 */
		0x31, 0xc0,                     /* xor eax, eax */
		0xeb, 0x10,                     /* +6: jmp +0x18 (the site) */
		0x0f, 0x1f, 0x44, 0x00, 0x00,   /* +8: nop5 */
		0xc3,                           /* ret */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		0xeb, 0xee,                     /* +0x18: jmp +8 */
	};
	/* a jmp splice over two movs where a branch the planner did not see
	 * lands on the second */
	static const uint8_t region_code[] = {
		0x48, 0x89, 0xc3,               /* mov rbx, rax (the site) */
		0x48, 0x89, 0xd9,               /* +3: mov rcx, rbx */
		0xc3,                           /* ret */
		0xeb, 0xfa,                     /* +7: jmp +3 */
	};
	/* assembly: the function at +8 jumps to a label inside the one at 0
	 * (as copy_user_generic_unrolled into copy_user_short_string) */
	static const uint8_t asm_after[] = {
		0x48, 0x89, 0xc3,               /* mov rbx, rax (the site) */
		0x48, 0x89, 0xd9,               /* +3: mov rcx, rbx */
		0xc3,                           /* ret */
		0xcc,
		0x85, 0xc0,                     /* +8: test eax, eax */
		0x75, 0xf7,                     /* jne +3 */
		0xc3,                           /* ret */
	};
	/* and the function at 0 into the one at +8 */
	static const uint8_t asm_before[] = {
		0x85, 0xc0,                     /* test eax, eax */
		0x75, 0x07,                     /* jne +0xb */
		0xc3,                           /* ret */
		0xcc, 0xcc, 0xcc,
		0x48, 0x89, 0xc3,               /* +8: mov rbx, rax (the site) */
		0x48, 0x89, 0xd9,               /* +0xb: mov rcx, rbx */
		0xc3,                           /* ret */
	};
	/* bytes that do not decode (an instruction cut short by the end of
	 * the symbol) after the ret, where control cannot fall: what follows
	 * a function's real end, which kallsyms does not know; and where it
	 * can */
	static const uint8_t tail_junk[] = {
		0x48, 0x89, 0xc3, 0x48, 0x89, 0xd9, 0xc3, 0x48, 0x8b,
	};
	static const uint8_t live_junk[] = {
		0x48, 0x89, 0xc3, 0x48, 0x89, 0xd9, 0x85, 0xc0, 0x48, 0x8b,
	};
	const struct edge_case cases[] = {
		{ slot_code, sizeof(slot_code), sizeof(slot_code), 6, 0, -1, 0, 0, 0, NULL, 0 },
		{ slot_code, sizeof(slot_code), sizeof(slot_code), 6, 0, 8, 0, 0, 0, NULL, 0 },
		{ region_code, 7, 7, 0, 0, -1, 0, 0, 0, NULL, 0 },
		{ region_code, sizeof(region_code), 7, 0, 0, -1, 0, 0, 0, NULL, 0 },
		{ region_code, 7, 7, 0, GEN_BASE + 3, -1, 0, 0, 0, NULL, 0 },
		{ asm_after, 8, 7, 0, 0, -1, 0, 0, 0, NULL, 0 },
		{ asm_after, sizeof(asm_after), 7, 0, 0, -1, 8, 0, 0, NULL, 0 },
		{ asm_before, sizeof(asm_before), 7, 8, 0, -1, 8, 8, 0, NULL, 0 },
		{ tail_junk, sizeof(tail_junk), 7, 0, 0, -1, 0, 0, 0, NULL, 0 },
		{ live_junk, sizeof(live_junk), 6, 0, 0, -1, 0, 0, 0, NULL, 0 },
	};
	/* the plans as made are taken; each edge into what they overwrite is
	 * refused, naming it */
	static const char *const want[] = {
		NULL, "lands at 0xffffffff81000008", NULL, "lands at 0xffffffff81000003",
		"a jump label, an exception fixup or a .cold part edge lands", NULL,
		"the branch at 0xffffffff8100000a lands at 0xffffffff81000003",
		"the branch at 0xffffffff81000002 lands at 0xffffffff8100000b",
		NULL, "stuck at 0xffffffff81000008",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char reason[GILK_REASON_MAX] = "";
		int ret = edge_verdict(&cases[i], reason, sizeof(reason));

		if (want[i] ? ret != -EBADMSG || !strstr(reason, want[i]) : ret != 0) {
			snprintf(why, len, "case %zu: %s (%d: %s)", i,
				 want[i] ? "not refused as it must be" : "refused", ret, reason);
			return false;
		}
	}
	return true;
}

/*
 * A computed goto's table (gilk_table_at(), gilk_table_words()): the load
 * mov rax, [disp32 + index*8], then jmp rax; the table, past the code,
 * holds +0xd, the second mov of the splice's region at +0xa, which the
 * planner (given no table here) takes. Indexed by rdi, and by r12 (REX.X) it is a
 * table, with a 0 (a label left out) before the word; [disp32] alone (no
 * index) and an fs-relative load are not.
 */
bool vc_table_labels_refused(char *why, size_t len)
{
#define TABLE_LOAD(...) __VA_ARGS__, 0x40, 0x00, 0x00, 0x81,	/* disp32: GEN_BASE + 0x40 */ \
	0xff, 0xe0,                     /* +8: jmp rax */ \
	0x48, 0x89, 0xc3,               /* +10: mov rbx, rax (the site) */ \
	0x48, 0x89, 0xd9,               /* +13: mov rcx, rbx (a label) */ \
	0xc3                            /* ret */
	static const uint8_t by_rdi[] = { TABLE_LOAD(0x48, 0x8b, 0x04, 0xfd) };
	static const uint8_t by_r12[] = { TABLE_LOAD(0x4a, 0x8b, 0x04, 0xe5) };
	static const uint8_t no_index[] = { TABLE_LOAD(0x48, 0x8b, 0x04, 0x25) };
	static const uint8_t by_fs[] = { 0x64, TABLE_LOAD(0x48, 0x8b, 0x04, 0xfd) };
#undef TABLE_LOAD
	static const uint64_t words[] = { 0, GEN_BASE + 13, GEN_BASE + 10 };
	static const uint64_t fs_words[] = { 0, GEN_BASE + 14, GEN_BASE + 11 };
	const struct edge_case cases[] = {
		{ by_rdi, sizeof(by_rdi), sizeof(by_rdi), 10, 0, -1, 0, 0, 0x40, words, 3 },
		{ by_r12, sizeof(by_r12), sizeof(by_r12), 10, 0, -1, 0, 0, 0x40, words, 3 },
		{ no_index, sizeof(no_index), sizeof(no_index), 10, 0, -1, 0, 0, 0x40, words, 3 },
		{ by_fs, sizeof(by_fs), sizeof(by_fs), 11, 0, -1, 0, 0, 0x40, fs_words, 3 },
	};
	static const char *const want[] = {
		"the jump table at 0xffffffff81000040 lands at 0xffffffff8100000d",
		"the jump table at 0xffffffff81000040 lands at 0xffffffff8100000d",
		NULL, NULL,
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char reason[GILK_REASON_MAX] = "";
		int ret = edge_verdict(&cases[i], reason, sizeof(reason));

		if (want[i] ? ret != -EBADMSG || !strstr(reason, want[i]) : ret != 0) {
			snprintf(why, len, "case %zu: %s (%d: %s)", i,
				 want[i] ? "not refused as wanted" : "refused", ret, reason);
			return false;
		}
	}
	return true;
}

/*
 * xen_cpuid's ud2; .ascii "xen"; cpuid before a function whose first mov
 * holds 0x6a: read as code, "xen" is a js there. The kernel's decoder (the
 * checker's) and the planner's take the 7 bytes as one instruction, so the
 * splice is taken; with "xeo" the ud2 stands alone and the js is a branch
 * into the region, refused.
 */
bool vc_emulate_prefix_no_edge(char *why, size_t len)
{
	static const uint8_t head[] = {
		0x53,                               /* push rbx */
		0x0f, 0x0b, 0x78, 0x65, 0x6e,       /* +1: ud2; .ascii "xen" */
		0x0f, 0xa2,                         /*     cpuid (js +0x6a at +3) */
		0x5b,                               /* pop rbx */
		0xc3,                               /* ret */
	};
	static const uint8_t site[] = {
		0x48, 0x89, 0xc3,                   /* +0x68: mov rbx, rax (the site) */
		0x48, 0x89, 0xd9,                   /* mov rcx, rbx */
		0xc3,                               /* ret */
	};
	enum { SITE = 0x68 };
	uint8_t code[2][SITE + sizeof(site)];
	static const char *const want[] = {
		NULL, "the branch at 0xffffffff81000003 lands at 0xffffffff8100006a",
	};

	for (size_t i = 0; i < 2; i++) {
		const struct edge_case k = {
			code[i], sizeof(code[i]), sizeof(site), SITE, 0, -1, SITE, SITE, 0, NULL, 0,
		};
		char reason[GILK_REASON_MAX] = "";
		int ret;

		memset(code[i], 0xcc, sizeof(code[i]));
		memcpy(code[i], head, sizeof(head));
		memcpy(code[i] + SITE, site, sizeof(site));
		if (i)
			code[i][5] = 'o';
		ret = edge_verdict(&k, reason, sizeof(reason));
		if (want[i] ? ret != -EBADMSG || !strstr(reason, want[i]) : ret != 0) {
			snprintf(why, len, "case %zu: %s (%d: %s)", i,
				 want[i] ? "not refused as wanted" : "refused", ret, reason);
			return false;
		}
	}
	return true;
}

/*
 * A region (with its padding tail) stays inside its symbol. After a ret,
 * the padding tail ran over the next function's start, whose sealed endbr
 * (nopw, as 6.12 leaves one that no indirect call reaches) reads as
 * padding: the checker took it, and the jmp's int3 fill there broke every
 * call of the next function. The planner here is told the two are one
 * function; the checker knows the second starts at +4.
 */
bool vc_region_in_symbol(char *why, size_t len)
{
	static const uint8_t code[] = {
		0x31, 0xc0,                     /* xor eax, eax (the site) */
		0xc3,                           /* ret */
		0xcc,
		0x66, 0x0f, 0x1f, 0x00,         /* +4, the next function: sealed endbr */
		0x31, 0xc0,                     /* xor eax, eax */
		0xc3,                           /* ret */
	};
	const struct edge_case inside = {
		.code = code, .len = sizeof(code), .planned_len = sizeof(code), .slot_at = -1,
	};
	struct edge_case across = inside;
	char reason[GILK_REASON_MAX] = "";
	int ret = edge_verdict(&inside, reason, sizeof(reason));

	if (ret) {
		snprintf(why, len, "one function: refused (%d: %s)", ret, reason);
		return false;
	}
	across.split = 4;
	ret = edge_verdict(&across, reason, sizeof(reason));
	if (ret != -EBADMSG || !strstr(reason, "past the end of its symbol")) {
		snprintf(why, len, "two functions: %s (%d: %s)", ret ? "not refused as wanted" : "taken",
			 ret, reason);
		return false;
	}
	return true;
}

/*
 * An endbr64 is never displaced: on an IBT CPU the next indirect call of
 * the function would fault (#CP). The planner refuses it; so does the
 * checker, for a request that moves one (a nopl planned, an endbr64 sent).
 */
bool vc_endbr_refused(char *why, size_t len)
{
	static const uint8_t code[] = {
		0x0f, 0x1f, 0x40, 0x00,         /* nopl 0(rax) (the site) */
		0x48, 0x89, 0xc3,               /* mov rbx, rax */
		0xc3,                           /* ret */
	};
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const struct edge_case plain = {
		.code = code, .len = sizeof(code), .planned_len = sizeof(code), .slot_at = -1,
	};
	const struct edge_swap swap = { endbr64, 0 };
	char reason[GILK_REASON_MAX] = "";
	int ret = edge_verdict(&plain, reason, sizeof(reason));

	if (ret) {
		snprintf(why, len, "a nopl: refused (%d: %s)", ret, reason);
		return false;
	}
	ret = edge_verdict_swapped(&plain, &swap, reason, sizeof(reason));
	if (ret != -EBADMSG || !strstr(reason, "endbr")) {
		snprintf(why, len, "an endbr64: %s (%d: %s)", ret ? "not refused as wanted" : "taken",
			 ret, reason);
		return false;
	}
	return true;
}

/*
 * A bounce slot never starts where a call returns to: after a noreturn
 * call the int3 padding is dead, but a callee that came back after all
 * must meet the int3 there, not run the slot's jmp. The planner skips
 * that byte; the checker refuses a slot moved onto it.
 */
bool vc_slot_not_return_address(char *why, size_t len)
{
	static const uint8_t code[] = {
		0x85, 0xc0,                     /* test eax, eax */
		0x74, 0x0e,                     /* je +0x12 (the site) */
		0xe8, 0x0b, 0x00, 0x00, 0x00,   /* +4: call +0x14 (taken as noreturn) */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc,   /* +9: the return address, padding */
		0xcc, 0xcc, 0xcc, 0xcc,
		0x31, 0xc0,                     /* +0x12: xor eax, eax (the site) */
		0xc3,                           /* ret */
		0xcc,
	};
	static const int slots[] = { -1, 9, 10 };
	static const char *const want[] = { NULL, "is where the call at", NULL };

	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		const struct edge_case k = {
			.code = code, .len = sizeof(code), .planned_len = sizeof(code),
			.site = 0x12, .slot_at = slots[i],
		};
		char reason[GILK_REASON_MAX] = "";
		int ret = edge_verdict(&k, reason, sizeof(reason));

		if (want[i] ? ret != -EBADMSG || !strstr(reason, want[i]) : ret != 0) {
			snprintf(why, len, "slot %d: %s (%d: %s)", slots[i],
				 want[i] ? "not refused as wanted" : "refused", ret, reason);
			return false;
		}
	}
	return true;
}

/*
 * A cs-prefixed jmp (what the compiler emits for a tail call through a
 * retpoline thunk) is relocated as a plain jmp rel32, one byte shorter
 * than it was: the checker measured the room left by the original's
 * length and refused the splice (visitor32 on the reference kernel).
 */
bool vc_cs_jmp_relocated(char *why, size_t len)
{
	static const uint8_t code[] = {
		0x8b, 0x12,                             /* mov edx, [rdx] (the site) */
		0x2e, 0xe9, 0x08, 0x00, 0x00, 0x00,     /* cs jmp +0x10 */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		0xc3,                                   /* +0x10: ret */
		0xcc,
	};
	const struct edge_case k = {
		.code = code, .len = sizeof(code), .planned_len = sizeof(code), .slot_at = -1,
	};
	char reason[GILK_REASON_MAX] = "";
	int ret = edge_verdict(&k, reason, sizeof(reason));

	if (ret)
		snprintf(why, len, "refused (%d: %s)", ret, reason);
	return ret == 0;
}
