/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the code checker's parts share. verify.c checks a request whole: its
 * lengths, the bytes written at the site, a bounce slot or an evicted
 * neighbour, and the trampoline's header; verify_reloc.c the displaced
 * instructions against their relocation; verify_walk.c the functions
 * around, walked for edges (branches, jump tables, neighbours' jumps, hidden
 * edges) into what the splice overwrites. verify_ctx.c holds the functions
 * below all three.
 */
#ifndef _GILK_VERIFY_CTX_H
#define _GILK_VERIFY_CTX_H

#include "flags.h"
#include "gilk_tramp.h"
#include "verify.h"

#define JMP32 5
#define JMP8 2
#define RELOC_MAX 48	/* the longest relocation of one instruction */

struct vctx {
	const struct gilk_splice *req;
	const struct gilk_verify_env *env;
	struct gilk_why *why;
	/* what the splice overwrites: no relocated branch may land inside */
	unsigned long region, evicted, slot;
	u32 region_len, evicted_len;
};

/* Every refusal of the checker's, as the table's code (GILK_REFUSED_UNVERIFIED_*). */
__printf(5, 6) int gilk_vrefuse(struct vctx *v, u32 code, const char *part, u32 off,
				const char *fmt, ...);

/* Decodes one instruction of b's len bytes: 0, or -1. */
int gilk_vdecode(const struct vctx *v, struct insn *in, const u8 *b, int len);

/* A BUG() ud2 does not come back; a WARN() goes on after it. */
bool gilk_vfalls_through(const struct vctx *v, const struct insn *in,
			 unsigned long a);

/* The displaced instructions against their relocation (verify_reloc.c). */
int gilk_vcheck_relocated(struct vctx *v, const char *part, u32 base,
			  unsigned long a, const u8 *orig, u32 len, bool bug,
			  const u8 *t, u32 tlen, unsigned long ta);

/* Walks [lo, hi) of its function: no edge into what the splice overwrites (verify_walk.c). */
int gilk_vwalk(struct vctx *v, const char *part, unsigned long lo,
	       unsigned long hi, bool dead);

/* Every patch and the site within their functions (verify_walk.c). */
int gilk_vcheck_bounds(struct vctx *v);

/* No edge of the functions touched lands in what the splice overwrites (verify_walk.c). */
int gilk_vcheck_edges(struct vctx *v);

static inline bool rel32_ok(long d)
{
	return d >= -0x80000000L && d <= 0x7fffffffL;
}

static inline void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline s32 get32(const u8 *p)
{
	return (s32)(p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24);
}

/* `jmp rel32` from at to target into out; false when out of reach. */
static inline bool jmp32(u8 *out, unsigned long at, unsigned long target)
{
	long d = (long)(target - (at + JMP32));

	out[0] = 0xe9;
	put32(out + 1, (u32)d);
	return rel32_ok(d);
}

static inline u8 op0(const struct insn *in)
{
	return in->opcode.bytes[0];
}

static inline u8 op1(const struct insn *in)
{
	return in->opcode.nbytes > 1 ? in->opcode.bytes[1] : 0;
}

static inline u8 modrm(const struct insn *in)
{
	return in->modrm.nbytes ? in->modrm.bytes[0] : 0;
}

static inline u8 rex(const struct insn *in)
{
	return in->rex_prefix.nbytes ? in->rex_prefix.bytes[0] : 0;
}

/*
 * VEX/EVEX: opcode.bytes[0] is the opcode in the VEX map, not a legacy one
 * (vpor is eb, not jmp): such an instruction is only ever copied.
 */
static inline bool vex(const struct insn *in)
{
	return in->vex_prefix.nbytes;
}

static inline bool is_rip_relative(const struct insn *in)
{
	return in->modrm.nbytes && X86_MODRM_MOD(modrm(in)) == 0 &&
	       X86_MODRM_RM(modrm(in)) == 5;
}

static inline bool has_prefix(const struct insn *in, u8 b)
{
	int i;

	for (i = 0; i < 4; i++)
		if (in->prefixes.bytes[i] == b)
			return true;
	return false;
}

static inline bool is_padding(const struct insn *in)
{
	if (vex(in))
		return false;
	if (op0(in) == 0xcc)
		return true;
	/* 90 is nop only without REX.B (41 90 is xchg r8, rax); f3 90 is pause */
	if (op0(in) == 0x90 && !(rex(in) & 1) && in->opcode.nbytes == 1)
		return !has_prefix(in, 0xf3);
	return op0(in) == 0x0f && op1(in) == 0x1f && X86_MODRM_REG(modrm(in)) == 0;
}

static inline bool is_ud(const struct insn *in)
{
	return !vex(in) && op0(in) == 0x0f && (op1(in) == 0x0b || op1(in) == 0xb9 || op1(in) == 0xff);
}

static inline bool is_call(const struct insn *in)
{
	return !vex(in) &&
	       (op0(in) == 0xe8 || (op0(in) == 0xff && X86_MODRM_REG(modrm(in)) == 2));
}

/* Inside what the splice overwrites, past the start of a region. */
static inline bool lands_inside(const struct vctx *v, unsigned long t)
{
	return (t > v->region && t < v->region + v->region_len) ||
	       (v->evicted_len && t > v->evicted && t < v->evicted + v->evicted_len) ||
	       (v->slot && t >= v->slot && t < v->slot + JMP32);
}

#endif
