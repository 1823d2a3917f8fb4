/* Flags liveness at a site (see flags.h). */
#include "flags.h"

#define NOP5 5

/* NONE: reads no flag (inc and dec keep CF: the walk goes on past them) */
enum flag_effect { FX_UNKNOWN, FX_NONE, FX_WRITE_ALL };

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

static enum flag_effect effect(const struct insn *in)
{
	unsigned i = 0;
	uint8_t o, o1, reg;

	while (i < in->len && is_legacy_prefix(in->bytes[i]))
		i++;
	if (i < in->len && (in->bytes[i] & 0xf0) == 0x40)
		i++;                            /* REX */
	if (i >= in->len)
		return FX_UNKNOWN;
	o = in->bytes[i];
	o1 = i + 1 < in->len ? in->bytes[i + 1] : 0;
	/* the ModRM reg field, for one-byte opcodes (two-byte ones below
	 * need none) */
	reg = (uint8_t)((o1 >> 3) & 7);
	if (o == 0xc4 || o == 0xc5 || o == 0x62)
		return FX_UNKNOWN;              /* VEX, EVEX */
	/* add or and sub xor cmp, each in its six forms (not adc, sbb) */
	if (o < 0x40 && (o & 7) <= 5 && (o >> 3) != 2 && (o >> 3) != 3)
		return FX_WRITE_ALL;
	switch (o) {
	case 0x80: case 0x81: case 0x83:
		return reg == 2 || reg == 3 ? FX_UNKNOWN : FX_WRITE_ALL;
	case 0x84: case 0x85: case 0xa8: case 0xa9:
		return FX_WRITE_ALL;
	case 0xf6: case 0xf7:
		return reg == 0 ? FX_WRITE_ALL : FX_UNKNOWN;
	case 0xfe: case 0xff:
		return reg <= 1 ? FX_NONE : FX_UNKNOWN;
	case 0x88: case 0x89: case 0x8a: case 0x8b: case 0x8d: case 0x63:
	case 0x90:
		return FX_NONE;
	case 0xc6: case 0xc7:
		return reg == 0 ? FX_NONE : FX_UNKNOWN;
	case 0x0f:
		if (o1 == 0xb6 || o1 == 0xb7 || o1 == 0xbe || o1 == 0xbf)
			return FX_NONE;
		if (o1 == 0x1f)
			return in->len < NOP5 ? FX_NONE : FX_UNKNOWN;
		return FX_UNKNOWN;
	default:
		if ((o >= 0x50 && o <= 0x5f) || (o >= 0xb0 && o <= 0xbf))
			return FX_NONE;
		return FX_UNKNOWN;
	}
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
		enum flag_effect fx;

		if (n && in->addr != g->insns[i - 1].addr + g->insns[i - 1].len)
			return false;           /* not what runs next */
		if (fixed_up_or_patched(facts, in))
			return false;
		fx = effect(in);
		if (fx != FX_NONE)
			return fx == FX_WRITE_ALL;
	}
	return false;
}
