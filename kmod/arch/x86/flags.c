// SPDX-License-Identifier: GPL-2.0
/* Flags liveness at a site, as the checker sees it (see flags.h). */
#include "flags.h"
#include "gilk_flag_effect.h"

/* The opcode's effect, by the rule the planner uses too. */
static enum gilk_flag_effect effect(const struct insn *in)
{
	return gilk_flag_effect(in->opcode.bytes[0],
				in->opcode.nbytes > 1 ? in->opcode.bytes[1] : 0,
				in->modrm.nbytes ? X86_MODRM_REG(in->modrm.bytes[0]) : 0,
				in->vex_prefix.nbytes, in->length);
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
		if (effect(&in) != GILK_FX_NONE)
			return effect(&in) == GILK_FX_WRITE_ALL;
		a += in.length;
	}
	return false;
}
