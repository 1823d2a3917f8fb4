// SPDX-License-Identifier: GPL-2.0
/* Flags liveness at a site, as the checker sees it (see flags.h). */
#include "flags.h"

#define NOP5 5

/* FX_NONE: reads none (inc and dec write all but CF: the walk goes on) */
enum flag_effect { FX_UNKNOWN, FX_NONE, FX_WRITE_ALL };

static enum flag_effect effect(const struct insn *in)
{
	u8 o = in->opcode.bytes[0];
	u8 o1 = in->opcode.nbytes > 1 ? in->opcode.bytes[1] : 0;
	u8 reg = in->modrm.nbytes ? X86_MODRM_REG(in->modrm.bytes[0]) : 0;

	if (in->vex_prefix.nbytes)
		return FX_UNKNOWN;
	/* add or and sub xor cmp, each in its six forms */
	if (o < 0x40 && (o & 7) <= 5 && (o >> 3) != 2 && (o >> 3) != 3)
		return FX_WRITE_ALL;
	switch (o) {
	case 0x80: case 0x81: case 0x83:	/* /2 adc and /3 sbb read CF */
		return reg == 2 || reg == 3 ? FX_UNKNOWN : FX_WRITE_ALL;
	case 0x84: case 0x85: case 0xa8: case 0xa9:	/* test */
		return FX_WRITE_ALL;
	case 0xf6: case 0xf7:
		return reg == 0 ? FX_WRITE_ALL : FX_UNKNOWN;
	case 0xfe: case 0xff:
		return reg <= 1 ? FX_NONE : FX_UNKNOWN;
	case 0x88: case 0x89: case 0x8a: case 0x8b: case 0x8d: case 0x63:
	case 0x90:
		return FX_NONE;
	case 0xc6: case 0xc7:		/* mov /0 (c7 f8 is xbegin) */
		return reg == 0 ? FX_NONE : FX_UNKNOWN;
	case 0x0f:
		if (o1 == 0xb6 || o1 == 0xb7 || o1 == 0xbe || o1 == 0xbf)
			return FX_NONE;
		if (o1 == 0x1f)
			return in->length < NOP5 ? FX_NONE : FX_UNKNOWN;
		return FX_UNKNOWN;
	default:
		if ((o >= 0x50 && o <= 0x5f) || (o >= 0xb0 && o <= 0xbf))
			return FX_NONE;	/* push, pop, mov imm */
		return FX_UNKNOWN;
	}
}

bool gilk_flags_dead(const struct gilk_verify_env *env, unsigned long site)
{
	unsigned long a = site;
	unsigned int n;
	u8 buf[MAX_INSN_SIZE];
	struct insn in;

	for (n = 0; n < GILK_FLAGS_WALK_MAX; n++) {
		if (env->read(env, a, buf, sizeof(buf)) ||
		    env->decode(&in, buf, sizeof(buf), INSN_MODE_64) < 0 ||
		    !in.length || env->jump_label(env, a, in.length) ||
		    env->fixup(env, a, in.length))
			return false;
		if (effect(&in) != FX_NONE)
			return effect(&in) == FX_WRITE_ALL;
		a += in.length;
	}
	return false;
}
