// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's look at the displaced instructions (see verify_ctx.h): each
 * one decodable, displaceable and whole, and the trampoline's body exactly
 * their one faithful relocation, then the jump back.
 */
#include "verify_ctx.h"

/* What pushes v as a call would push its return address (flags kept). */
static size_t push64(u8 *out, u64 v)
{
	static const u8 lea[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };

	if ((u64)(s64)(s32)v == v) {
		out[0] = 0x68;
		put32(out + 1, (u32)v);
		return 5;
	}
	memcpy(out, lea, sizeof(lea));	/* lea rsp, [rsp - 8] */
	out[5] = 0xc7;			/* mov dword [rsp], lo */
	out[6] = 0x04;
	out[7] = 0x24;
	put32(out + 8, (u32)v);
	out[12] = 0xc7;			/* mov dword [rsp + 4], hi */
	out[13] = 0x44;
	out[14] = 0x24;
	out[15] = 0x04;
	put32(out + 16, (u32)(v >> 32));
	return 20;
}

/* Why in may not be displaced at all, or NULL. */
static const char *forbidden(const struct insn *in)
{
	u8 o = op0(in), o1 = op1(in), m = modrm(in);

	/* a ud2 can hide in the escape that emulation prefixes start with */
	if (in->emulate_prefix_size)
		return "an emulation prefix";
	if (vex(in))
		return NULL;
	switch (o) {
	case 0xcc: case 0xcd: case 0xce: case 0xf1:
		return "a trap instruction (int3, int, into, int1)";
	case 0xf4:
		return "hlt: idle code";
	case 0xc7:
		return m == 0xf8 ? "xbegin" : NULL;
	case 0xff:
		if (X86_MODRM_REG(m) == 3 || X86_MODRM_REG(m) == 5)
			return "a far call or jmp";
		return NULL;
	case 0x0f:
		break;
	default:
		return NULL;
	}
	if (is_ud(in))
		return "a ud0/ud1/ud2 the trap handler finds by address";
	switch (o1) {
	case 0x05: case 0x07: case 0x34: case 0x35:
		return "syscall, sysret, sysenter or sysexit";
	case 0x1e:
		/* moved, the next indirect call faults (#CP) on an IBT CPU */
		if (has_prefix(in, 0xf3) && (m == 0xfa || m == 0xfb))
			return "an endbr, where indirect calls land under IBT";
		return NULL;
	case 0x01:
		if (m == 0xc8 || m == 0xc9 || m == 0xfa || m == 0xfb)
			return "monitor or mwait: idle code";
		return NULL;
	case 0xae:
		if (X86_MODRM_REG(m) == 6 && X86_MODRM_MOD(m) == 3 &&
		    (has_prefix(in, 0x66) || has_prefix(in, 0xf2) ||
		     has_prefix(in, 0xf3)))
			return "tpause, umwait or umonitor: idle code";
		return NULL;
	default:
		return NULL;
	}
}

/* Only branch hints (and bnd) may be dropped from a direct branch. */
static bool branch_prefixes_ok(const struct insn *in, const u8 *b)
{
	int i;

	if (rex(in))
		return false;
	for (i = 0; i < in->prefixes.nbytes; i++)
		if (b[i] != 0x2e && b[i] != 0x3e && b[i] != 0xf2)
			return false;
	return true;
}

/* Register rsp in the operand: a push before it moves what it reads. */
static bool uses_rsp(const struct insn *in)
{
	u8 m = modrm(in);
	bool b = rex(in) & 1;

	if (X86_MODRM_RM(m) != 4 || b)
		return false;
	return X86_MODRM_MOD(m) == 3 ||
	       (in->sib.nbytes && X86_SIB_BASE(in->sib.bytes[0]) == 4);
}

/*
 * Copies the instruction's bytes to out for running at to: a RIP-relative
 * displacement rebased to the same absolute address. NULL, or why not.
 */
static const char *copy_rebased(struct insn *in, const u8 *b, unsigned long a,
				unsigned long to, u8 *out)
{
	int off;
	long abs, d;

	memcpy(out, b, in->length);
	if (!is_rip_relative(in))
		return NULL;
	off = insn_offset_displacement(in);
	abs = (long)(a + in->length) + get32(b + off);
	d = abs - (long)(to + in->length);
	if (!rel32_ok(d))
		return "a RIP-relative operand out of reach";
	put32(out + off, (u32)d);
	return NULL;
}

/*
 * The one relocation gilk accepts for the instruction in (bytes b, at a) when
 * it runs at to: into out, *n bytes. NULL, or why it cannot move.
 */
static const char *relocate(const struct vctx *v, struct insn *in, const u8 *b,
			    unsigned long a, unsigned long to, u8 *out, size_t *n)
{
	unsigned long end = a + in->length;
	u8 o = op0(in), o1 = op1(in);
	const char *why = forbidden(in);
	unsigned long target = end + in->immediate.value;
	size_t k;

	if (why)
		return why;
	if (vex(in)) {
		*n = in->length;
		return copy_rebased(in, b, a, to, out);
	}
	if (((o >= 0x70 && o <= 0x7f) || (o >= 0xe0 && o <= 0xe3) || o == 0xe8 ||
	     o == 0xe9 || o == 0xeb || (o == 0x0f && o1 >= 0x80 && o1 <= 0x8f)) &&
	    lands_inside(v, target))
		return "a branch into bytes the splice overwrites";
	if (o == 0xeb || o == 0xe9 || o == 0xe8 || (o >= 0x70 && o <= 0x7f) ||
	    (o == 0x0f && o1 >= 0x80 && o1 <= 0x8f)) {
		if (!branch_prefixes_ok(in, b))
			return "a direct branch with a prefix that changes it";
		if (o == 0xe8) {
			k = push64(out, end);
			*n = k + JMP32;
			return jmp32(out + k, to + k, target) ? NULL :
			       "a call target out of reach";
		}
		if (o == 0xeb || o == 0xe9) {
			*n = JMP32;
			return jmp32(out, to, target) ? NULL : "a jmp target out of reach";
		}
		out[0] = 0x0f;		/* jcc rel32, same condition */
		out[1] = 0x80 | ((o == 0x0f ? o1 : o) & 15);
		put32(out + 2, (u32)(target - (to + 6)));
		*n = 6;
		return rel32_ok((long)(target - (to + 6))) ? NULL :
		       "a jcc target out of reach";
	}
	if (o >= 0xe0 && o <= 0xe3) {
		/* loop +2; jmp8 +5 (not taken); jmp target (taken) */
		memcpy(out, b, in->length);
		out[in->length - 1] = 2;
		out[in->length] = 0xeb;
		out[in->length + 1] = 5;
		*n = in->length + 2 + JMP32;
		return jmp32(out + in->length + 2, to + in->length + 2, target) ?
		       NULL : "a loop target out of reach";
	}
	if (o == 0xff && X86_MODRM_REG(modrm(in)) == 2) {
		if (uses_rsp(in))
			return "an indirect call through rsp";
		k = push64(out, end);
		why = copy_rebased(in, b, a, to + k, out + k);
		/* ff /2 (call) becomes ff /4 (jmp) */
		out[k + insn_offset_modrm(in)] = (modrm(in) & ~0x38) | 4 << 3;
		*n = k + in->length;
		return why;
	}
	*n = in->length;
	return copy_rebased(in, b, a, to, out);
}

/*
 * The displaced instructions of [a, a + len) (bytes orig; the live text
 * after them, for a last padding instruction that runs past the end) against
 * the proposed relocation t of tlen bytes at ta. part and base name where
 * t lives in a refusal. bug: the first instruction is a replayed ud2.
 */
int gilk_vcheck_relocated(struct vctx *v, const char *part, u32 base,
			  unsigned long a, const u8 *orig, u32 len, bool bug,
			  const u8 *t, u32 tlen, unsigned long ta)
{
	u8 win[GILK_PATCH_MAX_LEN + MAX_INSN_SIZE], exp[RELOC_MAX];
	bool falls = true, call = false;
	u32 k = 0, pos = 0, i;
	struct insn in;
	size_t n;

	memcpy(win, orig, len);
	if (v->env->read(v->env, a + len, win + len, MAX_INSN_SIZE))
		memset(win + len, 0, MAX_INSN_SIZE);
	if (bug) {
		enum gilk_bug_kind kind = v->env->bug_kind(v->env, a);

		if (gilk_vdecode(v, &in, win, len + MAX_INSN_SIZE) || !is_ud(&in) ||
		    op1(&in) != 0x0b || kind == GILK_NOT_BUG)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_SITE, "site", 0, "no BUG/WARN ud2 to replay");
		if (kind == GILK_WARN && len != in.length)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_SITE, "site", in.length, "a WARN resumes after its ud2: nothing else may be displaced");
		k = in.length;
		falls = false;
	}
	while (k < len && falls) {
		const char *why;

		if (gilk_vdecode(v, &in, win + k, len + MAX_INSN_SIZE - k))
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_SITE, "site", k, "undecodable instruction at 0x%lx", a + k);
		if (k + in.length > len)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_SITE, "site", k, "the region ends inside the instruction at 0x%lx", a + k);
		if (call)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_SITE, "site", k, "a call must end the region: its callee returns after it");
		why = relocate(v, &in, win + k, a + k, ta + pos, exp, &n);
		if (why)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_SITE, "site", k, "%s at 0x%lx", why, a + k);
		/* by what it becomes: a cs-prefixed jmp to a thunk loses its prefix */
		if (tlen - pos < n)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_RELOCATION, part, base + pos, "missing relocation of the instruction at 0x%lx", a + k);
		for (i = 0; i < n; i++)
			if (pos + i >= tlen || t[pos + i] != exp[i])
				return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_RELOCATION, part, base + pos + i, "not the relocation of the instruction at 0x%lx",
					      a + k);
		call = is_call(&in);
		falls = gilk_vfalls_through(v, &in, a + k);
		pos += n;
		k += in.length;
	}
	/* Nothing runs into the rest: it must be padding. */
	while (k < len) {
		if (gilk_vdecode(v, &in, win + k, len + MAX_INSN_SIZE - k) || !is_padding(&in))
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_SITE, "site", k, "live code after the last displaced instruction at 0x%lx", a + k);
		k += in.length;
	}
	if (bug || falls) {
		unsigned long back = bug ? a + 2 : a + len;

		if (tlen - pos < JMP32 || !jmp32(exp, ta + pos, back) ||
		    memcmp(t + pos, exp, JMP32)) {
			for (i = 0; i < JMP32 && pos + i < tlen && t[pos + i] == exp[i]; i++)
				;
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_RELOCATION, part, base + pos + i, "not the jump back to 0x%lx", back);
		}
		pos += JMP32;
	}
	if (pos != tlen)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_RELOCATION, part, base + pos, "bytes after the end of the relocated code");
	return 0;
}

