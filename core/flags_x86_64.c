/* Flags liveness at a site (see flags_x86_64.h). */
#include "flags_x86_64.h"

/* the one rule for an opcode, gilk.ko's checker's too (core/ sees no
 * more of include/ than this) */
#include "../include/gilk_flag_effect.h"

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e:
	case 0x26: case 0x64: case 0x65: case 0x66: case 0x67:
		return true;
	default:
		return false;
	}
}

/* The opcode past the prefixes, and its effect by the rule gilk.ko's
 * checker uses too. */
static enum gilk_flag_effect effect(const struct insn *in)
{
	unsigned i = 0;
	uint8_t o, o1;

	while (i < in->len && is_legacy_prefix(in->bytes[i]))
		i++;
	if (i < in->len && (in->bytes[i] & 0xf0) == 0x40)
		i++;                            /* REX */
	if (i >= in->len)
		return GILK_FX_UNKNOWN;
	o = in->bytes[i];
	o1 = i + 1 < in->len ? in->bytes[i + 1] : 0;
	/* o1 is the ModRM of a one-byte opcode, or a two-byte opcode's second */
	return gilk_flag_effect(o, o1, (uint8_t)((o1 >> 3) & 7),
				o == 0xc4 || o == 0xc5 || o == 0x62, in->len);
}

static bool fixed_up_or_patched(const struct textfacts *facts,
				const struct insn *in)
{
	return facts &&
	       (textfacts_overlaps(facts, in->addr, in->addr + in->len, RES_JUMP_LABEL) ||
		textfacts_overlaps(facts, in->addr, in->addr + in->len, RES_EXTABLE));
}

bool flags_dead_at(const struct cfg *g, const struct textfacts *facts,
		   uint64_t site)
{
	ssize_t i = cfg_insn_at(g, site);

	for (unsigned n = 0; n < FLAGS_WALK_MAX && i >= 0 && (size_t)i < g->ninsn; n++, i++) {
		const struct insn *in = &g->insns[i];
		enum gilk_flag_effect fx;

		if (n && in->addr != g->insns[i - 1].addr + g->insns[i - 1].len)
			return false;           /* not what runs next */
		if (fixed_up_or_patched(facts, in))
			return false;
		fx = effect(in);
		if (fx != GILK_FX_NONE)
			return fx == GILK_FX_WRITE_ALL;
	}
	return false;
}
