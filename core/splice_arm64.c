/* The arm64 site rules (see splice_arm64.h). */
#include "splice_arm64.h"

#include <string.h>

#include "decode_arm64.h"
#include "reloc_arm64.h"
#include "splice_internal.h"

/* How far back a store-exclusive is looked for its load: the kernel's LL/SC
 * loops (atomic_ll_sc.h, cmpxchg) hold a few instructions between the two;
 * kprobes looked as far back as this (MAX_ATOMIC_CONTEXT_SIZE). */
#define EXCLUSIVE_CONTEXT 16

static uint32_t word(const struct insn *in)
{
	uint32_t w;

	memcpy(&w, in->bytes, 4);
	return w;
}

static bool is_bti(const struct insn *in)
{
	return (word(in) & 0xffffff3fu) == 0xd503241fu;	/* hint #32, #34, #36, #38 */
}

bool arm64_is_pac_sp(const struct insn *in)
{
	uint32_t w = word(in);

	return w == 0xd503233fu || w == 0xd503237fu;	/* paciasp, pacibsp */
}

bool arm64_is_landing_pad(const struct cfg *g, const struct insn *in)
{
	return is_bti(in) || (arm64_is_pac_sp(in) && in->addr == g->start);
}

static bool inside_exclusive(const struct cfg *g, size_t idx)
{
	if (arm64_is_exclusive(word(&g->insns[idx]), false))
		return true;
	for (size_t k = 1; k <= EXCLUSIVE_CONTEXT && k <= idx; k++) {
		const struct insn *in = &g->insns[idx - k];
		uint32_t w = word(in);

		if (in->addr + 4 * k != g->insns[idx].addr)
			return false;	/* not one straight run of code */
		if (arm64_is_exclusive(w, true))
			return true;
		if (arm64_is_exclusive(w, false) || w == 0xd503305fu /* clrex */)
			return false;
	}
	return false;
}

enum splice_reason arm64_site_refusal(const struct cfg *g, size_t idx)
{
	const struct insn *in = &g->insns[idx];

	if (arm64_is_landing_pad(g, in))
		return SR_LANDING_PAD;
	if (inside_exclusive(g, idx))
		return SR_EXCLUSIVE;
	if (arm64_is_idle(in))
		return SR_IDLE;
	return SPLICE_OK;
}

/* arm64: the site's one instruction is the region, which a b replaces; no
 * bounce, no trap mode (splice_arm64.h says what the instruction must be).
 * A BUG() or WARN() brk stays: gilk.ko does not replay it there yet. */
int splice_plan_arm64(const struct splice_env *env, const struct cfg *g, size_t idx,
		      struct splice_plan *p)
{
	const struct insn *in = &g->insns[idx];
	enum splice_reason why;

	if (splice_is_reserved(env, in->addr, in->len, &why))
		return splice_refuse(p, why, in->addr);
	if (textfacts_bug(env->facts, in->addr) != BUG_NONE)
		return splice_refuse(p, SR_UD2, in->addr);
	why = arm64_site_refusal(g, idx);
	if (why == SPLICE_OK) {
		uint32_t w, out[RELOC_ARM64_MAX];
		size_t n;

		memcpy(&w, in->bytes, 4);
		why = splice_reason_of_reloc(reloc_arm64(w, in->addr, env->tramp_hint, out, &n));
	}
	if (why != SPLICE_OK)
		return splice_refuse(p, why, in->addr);
	if (splice_is_occupied(env, in->addr, in->len))
		return splice_refuse(p, SR_OCCUPIED, in->addr);
	memcpy(p->region.orig, in->bytes, in->len);
	p->region.insns[0] = *in;
	p->region.ninsn = 1;
	p->region.len = p->region.live = in->len;
	p->mode = SPLICE_JMP;
	p->image_only = splice_touches_alternative(env, &p->region);
	return 0;
}
