/* x86-64's splices (see splice.h): the region grows over whole
 * instructions until a jmp rel32 fits, or a bounce's 2-byte jmp to a slot
 * found in padding, another splice's tail or an evicted neighbour; then the
 * trampoline's relocated instructions and the jumps, as x86emit.h writes
 * them. */
#include "splice.h"

#include <string.h>

#include "flags_x86_64.h"
#include "reloc_x86_64.h"
#include "splice_internal.h"
#include "x86emit.h"

#define JMP32_LEN 5
#define JMP8_LEN 2
#define EVICT_MIN 10               /* a jmp rel32 plus a 5-byte slot */

/* endbr64 (f3 0f 1e fa): where the kernel has IBT (6.12), every function
 * that may be called indirectly starts with one, and an indirect call that
 * lands anywhere else faults (#CP). A jmp written over it would turn every
 * indirect call of the function into that fault, so it is never displaced:
 * splices go after it. Sealed functions (no indirect caller) have theirs
 * turned into a nop at boot when IBT is on; live bytes then say so. */
static bool is_endbr64(const struct insn *in)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	return in->len == sizeof(endbr64) && !memcmp(in->bytes, endbr64, sizeof(endbr64));
}

/* What a sealed function's endbr64 becomes at boot (nopw (%rax)): seen at a
 * function's entry in live bytes, it stands where the endbr64 was, and the
 * ftrace call site follows it. */
static bool is_sealed_endbr(const struct insn *in)
{
	static const uint8_t poison[] = { 0x66, 0x0f, 0x1f, 0x00 };

	return in->len == sizeof(poison) && !memcmp(in->bytes, poison, sizeof(poison));
}

bool splice_x86_64_landing_pad(const struct cfg *g, const struct insn *in, uint64_t addr)
{
	return is_endbr64(in) || (addr == g->start && is_sealed_endbr(in));
}

/* Why in cannot be displaced at all (SPLICE_OK when it can). */
static enum splice_reason insn_refusal(const struct splice_env *env,
				       const struct insn *in)
{
	enum splice_reason why;

	/* What reserves the bytes says more than what they are. */
	if (splice_is_reserved(env, in->addr, in->len, &why))
		return why;
	if (is_endbr64(in))
		return SR_ENDBR;
	if (in->emulate)
		return SR_EMULATE_PREFIX;
	if (insn_is_idle(in))
		return SR_IDLE;
	/* Traps and sys* stay where they are (gilk.ko refuses them too). */
	if (insn_is_trap_or_sys(in))
		return SR_UNRELOCATABLE;
	switch (in->kind) {
	case IK_INT3: return SR_INT3;
	case IK_UD2: return SR_UD2;
	case IK_XBEGIN: return SR_UNRELOCATABLE;
	case IK_CALL_IND:
		if (in->mem_rsp)
			return SR_UNRELOCATABLE;
		break;
	default:
		break;
	}
	if (env->tramp_hint) {
		uint8_t buf[64];
		struct x86w w;

		/* Relocate once near where trampolines will be: the same
		 * check splice_emit makes, so plans rarely fail there. */
		xw_init(&w, buf, sizeof(buf), env->tramp_hint);
		return splice_reason_of_reloc(reloc_insn(&w, in));
	}
	return SPLICE_OK;
}

/* End of the padding run starting exactly at addr, or 0. */
static uint64_t padding_from(const struct cfg *g, uint64_t addr)
{
	for (size_t i = 0; i < g->npadding; i++)
		if (g->padding[i].start == addr)
			return g->padding[i].end;
	return 0;
}

/*
 * The shortest region of at least need bytes from instruction idx, or as far
 * as it can go: *stop says why it stopped short (SPLICE_OK when it did not),
 * *stop_addr where. With lead_bug, a BUG()/WARN() ud2 may be the first
 * instruction: gilk.ko replays it (see struct splice_plan).
 */
static void scan_prefix(const struct splice_env *env, const struct cfg *g,
			size_t idx, unsigned need, bool lead_bug,
			struct splice_region *r, enum splice_reason *stop,
			uint64_t *stop_addr)
{
	memset(r, 0, offsetof(struct splice_region, insns));
	r->addr = g->insns[idx].addr;
	*stop = SPLICE_OK;
	for (size_t i = idx;; i++) {
		const struct insn *in;
		enum splice_reason why;
		uint64_t next, pend;

		if (i >= g->ninsn) {
			*stop = g->bad_addr ? SR_UNDECODABLE : SR_TOO_SHORT;
			*stop_addr = r->addr + r->len;
			return;
		}
		in = &g->insns[i];
		if (i > idx && cfg_is_target(g, in->addr)) {
			*stop = SR_TOO_SHORT;
			*stop_addr = in->addr;
			return;
		}
		why = insn_refusal(env, in);
		if (why == SR_UD2 && i == idx && lead_bug &&
		    textfacts_bug(env->facts, in->addr) != BUG_NONE)
			why = SPLICE_OK;
		if (why != SPLICE_OK || r->ninsn == SPLICE_INSN_MAX) {
			*stop = why != SPLICE_OK ? why : SR_TOO_SHORT;
			*stop_addr = in->addr;
			return;
		}
		memcpy(r->orig + r->len, in->bytes, in->len);
		r->insns[r->ninsn++] = *in;
		r->len += in->len;
		r->live += in->len;
		if (r->len >= need)
			return;
		next = in->addr + in->len;
		if (in->kind == IK_CALL || in->kind == IK_CALL_IND) {
			/* The callee returns to the byte after the call: it
			 * must end the region. */
			*stop = SR_TOO_SHORT;
			*stop_addr = next;
			return;
		}
		if (insn_falls_through(in))
			continue;
		/* Nothing continues here: dead padding may be overwritten. */
		pend = padding_from(g, next);
		if (pend) {
			uint64_t take = pend - next;

			if (take > need - r->len)
				take = need - r->len;
			for (uint64_t k = 0; k < take; k++)
				r->orig[r->len + k] = 0; /* filled by caller */
			r->len += (uint8_t)take;
			if (r->len >= need)
				return;
		}
		*stop = SR_TOO_SHORT;
		*stop_addr = r->addr + r->len;
		return;
	}
}

/* Reads the original bytes of a region's padding part, which scan_prefix
 * could not see (padding is not kept as instructions with bytes). */
static void fill_padding_orig(const struct cfg *g, struct splice_region *r)
{
	for (size_t k = r->live; k < r->len;) {
		ssize_t i = cfg_insn_containing(g, r->addr + k);
		const struct insn *in;
		size_t off, take;

		if (i < 0)
			break;
		in = &g->insns[i];
		off = (size_t)(r->addr + k - in->addr);
		take = in->len - off;
		if (take > r->len - k)
			take = r->len - k;
		memcpy(r->orig + k, in->bytes + off, take);
		k += take;
	}
}

/* The byte after a call is its return address: a noreturn callee that came
 * back after all would trap on the int3 there, and must not run a slot
 * (gilk.ko refuses such a slot too). */
static bool is_return_address(const struct splice_env *env, uint64_t s)
{
	const struct cfg *g = splice_cfg_for(env, s - 1);
	ssize_t i = g ? cfg_insn_containing(g, s - 1) : -1;

	return i >= 0 && (g->insns[i].kind == IK_CALL || g->insns[i].kind == IK_CALL_IND) &&
	       g->insns[i].addr + g->insns[i].len == s;
}

static bool slot_ok(const struct splice_env *env, const struct splice_plan *p,
		    uint64_t s)
{
	return !splice_overlaps(s, JMP32_LEN, p->region.addr, p->region.len) &&
	       !splice_is_occupied(env, s, JMP32_LEN) &&
	       !splice_is_reserved(env, s, JMP32_LEN, NULL) &&
	       !is_return_address(env, s);
}

static void copy_slot_orig(const struct splice_env *env, uint64_t s, uint8_t *out)
{
	memset(out, 0xcc, JMP32_LEN);
	for (unsigned k = 0; k < JMP32_LEN; k++) {
		const struct cfg *g = splice_cfg_for(env, s + k);
		ssize_t i = g ? cfg_insn_containing(g, s + k) : -1;

		if (i >= 0)
			out[k] = g->insns[i].bytes[s + k - g->insns[i].addr];
	}
}

/* A 5-byte slot inside [lo, hi) that also lies in [rlo, rhi]: the lowest
 * valid start, or 0. */
static uint64_t slot_in(const struct splice_env *env, const struct splice_plan *p,
			uint64_t lo, uint64_t hi, uint64_t rlo, uint64_t rhi)
{
	uint64_t a = lo > rlo ? lo : rlo;

	for (; a + JMP32_LEN <= hi && a <= rhi; a++)
		if (slot_ok(env, p, a))
			return a;
	return 0;
}

static bool find_slot(const struct splice_env *env, struct splice_plan *p)
{
	uint64_t from = p->region.addr + JMP8_LEN;
	uint64_t rlo = from - 128, rhi = from + 127;

	for (size_t c = 0; c < env->ncfg; c++) {
		const struct cfg *g = env->cfgs[c];

		for (size_t i = 0; i < g->npadding; i++) {
			uint64_t s = slot_in(env, p, g->padding[i].start,
					     g->padding[i].end, rlo, rhi);

			if (s) {
				p->bounce_kind = BOUNCE_PADDING;
				p->slot = s;
				copy_slot_orig(env, s, p->slot_orig);
				return true;
			}
		}
	}
	for (size_t i = 0; i < env->ntails; i++) {
		uint64_t s = slot_in(env, p, env->tails[i].start,
				     env->tails[i].end, rlo, rhi);

		if (s) {
			p->bounce_kind = BOUNCE_TAIL;
			p->slot = s;
			copy_slot_orig(env, s, p->slot_orig);
			return true;
		}
	}
	if (env->flags & SPLICE_NO_EVICT)
		return false;
	for (size_t c = 0; c < env->ncfg; c++) {
		const struct cfg *g = env->cfgs[c];

		if (g->misaligned || g->jump_table)
			continue;
		ssize_t first = cfg_insn_containing(g, rlo - EVICT_MIN - INSN_MAX);

		for (size_t i = first < 0 ? 0 : (size_t)first; i < g->ninsn; i++) {
			const struct insn *in = &g->insns[i];
			struct splice_region ev;
			enum splice_reason stop;
			uint64_t stop_addr, s;

			if (in->addr > rhi)
				break;
			if (in->addr + EVICT_MIN + INSN_MAX < rlo)
				continue;
			if (cfg_block_at(g, in->addr) < 0)
				continue; /* padding */
			scan_prefix(env, g, i, EVICT_MIN, false, &ev, &stop, &stop_addr);
			if (stop != SPLICE_OK ||
			    splice_overlaps(ev.addr, ev.len, p->region.addr, p->region.len) ||
			    splice_is_occupied(env, ev.addr, ev.len))
				continue;
			s = ev.addr + JMP32_LEN;
			if (s < rlo)
				s = rlo;
			if (s > rhi || s + JMP32_LEN > ev.addr + ev.len)
				continue;
			fill_padding_orig(g, &ev);
			p->bounce_kind = BOUNCE_EVICT;
			p->slot = s;
			memcpy(p->slot_orig, ev.orig + (s - ev.addr), JMP32_LEN);
			p->evict = ev;
			return true;
		}
	}
	return false;
}

/* x86-64: the region grows over whole instructions until a jmp rel32 fits,
 * or a bounce's 2-byte jmp; a branch into it from anywhere is refused. */
int splice_plan_x86_64(const struct splice_env *env, const struct cfg *g, size_t idx,
		       struct splice_plan *p)
{
	uint64_t site = g->insns[idx].addr, stop_addr = site;
	enum splice_reason stop;

	if (g->misaligned)
		return splice_refuse(p, SR_MISALIGNED_TARGET, g->misaligned);
	if (g->jump_table)
		return splice_refuse(p, SR_JUMP_TABLE, site);

	scan_prefix(env, g, idx, JMP32_LEN, true, &p->region, &stop, &stop_addr);
	if (p->region.len == 0)
		return splice_refuse(p, stop, stop_addr);
	if (p->region.insns[0].kind == IK_UD2)
		p->bug = textfacts_bug(env->facts, site);
	p->flags_dead = flags_dead_at(g, env->facts, site);
	fill_padding_orig(g, &p->region);
	if (stop == SPLICE_OK) {
		if (splice_is_occupied(env, site, p->region.len))
			return splice_refuse(p, SR_OCCUPIED, site);
		p->mode = SPLICE_JMP;
		p->image_only = splice_touches_alternative(env, &p->region);
		return 0;
	}
	p->limit = stop;
	p->reason_addr = stop_addr;
	if (p->region.len >= JMP8_LEN && !(env->flags & SPLICE_NO_BOUNCE)) {
		enum splice_reason s2;
		uint64_t a2;

		scan_prefix(env, g, idx, JMP8_LEN, true, &p->region, &s2, &a2);
		fill_padding_orig(g, &p->region);
		if (splice_is_occupied(env, site, p->region.len))
			return splice_refuse(p, SR_OCCUPIED, site);
		if (find_slot(env, p)) {
			p->mode = SPLICE_BOUNCE;
			p->image_only = splice_touches_alternative(env, &p->region) ||
					splice_touches_alternative(env, &p->evict);
			return 0;
		}
	}
	if (env->flags & SPLICE_ALLOW_TRAP) {
		/* One instruction, reached through gilk.ko's int3 divert. */
		p->region.len = p->region.live = p->region.insns[0].len;
		p->region.ninsn = 1;
		p->bounce_kind = BOUNCE_NONE;
		if (splice_is_occupied(env, site, p->region.len))
			return splice_refuse(p, SR_OCCUPIED, site);
		p->mode = SPLICE_TRAP;
		return 0;
	}
	return splice_refuse(p, p->region.len >= JMP8_LEN ? SR_NO_BOUNCE_SLOT : SR_TOO_SHORT,
		      stop_addr);
}

/* The relocated instructions of r, then the jump back when the last one
 * falls through. A replayed BUG()/WARN() ud2 (first, and then alone: it does
 * not fall through) runs in gilk.ko before the trampoline gets here, so
 * nothing of it is emitted; what follows it is where a WARN resumes. */
static enum splice_reason emit_relocated(struct x86w *w,
					 const struct splice_region *r,
					 bool replayed_bug, uint16_t *offs)
{
	for (unsigned i = 0; i < r->ninsn; i++) {
		enum reloc_status s;

		offs[i] = (uint16_t)w->len;
		if (i == 0 && replayed_bug)
			continue;
		s = reloc_insn(w, &r->insns[i]);

		if (s != RELOC_OK)
			return splice_reason_of_reloc(s);
	}
	if (replayed_bug)
		xw_jmp(w, r->addr + r->insns[0].len);
	else if (r->ninsn && insn_falls_through(&r->insns[r->ninsn - 1]))
		xw_jmp(w, r->addr + r->len);
	return w->err == XW_OK ? SPLICE_OK
	       : w->err == XW_RANGE ? SR_BRANCH_RANGE : SR_UNRELOCATABLE;
}

size_t splice_x86_64_tramp_size(const struct splice_plan *p, size_t header_max)
{
	size_t n = header_max + JMP32_LEN;

	for (unsigned i = 0; i < p->region.ninsn; i++)
		n += reloc_max_len(&p->region.insns[i]);
	return n;
}

size_t splice_x86_64_evict_tramp_size(const struct splice_plan *p)
{
	size_t n = JMP32_LEN;

	if (p->bounce_kind != BOUNCE_EVICT)
		return 0;
	for (unsigned i = 0; i < p->evict.ninsn; i++)
		n += reloc_max_len(&p->evict.insns[i]);
	return n;
}

static void put_patch(struct splice_code *out, uint64_t addr, const uint8_t *bytes,
		      const uint8_t *orig, size_t len)
{
	struct splice_patch *pt = &out->patches[out->npatch++];

	pt->addr = addr;
	pt->len = (uint8_t)len;
	memcpy(pt->bytes, bytes, len);
	memcpy(pt->orig, orig, len);
}

/* splice_emit() for x86-64, given an accepted plan and a cleared out */
unsigned int splice_emit_x86_64(const struct splice_plan *p, const struct splice_params *sp,
				struct splice_code *out)
{
	struct x86w w;
	uint8_t b[SPLICE_REGION_MAX];
	enum splice_reason r;

	/* a BUG/WARN replay reads pt_regs */
	out->reloc_off = sp->header->write(sp->header, sp->tramp, p->region.addr,
					   p->bug != BUG_NONE, p->flags_dead, out->tramp);
	if (!out->reloc_off)
		return SR_BRANCH_RANGE;
	xw_init(&w, out->tramp, sizeof(out->tramp), sp->tramp);
	w.len = out->reloc_off;	/* the relocated instructions follow it */
	if (p->mode == SPLICE_JOIN) {
		/* on to the site's splices, then its code */
		uint8_t was[JMP32_LEN];
		struct x86w jw;

		xw_jmp(&w, p->join_to);
		out->tramp_len = w.len;
		xw_init(&jw, was, sizeof(was), p->join_at);
		xw_jmp(&jw, p->join_to);
		xw_init(&w, b, sizeof(b), p->join_at);
		xw_jmp(&w, sp->tramp);
		if (w.err || jw.err || (out->tramp_len && out->tramp_len != out->reloc_off + JMP32_LEN))
			return SR_BRANCH_RANGE;
		put_patch(out, p->join_at, b, was, JMP32_LEN);
		return SPLICE_OK;
	}
	r = emit_relocated(&w, &p->region, p->bug != BUG_NONE, out->insn_off);
	if (r != SPLICE_OK)
		return r;
	out->tramp_len = w.len;

	if (p->mode == SPLICE_TRAP)
		return SPLICE_OK;
	if (p->mode == SPLICE_BOUNCE && p->bounce_kind == BOUNCE_EVICT) {
		const struct splice_region *ev = &p->evict;
		struct x86w ew, pw;

		xw_init(&ew, out->evict_tramp, sizeof(out->evict_tramp), sp->evict_tramp);
		r = emit_relocated(&ew, ev, false, out->evict_insn_off);
		if (r != SPLICE_OK)
			return r;
		out->evict_tramp_len = ew.len;
		xw_init(&pw, b, sizeof(b), ev->addr);
		xw_jmp(&pw, sp->evict_tramp);
		xw_fill_int3(&pw, (size_t)(p->slot - ev->addr) - JMP32_LEN);
		xw_jmp(&pw, sp->tramp);
		xw_fill_int3(&pw, ev->len - pw.len);
		if (pw.err)
			return SR_BRANCH_RANGE;
		put_patch(out, ev->addr, b, ev->orig, ev->len);
	} else if (p->mode == SPLICE_BOUNCE) {
		struct x86w sw;

		xw_init(&sw, b, sizeof(b), p->slot);
		xw_jmp(&sw, sp->tramp);
		if (sw.err)
			return SR_BRANCH_RANGE;
		put_patch(out, p->slot, b, p->slot_orig, JMP32_LEN);
	}
	xw_init(&w, b, sizeof(b), p->region.addr);
	if (p->mode == SPLICE_BOUNCE)
		xw_jmp8(&w, p->slot);
	else
		xw_jmp(&w, sp->tramp);
	xw_fill_int3(&w, p->region.len - w.len);
	if (w.err)
		return SR_BRANCH_RANGE;
	put_patch(out, p->region.addr, b, p->region.orig, p->region.len);
	return SPLICE_OK;
}

