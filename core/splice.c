/* Splice planning and emission (see splice.h). */
#include "splice.h"

#include <string.h>

#include "flags.h"
#include "reloc.h"
#include "reloc_arm64.h"
#include "splice_arm64.h"
#include "x86emit.h"

#define JMP32_LEN 5
#define JMP8_LEN 2
#define EVICT_MIN 10               /* a jmp rel32 plus a 5-byte slot */

static const struct cfg *cfg_for(const struct splice_env *env, uint64_t addr)
{
	for (size_t i = 0; i < env->ncfg; i++)
		if (addr >= env->cfgs[i]->start && addr < env->cfgs[i]->end)
			return env->cfgs[i];
	return NULL;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static bool is_occupied(const struct splice_env *env, uint64_t lo, uint64_t len)
{
	for (size_t i = 0; i < env->noccupied; i++)
		if (overlaps(lo, len, env->occupied[i].start,
			     env->occupied[i].end - env->occupied[i].start))
			return true;
	return false;
}

static enum splice_reason reason_of_reservation(enum res_kind k)
{
	switch (k) {
	case RES_JUMP_LABEL: return SR_JUMP_LABEL;
	case RES_STATIC_CALL: return SR_STATIC_CALL;
	case RES_FTRACE: return SR_FTRACE;
	case RES_EXTABLE: return SR_EXTABLE;
	case RES_KPROBE: return SR_KPROBE;
	case RES_SMP_LOCK: return SR_SMP_LOCK;
	case RES_IDLE: return SR_IDLE;
	case RES_OWN_PATH: return SR_OWN_PATH;
	case RES_EARLY_CPU: return SR_EARLY_CPU;
	case RES_RCU_IDLE: return SR_RCU_IDLE;
	case RES_GILK_CODE: return SR_GILK_CODE;
	default: return SR_BLACKLIST;
	}
}

static bool is_reserved(const struct splice_env *env, uint64_t lo, uint64_t len,
			enum splice_reason *why)
{
	const struct res_range *r;

	if (!env->facts)
		return false;
	/* Idle text is refused as a whole (its own section), so that is the
	 * reason to give even where a jump label also sits in the bytes. */
	if (textfacts_overlaps(env->facts, lo, lo + len, RES_IDLE)) {
		if (why)
			*why = SR_IDLE;
		return true;
	}
	r = textfacts_reserved(env->facts, lo, lo + len, RES_ALTERNATIVE);
	if (r && why)
		*why = reason_of_reservation((enum res_kind)r->kind);
	return r != NULL;
}

static bool touches_alternative(const struct splice_env *env,
				const struct splice_region *r)
{
	return env->facts && r->len &&
	       textfacts_overlaps(env->facts, r->addr, r->addr + r->len,
				  RES_ALTERNATIVE);
}

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

static enum splice_reason reason_of_reloc(enum reloc_status s)
{
	switch (s) {
	case RELOC_OK: return SPLICE_OK;
	case RELOC_RIP_RANGE: return SR_RIP_RANGE;
	case RELOC_BRANCH_RANGE: return SR_BRANCH_RANGE;
	default: return SR_UNRELOCATABLE;
	}
}

/* Why in cannot be displaced at all (SPLICE_OK when it can). */
static enum splice_reason insn_refusal(const struct splice_env *env,
				       const struct insn *in)
{
	enum splice_reason why;

	/* What reserves the bytes says more than what they are. */
	if (is_reserved(env, in->addr, in->len, &why))
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
		return reason_of_reloc(reloc_insn(&w, in));
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
	const struct cfg *g = cfg_for(env, s - 1);
	ssize_t i = g ? cfg_insn_containing(g, s - 1) : -1;

	return i >= 0 && (g->insns[i].kind == IK_CALL || g->insns[i].kind == IK_CALL_IND) &&
	       g->insns[i].addr + g->insns[i].len == s;
}

static bool slot_ok(const struct splice_env *env, const struct splice_plan *p,
		    uint64_t s)
{
	return !overlaps(s, JMP32_LEN, p->region.addr, p->region.len) &&
	       !is_occupied(env, s, JMP32_LEN) &&
	       !is_reserved(env, s, JMP32_LEN, NULL) &&
	       !is_return_address(env, s);
}

static void copy_slot_orig(const struct splice_env *env, uint64_t s, uint8_t *out)
{
	memset(out, 0xcc, JMP32_LEN);
	for (unsigned k = 0; k < JMP32_LEN; k++) {
		const struct cfg *g = cfg_for(env, s + k);
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
			    overlaps(ev.addr, ev.len, p->region.addr, p->region.len) ||
			    is_occupied(env, ev.addr, ev.len))
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

static int refuse(struct splice_plan *p, enum splice_reason r, uint64_t at)
{
	p->reason = r;
	p->reason_addr = at;
	return -1;
}

/* arm64: the site's one instruction is the region, which a b replaces; no
 * bounce, no trap mode (splice_arm64.h says what the instruction must be).
 * A BUG() or WARN() brk stays: gilk.ko does not replay it there yet. */
int splice_plan_arm64(const struct splice_env *env, const struct cfg *g, size_t idx,
		      struct splice_plan *p)
{
	const struct insn *in = &g->insns[idx];
	enum splice_reason why;

	if (is_reserved(env, in->addr, in->len, &why))
		return refuse(p, why, in->addr);
	if (textfacts_bug(env->facts, in->addr) != BUG_NONE)
		return refuse(p, SR_UD2, in->addr);
	why = arm64_site_refusal(g, idx);
	if (why == SPLICE_OK) {
		uint32_t w, out[RELOC_ARM64_MAX];
		size_t n;

		memcpy(&w, in->bytes, 4);
		why = reason_of_reloc(reloc_arm64(w, in->addr, env->tramp_hint, out, &n));
	}
	if (why != SPLICE_OK)
		return refuse(p, why, in->addr);
	if (is_occupied(env, in->addr, in->len))
		return refuse(p, SR_OCCUPIED, in->addr);
	memcpy(p->region.orig, in->bytes, in->len);
	p->region.insns[0] = *in;
	p->region.ninsn = 1;
	p->region.len = p->region.live = in->len;
	p->mode = SPLICE_JMP;
	p->image_only = touches_alternative(env, &p->region);
	return 0;
}

int splice_plan(const struct splice_env *env, uint64_t site,
		struct splice_plan *p)
{
	const struct cfg *g = cfg_for(env, site);
	ssize_t idx;

	memset(p, 0, sizeof(*p));
	p->region.addr = site;
	if (!g)
		return refuse(p, SR_NOT_TEXT, site);
	/* Past bytes that do not decode (for Capstone: rdpkru is one) the
	 * function's branches are unknown, and one may land in any region
	 * before them: gilk.ko's checker, whose decoder may know the bytes,
	 * would refuse such a plan. */
	if (g->bad_addr)
		return refuse(p, SR_UNDECODABLE, g->bad_addr);
	idx = cfg_insn_at(g, site);
	if (idx < 0) {
		for (size_t i = 0; i < g->npadding; i++)
			if (site >= g->padding[i].start && site < g->padding[i].end)
				return refuse(p, SR_PADDING, site);
		return refuse(p, SR_NOT_BOUNDARY, site);
	}
	if (cfg_block_at(g, site) < 0)
		return refuse(p, SR_PADDING, site);
	if (env->no_tables)
		return refuse(p, SR_NO_TABLES, site);
	return arch_info(env->arch)->plan(env, g, (size_t)idx, p);
}

/* x86-64: the region grows over whole instructions until a jmp rel32 fits,
 * or a bounce's 2-byte jmp; a branch into it from anywhere is refused. */
int splice_plan_x86_64(const struct splice_env *env, const struct cfg *g, size_t idx,
		       struct splice_plan *p)
{
	uint64_t site = g->insns[idx].addr, stop_addr = site;
	enum splice_reason stop;

	if (g->misaligned)
		return refuse(p, SR_MISALIGNED_TARGET, g->misaligned);
	if (g->jump_table)
		return refuse(p, SR_JUMP_TABLE, site);

	scan_prefix(env, g, idx, JMP32_LEN, true, &p->region, &stop, &stop_addr);
	if (p->region.len == 0)
		return refuse(p, stop, stop_addr);
	if (p->region.insns[0].kind == IK_UD2)
		p->bug = textfacts_bug(env->facts, site);
	p->flags_dead = flags_dead_at(g, env->facts, site);
	fill_padding_orig(g, &p->region);
	if (stop == SPLICE_OK) {
		if (is_occupied(env, site, p->region.len))
			return refuse(p, SR_OCCUPIED, site);
		p->mode = SPLICE_JMP;
		p->image_only = touches_alternative(env, &p->region);
		return 0;
	}
	p->limit = stop;
	p->reason_addr = stop_addr;
	if (p->region.len >= JMP8_LEN && !(env->flags & SPLICE_NO_BOUNCE)) {
		enum splice_reason s2;
		uint64_t a2;

		scan_prefix(env, g, idx, JMP8_LEN, true, &p->region, &s2, &a2);
		fill_padding_orig(g, &p->region);
		if (is_occupied(env, site, p->region.len))
			return refuse(p, SR_OCCUPIED, site);
		if (find_slot(env, p)) {
			p->mode = SPLICE_BOUNCE;
			p->image_only = touches_alternative(env, &p->region) ||
					touches_alternative(env, &p->evict);
			return 0;
		}
	}
	if (env->flags & SPLICE_ALLOW_TRAP) {
		/* One instruction, reached through gilk.ko's int3 divert. */
		p->region.len = p->region.live = p->region.insns[0].len;
		p->region.ninsn = 1;
		p->bounce_kind = BOUNCE_NONE;
		if (is_occupied(env, site, p->region.len))
			return refuse(p, SR_OCCUPIED, site);
		p->mode = SPLICE_TRAP;
		return 0;
	}
	return refuse(p, p->region.len >= JMP8_LEN ? SR_NO_BOUNCE_SLOT : SR_TOO_SHORT,
		      stop_addr);
}

uint64_t splice_site_for_block(const struct splice_env *env, uint64_t addr)
{
	const struct cfg *g = cfg_for(env, addr);
	const struct res_range *r;
	ssize_t idx;

	if (!g)
		return addr;
	/* (Computed-goto labels may stand together, each with its endbr64.) */
	for (idx = cfg_insn_at(g, addr); idx >= 0 && cfg_insn_at(g, addr + 4) >= 0 &&
	     arch_info(env->arch)->landing_pad(g, &g->insns[idx], addr);
	     idx = cfg_insn_at(g, addr))
		addr += 4;
	if (!env->facts)
		return addr;
	r = textfacts_reserved(env->facts, addr, addr + 1, RES_ALTERNATIVE);
	if (!r || r->kind != RES_FTRACE || r->start != addr)
		return addr;
	idx = cfg_insn_at(g, r->end);
	return idx >= 0 ? r->end : addr;
}

static uint64_t map_back(const struct splice_region *r, const uint16_t *offs,
			 size_t len, uint64_t base, uint64_t a)
{
	for (unsigned i = 0; i < r->ninsn; i++) {
		uint64_t lo = base + offs[i];
		uint64_t hi = i + 1 < r->ninsn ? base + offs[i + 1] : base + len;

		if (a >= lo && a < hi)
			return r->insns[i].addr;
	}
	return 0;
}

uint64_t splice_original_addr(const struct splice_plan *p,
			      const struct splice_params *sp,
			      const struct splice_code *code, uint64_t a)
{
	uint64_t o = map_back(&p->region, code->insn_off, code->tramp_len,
			      sp->tramp, a);

	if (!o && code->evict_tramp_len)
		o = map_back(&p->evict, code->evict_insn_off,
			     code->evict_tramp_len, sp->evict_tramp, a);
	return o;
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
			return reason_of_reloc(s);
	}
	if (replayed_bug)
		xw_jmp(w, r->addr + r->insns[0].len);
	else if (r->ninsn && insn_falls_through(&r->insns[r->ninsn - 1]))
		xw_jmp(w, r->addr + r->len);
	return w->err == XW_OK ? SPLICE_OK
	       : w->err == XW_RANGE ? SR_BRANCH_RANGE : SR_UNRELOCATABLE;
}

void splice_plan_join(struct splice_plan *p, uint64_t site, uint8_t len, const uint8_t *orig,
		      uint64_t join_at, uint64_t join_to)
{
	memset(p, 0, sizeof(*p));
	p->mode = SPLICE_JOIN;
	p->reason = SPLICE_OK;
	p->region.addr = site;
	p->region.len = len < SPLICE_REGION_MAX ? len : SPLICE_REGION_MAX;
	memcpy(p->region.orig, orig, p->region.len);
	p->join_at = join_at;
	p->join_to = join_to;
}

size_t splice_tramp_size(const struct splice_plan *p, size_t header_max)
{
	size_t n = header_max + JMP32_LEN;

	for (unsigned i = 0; i < p->region.ninsn; i++)
		n += reloc_max_len(&p->region.insns[i]);
	return n;
}

size_t splice_evict_tramp_size(const struct splice_plan *p)
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

int splice_emit(const struct splice_plan *p, const struct splice_params *sp,
		struct splice_code *out, enum splice_reason *why)
{
	struct x86w w;
	uint8_t b[SPLICE_REGION_MAX];
	enum splice_reason r;

	memset(out, 0, offsetof(struct splice_code, patches));
	out->npatch = 0;
	/* Only a plan splice_plan() accepted: a refused one has no region (its
	 * jmp would be filled with 0 - 5 bytes of int3). */
	if (p->reason != SPLICE_OK || !p->region.len) {
		*why = p->reason != SPLICE_OK ? p->reason : SR_TOO_SHORT;
		return -1;
	}
	/* a BUG/WARN replay reads pt_regs */
	out->reloc_off = sp->header->write(sp->header, sp->tramp, p->region.addr,
					   p->bug != BUG_NONE, p->flags_dead, out->tramp);
	if (!out->reloc_off) {
		*why = SR_BRANCH_RANGE;
		return -1;
	}
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
		if (w.err || jw.err || (out->tramp_len && out->tramp_len != out->reloc_off + JMP32_LEN)) {
			*why = SR_BRANCH_RANGE;
			return -1;
		}
		put_patch(out, p->join_at, b, was, JMP32_LEN);
		return 0;
	}
	r = emit_relocated(&w, &p->region, p->bug != BUG_NONE, out->insn_off);
	if (r != SPLICE_OK) {
		*why = r;
		return -1;
	}
	out->tramp_len = w.len;

	if (p->mode == SPLICE_TRAP)
		return 0;
	if (p->mode == SPLICE_BOUNCE && p->bounce_kind == BOUNCE_EVICT) {
		const struct splice_region *ev = &p->evict;
		struct x86w ew, pw;

		xw_init(&ew, out->evict_tramp, sizeof(out->evict_tramp), sp->evict_tramp);
		r = emit_relocated(&ew, ev, false, out->evict_insn_off);
		if (r != SPLICE_OK) {
			*why = r;
			return -1;
		}
		out->evict_tramp_len = ew.len;
		xw_init(&pw, b, sizeof(b), ev->addr);
		xw_jmp(&pw, sp->evict_tramp);
		xw_fill_int3(&pw, (size_t)(p->slot - ev->addr) - JMP32_LEN);
		xw_jmp(&pw, sp->tramp);
		xw_fill_int3(&pw, ev->len - pw.len);
		if (pw.err) {
			*why = SR_BRANCH_RANGE;
			return -1;
		}
		put_patch(out, ev->addr, b, ev->orig, ev->len);
	} else if (p->mode == SPLICE_BOUNCE) {
		struct x86w sw;

		xw_init(&sw, b, sizeof(b), p->slot);
		xw_jmp(&sw, sp->tramp);
		if (sw.err) {
			*why = SR_BRANCH_RANGE;
			return -1;
		}
		put_patch(out, p->slot, b, p->slot_orig, JMP32_LEN);
	}
	xw_init(&w, b, sizeof(b), p->region.addr);
	if (p->mode == SPLICE_BOUNCE)
		xw_jmp8(&w, p->slot);
	else
		xw_jmp(&w, sp->tramp);
	xw_fill_int3(&w, p->region.len - w.len);
	if (w.err) {
		*why = SR_BRANCH_RANGE;
		return -1;
	}
	put_patch(out, p->region.addr, b, p->region.orig, p->region.len);
	return 0;
}

static const char *const reason_names[SR_NREASONS][2] = {
	[SPLICE_OK] = { "ok", "spliceable" },
	[SR_NOT_TEXT] = { "not-text", "the address is not inside a known kernel function" },
	[SR_NOT_BOUNDARY] = { "mid-instruction", "the address is inside an instruction, not at its start" },
	[SR_PADDING] = { "padding", "the address is dead padding between functions or after a return, not code" },
	[SR_UNDECODABLE] = { "undecodable", "some of the function's bytes do not decode as instructions of its architecture, so its branches are not all known" },
	[SR_MISALIGNED_TARGET] = { "misaligned-target", "the function branches into the middle of an instruction, so its instruction boundaries are not certain" },
	[SR_JUMP_TABLE] = { "jump-table", "the function jumps through a table whose targets cannot be seen, so any byte may be a branch target" },
	[SR_INT3] = { "int3", "the region holds an int3, which belongs to a debugger or to the kernel's own patching" },
	[SR_UD2] = { "bug-site", "the region holds a BUG()/WARN() trap that gilk cannot replay: a ud2 past the region's start, or one that is not a BUG()/WARN() site in __bug_table; on arm64 any brk of __bug_table" },
	[SR_UNRELOCATABLE] = { "unrelocatable", "the region holds an instruction that cannot run at another address (xbegin, far transfer, call through [rsp]; on arm64 an exclusive store, a trap, a pointer-authenticated call, a SIMD&FP literal load)" },
	[SR_RIP_RANGE] = { "rip-range", "a RIP-relative operand would be out of ±2 GiB reach from the trampoline" },
	[SR_BRANCH_RANGE] = { "branch-range", "a branch target would be out of reach from the trampoline (x86's rel32, arm64's b: ±128 MiB)" },
	[SR_JUMP_LABEL] = { "jump-label", "the region holds a jump label (static key) site, which the kernel rewrites at run time" },
	[SR_STATIC_CALL] = { "static-call", "the region holds a static call site or trampoline, which the kernel rewrites at run time" },
	[SR_FTRACE] = { "ftrace", "the region holds an ftrace call site (splice after it)" },
	[SR_ENDBR] = { "endbr", "the region holds an endbr64, the landing pad of indirect calls under IBT (splice after it)" },
	[SR_EXTABLE] = { "extable", "the region holds an instruction with an exception-table entry: a fault there is fixed up by its address" },
	[SR_BLACKLIST] = { "blacklist", "the code is kprobe-blacklisted, noinstr or entry code: instrumenting it can recurse or run without a valid context" },
	[SR_KPROBE] = { "kprobe", "a kprobe is registered in the region" },
	[SR_SMP_LOCK] = { "smp-lock", "the region holds a lock prefix the kernel rewrites when CPUs come and go" },
	[SR_OCCUPIED] = { "occupied", "another splice already owns some of these bytes" },
	[SR_TOO_SHORT] = { "too-short", "not even a 2-byte jmp fits before the next branch target or the end of the function" },
	[SR_NO_BOUNCE_SLOT] = { "no-bounce-slot", "the block is shorter than a 5-byte jmp and no 5 free bytes lie within a 2-byte jmp's reach" },
	[SR_EMULATE_PREFIX] = { "emulate-prefix", "the region holds an instruction behind a hypervisor's emulation prefix (ud2; .ascii \"xen\"), which the hypervisor finds by its address" },
	[SR_OWN_PATH] = { "gilk-path", "gilk's own path runs this function (its int3 divert, through the kernel's die notifier chain, or its hit path): a splice here would be met again while gilk handles it" },
	[SR_EARLY_CPU] = { "early-cpu", "the code runs before the CPU's %gs holds its per-CPU base (a CPU coming on line, the resume from suspend), where every trampoline's per-CPU access faults: found from the code by gilk.ko, from the CPU's entry and each load of %gs to the write of its base" },
	[SR_RCU_IDLE] = { "rcu-idle", "the code runs while RCU does not watch the CPU (between ct_idle_enter() and ct_idle_exit(), and the idle states' enter functions), so no grace period waits for a CPU in its trampoline: found from the code by gilk.ko" },
	[SR_GILK_CODE] = { "gilk-code", "the code is gilk.ko's own: a splice there would run gilk inside itself, and gilk.ko refuses it" },
	[SR_NO_TABLES] = { "no-tables", "the kernel's tables (jump labels, ftrace sites, exception fixups, the kprobe blacklist) are not known, so no site is known to be safe: an arm64 kernel's kallsyms does not bound them, its System.map does" },
	[SR_EXCLUSIVE] = { "exclusive", "the site lies between a load-exclusive and its store-exclusive: the trampoline's stores would clear the exclusive monitor, and the loop around them would never end" },
	[SR_LANDING_PAD] = { "landing-pad", "the site is a landing pad of indirect branches (arm64's bti, or the paciasp a function starts with): a branch written there would fault under BTI (splice after it)" },
	[SR_IDLE] = { "idle", "idle code (.cpuidle.text, hlt, mwait, arm64's wfi and wfe): RCU-tasks does not wait for a CPU idling there, so its trampoline could be freed under it" },
};

const char *splice_reason_name(enum splice_reason r)
{
	return (unsigned)r < SR_NREASONS ? reason_names[r][0] : "?";
}

const char *splice_reason_str(enum splice_reason r)
{
	return (unsigned)r < SR_NREASONS ? reason_names[r][1] : "?";
}

const char *splice_limit_str(const struct splice_plan *p)
{
	if ((p->reason != SR_TOO_SHORT && p->reason != SR_NO_BOUNCE_SLOT) ||
	    p->limit == SPLICE_OK || p->limit == SR_TOO_SHORT)
		return NULL;
	return splice_reason_str(p->limit);
}

const char *splice_mode_name(enum splice_mode m)
{
	switch (m) {
	case SPLICE_JMP: return "jmp";
	case SPLICE_BOUNCE: return "bounce";
	case SPLICE_TRAP: return "trap";
	case SPLICE_JOIN: return "join";
	}
	return "?";
}
