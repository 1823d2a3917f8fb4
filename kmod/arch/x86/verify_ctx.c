// SPDX-License-Identifier: GPL-2.0
/*
 * What the code checker's parts share (verify_ctx.h): how a refusal is
 * written, how one instruction is decoded, and whether it falls through.
 * Below verify.c, verify_reloc.c and verify_walk.c, which all use them.
 */
#ifdef __KERNEL__
#include <linux/stdarg.h>
#else
#include <stdarg.h>
#endif

#include "verify_ctx.h"

__printf(5, 6) int gilk_vrefuse(struct vctx *v, u32 code, const char *part, u32 off,
				const char *fmt, ...)
{
	struct gilk_why *why = v->why;
	va_list ap;
	int n;

	*why->code = code;
	n = snprintf(why->text, why->len, "unverified code at %s+%u: ", part, off);
	if (n >= 0 && (size_t)n < why->len) {
		va_start(ap, fmt);
		vsnprintf(why->text + n, why->len - n, fmt, ap);
		va_end(ap);
	}
	return gilk_refusal_errno(code);
}

int gilk_vdecode(const struct vctx *v, struct insn *in, const u8 *b, int len)
{
	int ret = v->env->decode(in, b, len, INSN_MODE_64);

	return ret < 0 || !in->length || in->length > len ? -1 : 0;
}

bool gilk_vfalls_through(const struct vctx *v, const struct insn *in,
			 unsigned long a)
{
	if (vex(in))
		return true;
	switch (op0(in)) {
	case 0xeb: case 0xe9:			/* jmp */
	case 0xc2: case 0xc3: case 0xca: case 0xcb: case 0xcf:	/* ret, iret */
		return false;
	case 0xff:
		return X86_MODRM_REG(modrm(in)) != 4 && X86_MODRM_REG(modrm(in)) != 5;
	case 0x0f:
		if (op1(in) == 0x0b)
			return v->env->bug_kind(v->env, a) != GILK_BUG;
		return true;
	default:
		return true;
	}
}
