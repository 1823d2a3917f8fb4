/* The arm64 site rules (see splice_arm64.h). */
#include "splice_arm64.h"

#include <string.h>

#include "decode_arm64.h"

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

static bool is_pac_sp(const struct insn *in)
{
	uint32_t w = word(in);

	return w == 0xd503233fu || w == 0xd503237fu;	/* paciasp, pacibsp */
}

bool arm64_is_landing_pad(const struct cfg *g, const struct insn *in)
{
	return is_bti(in) || (is_pac_sp(in) && in->addr == g->start);
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
