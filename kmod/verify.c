// SPDX-License-Identifier: GPL-2.0
/*
 * The code checker (see verify.h). For every byte proposed it derives what
 * gilk itself would accept there and compares: the relocation of an
 * instruction has one faithful form, so "the same instructions in the same
 * order, each relocated as documented" is checked byte for byte.
 */
#ifdef __KERNEL__
#include <linux/stdarg.h>
#else
#include <stdarg.h>
#endif

#include "flags.h"
#include "tramp.h"
#include "verify.h"

#define JMP32 5
#define JMP8 2
#define RELOC_MAX 48	/* the longest relocation of one instruction */

struct vctx {
	const struct gilk_splice *req;
	const struct gilk_verify_env *env;
	char *reason;
	size_t rlen;
	/* what the splice overwrites: no relocated branch may land inside */
	unsigned long region, evicted, slot;
	u32 region_len, evicted_len;
};

static __printf(4, 5) int refuse(struct vctx *v, const char *part, u32 off,
				 const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(v->reason, v->rlen, "unverified code at %s+%u: ", part, off);
	if (n >= 0 && (size_t)n < v->rlen) {
		va_start(ap, fmt);
		vsnprintf(v->reason + n, v->rlen - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static bool rel32_ok(long d)
{
	return d >= -0x80000000L && d <= 0x7fffffffL;
}

static void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static s32 get32(const u8 *p)
{
	return (s32)(p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24);
}

/* `jmp rel32` from at to target into out; false when out of reach. */
static bool jmp32(u8 *out, unsigned long at, unsigned long target)
{
	long d = (long)(target - (at + JMP32));

	out[0] = 0xe9;
	put32(out + 1, (u32)d);
	return rel32_ok(d);
}

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

static u8 op0(const struct insn *in)
{
	return in->opcode.bytes[0];
}

static u8 op1(const struct insn *in)
{
	return in->opcode.nbytes > 1 ? in->opcode.bytes[1] : 0;
}

static u8 modrm(const struct insn *in)
{
	return in->modrm.nbytes ? in->modrm.bytes[0] : 0;
}

static u8 rex(const struct insn *in)
{
	return in->rex_prefix.nbytes ? in->rex_prefix.bytes[0] : 0;
}

/*
 * VEX/EVEX: opcode.bytes[0] is the opcode in the VEX map, not a legacy one
 * (vpor is eb, not jmp): such an instruction is only ever copied.
 */
static bool vex(const struct insn *in)
{
	return in->vex_prefix.nbytes;
}

static bool is_rip_relative(const struct insn *in)
{
	return in->modrm.nbytes && X86_MODRM_MOD(modrm(in)) == 0 &&
	       X86_MODRM_RM(modrm(in)) == 5;
}

static bool has_prefix(const struct insn *in, u8 b)
{
	int i;

	for (i = 0; i < 4; i++)
		if (in->prefixes.bytes[i] == b)
			return true;
	return false;
}

static bool is_padding(const struct insn *in)
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

static bool is_ud(const struct insn *in)
{
	return !vex(in) && op0(in) == 0x0f && (op1(in) == 0x0b || op1(in) == 0xb9 || op1(in) == 0xff);
}

static bool is_call(const struct insn *in)
{
	return !vex(in) &&
	       (op0(in) == 0xe8 || (op0(in) == 0xff && X86_MODRM_REG(modrm(in)) == 2));
}

/* A BUG() ud2 does not come back; a WARN() goes on after it. */
static bool falls_through(const struct vctx *v, const struct insn *in,
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
/* Inside what the splice overwrites, past the start of a region. */
static bool lands_inside(const struct vctx *v, unsigned long t)
{
	return (t > v->region && t < v->region + v->region_len) ||
	       (v->evicted_len && t > v->evicted && t < v->evicted + v->evicted_len) ||
	       (v->slot && t >= v->slot && t < v->slot + JMP32);
}

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

static int decode(const struct vctx *v, struct insn *in, const u8 *b, int len)
{
	int ret = v->env->decode(in, b, len, INSN_MODE_64);

	return ret < 0 || !in->length || in->length > len ? -1 : 0;
}

/*
 * The displaced instructions of [a, a + len) (bytes orig; the live text
 * after them, for a last padding instruction that runs past the end) against
 * the proposed relocation t of tlen bytes at ta. part and base name where
 * t lives in a refusal. bug: the first instruction is a replayed ud2.
 */
static int check_relocated(struct vctx *v, const char *part, u32 base,
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

		if (decode(v, &in, win, len + MAX_INSN_SIZE) || !is_ud(&in) ||
		    op1(&in) != 0x0b || kind == GILK_NOT_BUG)
			return refuse(v, "site", 0, "no BUG/WARN ud2 to replay");
		if (kind == GILK_WARN && len != in.length)
			return refuse(v, "site", in.length, "a WARN resumes after its ud2: nothing else may be displaced");
		k = in.length;
		falls = false;
	}
	while (k < len && falls) {
		const char *why;

		if (decode(v, &in, win + k, len + MAX_INSN_SIZE - k))
			return refuse(v, "site", k, "undecodable instruction at 0x%lx", a + k);
		if (k + in.length > len)
			return refuse(v, "site", k, "the region ends inside the instruction at 0x%lx", a + k);
		if (call)
			return refuse(v, "site", k, "a call must end the region: its callee returns after it");
		why = relocate(v, &in, win + k, a + k, ta + pos, exp, &n);
		if (why)
			return refuse(v, "site", k, "%s at 0x%lx", why, a + k);
		/* by what it becomes: a cs-prefixed jmp to a thunk loses its prefix */
		if (tlen - pos < n)
			return refuse(v, part, base + pos, "missing relocation of the instruction at 0x%lx", a + k);
		for (i = 0; i < n; i++)
			if (pos + i >= tlen || t[pos + i] != exp[i])
				return refuse(v, part, base + pos + i, "not the relocation of the instruction at 0x%lx",
					      a + k);
		call = is_call(&in);
		falls = falls_through(v, &in, a + k);
		pos += n;
		k += in.length;
	}
	/* Nothing runs into the rest: it must be padding. */
	while (k < len) {
		if (decode(v, &in, win + k, len + MAX_INSN_SIZE - k) || !is_padding(&in))
			return refuse(v, "site", k, "live code after the last displaced instruction at 0x%lx", a + k);
		k += in.length;
	}
	if (bug || falls) {
		unsigned long back = bug ? a + 2 : a + len;

		if (tlen - pos < JMP32 || !jmp32(exp, ta + pos, back) ||
		    memcmp(t + pos, exp, JMP32)) {
			for (i = 0; i < JMP32 && pos + i < tlen && t[pos + i] == exp[i]; i++)
				;
			return refuse(v, part, base + pos + i, "not the jump back to 0x%lx", back);
		}
		pos += JMP32;
	}
	if (pos != tlen)
		return refuse(v, part, base + pos, "bytes after the end of the relocated code");
	return 0;
}

/* What reaches an instruction from the one before it. */
enum flow {
	FLOW_LIVE,	/* control falls into it */
	FLOW_DEAD,	/* nothing does: padding after a jmp, ret or BUG */
	/*
	 * after a call: only if the callee returns, and where the bytes are
	 * int3 the original would trap there too (noreturn calls end so)
	 */
	FLOW_AFTER_CALL,
};

/*
 * The memo's marks for the function starting at func (made if new). env is
 * const, the memo it points at is the batch's to change.
 */
static struct gilk_walk_fn *memo_fn(const struct gilk_verify_env *env,
				    unsigned long func)
{
	struct gilk_walk_memo *m = env->memo;
	struct gilk_walk_fn *f, *oldest;
	u32 i;

	if (!m)
		return NULL;
	oldest = &m->fn[0];
	for (i = 0; i < GILK_WALK_FUNCS; i++) {
		f = &m->fn[i];
		if (f->func == func) {
			f->used = ++m->clock;
			return f;
		}
		if (f->used < oldest->used)
			oldest = f;
	}
	oldest->func = func;
	oldest->used = ++m->clock;
	oldest->n = 0;
	oldest->step = GILK_WALK_STEP;
	oldest->targets_known = false;
	return oldest;
}

/* The last mark at or below lo, or the function's start. */
static unsigned long memo_resume(const struct gilk_walk_fn *f, unsigned long lo)
{
	u32 a = 0, b = f->n;

	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (f->at[mid] <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a ? f->at[a - 1] : f->func;
}

/* a starts an instruction control falls into: a mark, if far enough on. */
static void memo_note(struct gilk_walk_fn *f, unsigned long a)
{
	u32 i;

	if (a < (f->n ? f->at[f->n - 1] : f->func) + f->step)
		return;
	if (f->n == GILK_WALK_MARKS) {
		/* the odd ones stay: 2 * step apart, and from the start */
		for (i = 0; i < GILK_WALK_MARKS / 2; i++)
			f->at[i] = f->at[2 * i + 1];
		f->n = GILK_WALK_MARKS / 2;
		f->step *= 2;
		if (a < f->at[f->n - 1] + f->step)
			return;
	}
	f->at[f->n++] = a;
}

/* Text read ahead for decoding one instruction after another. */
struct text_cursor {
	unsigned long got;	/* the address of buf[0] */
	size_t valid;		/* bytes of buf read */
	u8 buf[64];
};

/*
 * Decodes the instruction at a, reading no further than end: 0, -EFAULT
 * where the text cannot be read, -EINVAL where it does not decode.
 */
static int next_insn(const struct vctx *v, struct text_cursor *c, unsigned long a,
		     unsigned long end, struct insn *in)
{
	size_t off = a - c->got;

	if (!c->valid || a < c->got || off + MAX_INSN_SIZE > c->valid) {
		c->valid = end - a < sizeof(c->buf) ? end - a : sizeof(c->buf);
		if (v->env->read(v->env, a, c->buf, c->valid)) {
			c->valid = end - a < MAX_INSN_SIZE ? end - a : MAX_INSN_SIZE;
			if (v->env->read(v->env, a, c->buf, c->valid)) {
				c->valid = 0;
				return -EFAULT;
			}
		}
		c->got = a;
		off = 0;
	}
	return decode(v, in, c->buf + off, c->valid - off) ? -EINVAL : 0;
}

/*
 * Decodes the function holding lo from its start, as kprobes' can_probe()
 * does, up to hi. With dead, every instruction overlapping [lo, hi) must be
 * padding that nothing falls into; otherwise lo must start an instruction.
 * With a memo, from the last mark at or below lo instead: control falls in
 * there, as at the start, and what the walk from the start decides past it
 * depends only on the instructions from it on (the last non-padding one
 * before a dead range, the jmp a jump label may turn into a nop, is found
 * after it, or the range is not dead). Where the text changed since the
 * mark was made (a jump label or an ftrace site, their lengths kept), the
 * walk from the mark decides the same or refuses where that from the start
 * would not: it starts with control falling in, the strictest state.
 */
static int walk(struct vctx *v, const char *part, unsigned long lo,
		unsigned long hi, bool dead)
{
	unsigned long a = v->env->func_start(v->env, lo), ender = 0, ret_to = 0;
	enum flow flow = FLOW_LIVE;
	struct gilk_walk_fn *marks;
	struct text_cursor c = { 0 };
	struct insn in;
	int err;

	if (!a || a > lo)
		return refuse(v, part, 0, "0x%lx is in no known function", lo);
	marks = memo_fn(v->env, a);
	if (marks)
		a = memo_resume(marks, lo);
	while (a < hi) {
		if (marks && flow == FLOW_LIVE)
			memo_note(marks, a);
		err = next_insn(v, &c, a, ~0UL, &in);
		if (err == -EFAULT)
			return refuse(v, part, 0, "cannot read the code at 0x%lx", a);
		if (err)
			return refuse(v, part, 0, "cannot decode the function up to 0x%lx (stuck at 0x%lx)", lo, a);
		if (!dead && a + in.length > lo)
			return a == lo ? 0 :
			       refuse(v, part, 0, "0x%lx is inside the instruction at 0x%lx", lo, a);
		/*
		 * A noreturn callee that came back after all would meet the
		 * int3 there, not run a slot: the return address stays int3.
		 */
		if (dead && a == lo && flow == FLOW_AFTER_CALL && ret_to == lo)
			return refuse(v, part, 0, "0x%lx is where the call at 0x%lx returns to",
				      lo, ender);
		if (!is_padding(&in) ||
		    (flow == FLOW_AFTER_CALL && op0(&in) != 0xcc)) {
			flow = is_call(&in) ? FLOW_AFTER_CALL :
			       falls_through(v, &in, a) ? FLOW_LIVE : FLOW_DEAD;
			ender = a;
			ret_to = a + in.length;
		}
		if (a + in.length > lo && (flow == FLOW_LIVE || ender == a))
			return refuse(v, part, a > lo ? a - lo : 0, "0x%lx is not dead padding", a);
		a += in.length;
	}
	/* A jmp at a jump label site becomes a nop when its key flips. */
	if (ender && v->env->jump_label(v->env, ender, 1))
		return refuse(v, part, 0, "the padding follows a jump label site at 0x%lx", ender);
	return 0;
}

bool gilk_branch_target(const struct insn *in, unsigned long a, unsigned long *t)
{
	u8 o = op0(in), o1 = op1(in);

	if (vex(in) ||
	    !((o >= 0x70 && o <= 0x7f) || (o >= 0xe0 && o <= 0xe3) || o == 0xe8 ||
	      o == 0xe9 || o == 0xeb || (o == 0x0f && o1 >= 0x80 && o1 <= 0x8f)))
		return false;
	*t = a + in->length + in->immediate.value;
	return true;
}

/* Whether f's targets hold one in [lo, hi). */
static bool memo_target_in(const struct gilk_walk_fn *f, unsigned long lo,
			   unsigned long hi)
{
	u32 a = 0, b = f->ntargets;

	if (hi <= f->func)
		return false;
	if (lo < f->func)
		lo = f->func;
	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (f->func + f->target[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < f->ntargets && f->func + f->target[a] < hi;
}

static void memo_keep_targets(struct gilk_walk_fn *f, u32 n)
{
	u32 i, j, k = 0;

	for (i = 1; i < n; i++) {	/* insertion sort: once per function */
		u32 t = f->target[i];

		for (j = i; j > 0 && f->target[j - 1] > t; j--)
			f->target[j] = f->target[j - 1];
		f->target[j] = t;
	}
	for (i = 0; i < n; i++)
		if (!k || f->target[k - 1] != f->target[i])
			f->target[k++] = f->target[i];
	f->ntargets = k;
	f->targets_known = true;
}

/* Where a scan keeps the targets it finds in the function [func, end). */
struct target_keep {
	struct gilk_walk_fn *f;	/* NULL: none kept */
	unsigned long func, end;
	u32 n;
};

static void keep_target(struct target_keep *k, unsigned long t)
{
	if (!k->f || t < k->func || t >= k->end)
		return;
	if (k->n < GILK_WALK_TARGETS)
		k->f->target[k->n++] = (u32)(t - k->func);
	else
		k->f = NULL;
}

/*
 * [disp32 + index*8] with no base and no segment: the address of a table
 * of 8-byte words, or 0. A computed goto (___bpf_prog_run's `goto
 * *jumptable[op]`) loads its target so, from .rodata, and jumps through
 * the register (a retpoline thunk): no decoding sees those edges.
 */
unsigned long gilk_table_at(const struct insn *in)
{
	u8 sib = in->sib.nbytes ? in->sib.bytes[0] : 0;

	if (vex(in) || !in->sib.nbytes || X86_MODRM_MOD(modrm(in)) != 0 ||
	    X86_SIB_BASE(sib) != 5 || X86_SIB_SCALE(sib) != 3 ||
	    (X86_SIB_INDEX(sib) == 4 && !X86_REX_X(rex(in))) ||
	    has_prefix(in, 0x64) || has_prefix(in, 0x65))
		return 0;
	return (unsigned long)(long)in->displacement.value;
}

#define TABLE_GAP_MAX 64	/* 0 words in a row: zeroed data, no table */

int gilk_table_words(const struct gilk_verify_env *env, unsigned long t,
		     unsigned long func, int (*each)(void *ctx, unsigned long w),
		     void *ctx)
{
	u64 w[8], word;
	u32 i, n = 0, zeros = 0;
	int ret;

	if (!env->table_data || !env->is_text || !env->table_data(env, t, func))
		return 0;
	for (i = 0; i < GILK_TABLE_MAX && zeros < TABLE_GAP_MAX; i++) {
		/*
		 * eight words at a time; one by one where a read of eight
		 * runs off the mapped data the table ends at
		 */
		if (i % ARRAY_SIZE(w) == 0)
			n = env->read(env, t + 8 * i, w, sizeof(w)) ? 0 : ARRAY_SIZE(w);
		if (n)
			word = w[i % ARRAY_SIZE(w)];
		else if (env->read(env, t + 8 * i, &word, sizeof(word)))
			return 0;
		if (!word) {
			zeros++;	/* a label the table leaves out */
			continue;
		}
		zeros = 0;
		if (!env->is_text(env, word))
			return 0;
		ret = each(ctx, word);
		if (ret)
			return ret;
	}
	return zeros < TABLE_GAP_MAX ? -E2BIG : 0;
}

/* A scan's look at a table: its words in [lo, hi), the function scanned. */
struct table_scan {
	struct vctx *v;
	const char *part;
	unsigned long t, lo, hi;
	struct target_keep *k;
};

static int table_word(void *ctx, unsigned long w)
{
	struct table_scan *ts = ctx;

	if (w < ts->lo || w >= ts->hi)
		return 0;
	if (lands_inside(ts->v, w))
		return refuse(ts->v, ts->part, 0, "the jump table at 0x%lx lands at 0x%lx, in what the splice overwrites",
			      ts->t, w);
	keep_target(ts->k, w);
	return 0;
}

/*
 * Decodes [lo, hi) from lo, an instruction start: no direct branch there,
 * nor a label of a computed goto's table it loads, may land in what the
 * splice overwrites past a region's start, or in a bounce slot
 * (lands_inside()). strict: it is the function itself, which
 * must decode where control may fall in. A byte that does not decode where
 * none can (after a jmp or a ret: data, or bytes past the function's real
 * end, which kallsyms does not know) is stepped over, and so is the rest
 * of a neighbour's; where the text cannot be read, the scan ends.
 */
static int scan_range(struct vctx *v, const char *part, unsigned long lo,
		      unsigned long hi, bool strict, struct target_keep *k)
{
	struct text_cursor c = { 0 };
	unsigned long a = lo, t, table = 0;
	bool dead = false;
	struct insn in;
	int err;

	while (a < hi) {
		err = next_insn(v, &c, a, hi, &in);
		if (err && strict && !dead)
			return err == -EFAULT ?
			       refuse(v, part, 0, "cannot read the code at 0x%lx", a) :
			       refuse(v, part, 0, "cannot decode the function at 0x%lx (stuck at 0x%lx)",
				      lo, a);
		if (err == -EFAULT)
			return 0;
		if (err) {
			strict = false;
			a++;
			continue;
		}
		if (!is_padding(&in))
			dead = !falls_through(v, &in, a);
		if (gilk_branch_target(&in, a, &t)) {
			if (lands_inside(v, t))
				return refuse(v, part, 0, "the branch at 0x%lx lands at 0x%lx, in what the splice overwrites",
					      a, t);
			keep_target(k, t);
		}
		t = gilk_table_at(&in);
		if (t && t != table) {
			struct table_scan ts = { v, part, t, lo, hi, k };

			table = t;	/* loaded again right after: read once */
			err = gilk_table_words(v->env, t, lo, table_word, &ts);
			if (err == -E2BIG)
				return refuse(v, part, 0, "the jump table at 0x%lx holds more than %d labels",
					      t, GILK_TABLE_MAX);
			if (err)
				return err;
		}
		a += in.length;
	}
	return 0;
}

/*
 * Hand-written assembly jumps between its functions: to a label past
 * another symbol's start, as copy_user_generic_unrolled does into
 * copy_user_short_string. A compiler does not (its only such jumps, from a
 * .cold part, are hidden edges the kernel indexes), and an assembly file's
 * functions lie together: so the symbols starting within NEIGHBOUR_REACH
 * either side of the function are decoded too, each from its start and
 * NEIGHBOUR_SPAN bytes at most.
 */
#define NEIGHBOUR_REACH 4096
#define NEIGHBOUR_SPAN 16384
#define NEIGHBOURS 16	/* either side, at most */

static int scan_neighbours(struct vctx *v, const char *part, unsigned long func,
			   unsigned long end, struct target_keep *k)
{
	const struct gilk_verify_env *env = v->env;
	unsigned long s = func, p, e;
	int n, ret = 0;

	for (n = 0; !ret && n < NEIGHBOURS && s > func - NEIGHBOUR_REACH; n++) {
		p = env->func_start(env, s - 1);
		if (!p || p >= s || p < func - NEIGHBOUR_REACH || env->func_end(env, p) != s)
			break;
		ret = scan_range(v, part, p, s < p + NEIGHBOUR_SPAN ? s : p + NEIGHBOUR_SPAN,
				 false, k);
		s = p;
	}
	for (s = end, n = 0; !ret && n < NEIGHBOURS && s < end + NEIGHBOUR_REACH; n++) {
		e = env->func_start(env, s) == s ? env->func_end(env, s) : 0;
		if (e <= s)
			break;
		ret = scan_range(v, part, s, e < s + NEIGHBOUR_SPAN ? e : s + NEIGHBOUR_SPAN,
				 false, k);
		s = e;
	}
	return ret;
}

/*
 * Decodes the whole function at func, and its neighbours: none of their
 * direct branches may land in what the splice overwrites. With a memo, the
 * targets in the function are kept for the batch's next requests instead of
 * decoding them again.
 */
static int scan_branches(struct vctx *v, const char *part, unsigned long func,
			 unsigned long end, struct gilk_walk_fn *f)
{
	struct target_keep k = {
		.f = f && !f->targets_known ? f : NULL, .func = func, .end = end,
	};
	int ret = scan_range(v, part, func, end, true, &k);

	if (!ret)
		ret = scan_neighbours(v, part, func, end, &k);
	if (!ret && k.f)
		memo_keep_targets(k.f, k.n);
	return ret;
}

/* A kept target of f in what the splice overwrites past a region's start. */
static bool memo_lands_inside(const struct vctx *v, const struct gilk_walk_fn *f)
{
	return memo_target_in(f, v->region + 1, v->region + v->region_len) ||
	       (v->evicted_len &&
		memo_target_in(f, v->evicted + 1, v->evicted + v->evicted_len)) ||
	       (v->slot && memo_target_in(f, v->slot, v->slot + JMP32));
}

/* An edge no decoding finds into what the splice overwrites (hidden_edge). */
static bool hidden_edges_into(const struct vctx *v)
{
	const struct gilk_verify_env *env = v->env;

	return env->hidden_edge(env, v->region + 1, v->region + v->region_len) ||
	       (v->evicted_len &&
		env->hidden_edge(env, v->evicted + 1, v->evicted + v->evicted_len)) ||
	       (v->slot && env->hidden_edge(env, v->slot, v->slot + JMP32));
}

/*
 * What the splice writes stays inside one symbol: a region with its padding
 * tail, an evicted run, a bounce slot. Past a symbol's end lies another
 * function's entry (on 6.12 its __pfx_ padding and a sealed endbr64, which
 * read as padding): a jmp and int3 fill there would break that function's
 * every call. optprobes keep to the symbol for the same reason.
 */
static int check_within(struct vctx *v, const char *part, unsigned long a, u32 len)
{
	unsigned long func = v->env->func_start(v->env, a);
	unsigned long end = func ? v->env->func_end(v->env, func) : 0;

	if (!func || !end || a + len > end)
		return refuse(v, part, 0, "0x%lx..0x%lx runs past the end of its symbol at 0x%lx",
			      a, a + len, end);
	return 0;
}

static int check_bounds(struct vctx *v)
{
	int ret = check_within(v, "site", v->region, v->region_len);

	if (!ret && v->evicted_len)
		ret = check_within(v, "patch0", v->evicted, v->evicted_len);
	if (!ret && v->slot)
		ret = check_within(v, "patch0", v->slot, JMP32);
	return ret;
}

static int check_edges_from(struct vctx *v, const char *part, unsigned long addr)
{
	unsigned long func = v->env->func_start(v->env, addr), end;
	struct gilk_walk_fn *f;

	if (!func)
		return refuse(v, part, 0, "0x%lx is in no known function", addr);
	end = v->env->func_end(v->env, func);
	if (!end || end <= func)
		return refuse(v, part, 0, "the function at 0x%lx has no known end", func);
	if (hidden_edges_into(v))
		return refuse(v, part, 0, "a jump label, an exception fixup or a .cold part edge lands in what the splice overwrites");
	f = memo_fn(v->env, func);
	if (f && f->targets_known && !memo_lands_inside(v, f))
		return 0;
	/* decoded again where it refuses, to name the branch */
	return scan_branches(v, part, func, end, f);
}

/*
 * Edges into what the splice overwrites: past the start of a region, or
 * anywhere in a bounce slot, control must never arrive, neither by a branch
 * of the function (or of the slot's, where that is another) nor by an edge
 * no decoder sees. kprobes' optimizer refuses its jmp over a jump target
 * the same way (can_optimize()).
 */
static int check_edges(struct vctx *v)
{
	const struct gilk_verify_env *env = v->env;
	int ret = check_edges_from(v, "site", v->region);

	if (!ret && v->slot &&
	    env->func_start(env, v->slot) != env->func_start(env, v->region))
		ret = check_edges_from(v, "patch0", v->slot);
	return ret;
}

static bool overlap(unsigned long a, u32 alen, unsigned long b, u32 blen)
{
	return a < b + blen && b < a + alen;
}

/* The site: `jmp rel32` to the trampoline, or `jmp rel8` to slot; int3 after. */
static int check_site_patch(struct vctx *v, u32 idx, unsigned long slot)
{
	const struct gilk_splice *req = v->req;
	const struct gilk_patch *p = &req->patch[idx];
	const char *part = idx ? "patch1" : "patch0";
	u8 exp[GILK_PATCH_MAX_LEN];
	long d = (long)(slot - (req->site + JMP8));
	u32 i;

	if (p->addr != req->site || p->len != req->region_len ||
	    p->kind != GILK_PATCH_LIVE || memcmp(p->orig, req->region_orig, p->len))
		return refuse(v, part, 0, "not the site's patch, last");
	if (p->divert != v->env->tramp)
		return refuse(v, part, 0, "the int3 divert must go to the trampoline");
	memset(exp, 0xcc, sizeof(exp));
	if (slot) {
		if (p->len < JMP8)
			return refuse(v, part, 0, "no room for a jmp rel8");
		exp[0] = 0xeb;
		exp[1] = (u8)d;
		if (d < -128 || d > 127)
			return refuse(v, part, 1, "the bounce slot is out of rel8 reach");
	} else if (p->len < JMP32 || !jmp32(exp, req->site, v->env->tramp)) {
		return refuse(v, part, 0, "no room or no reach for a jmp rel32");
	}
	for (i = 0; i < p->len; i++)
		if (p->bytes[i] != exp[i])
			return refuse(v, part, i, "not the site's jmp and int3 fill");
	return 0;
}

/* A 5-byte slot in dead padding: `jmp rel32` to the trampoline. */
static int check_slot(struct vctx *v)
{
	const struct gilk_patch *p = &v->req->patch[0];
	u8 exp[JMP32];
	u32 i;

	if (p->len != JMP32 || v->req->evict_len ||
	    overlap(p->addr, p->len, v->req->site, v->req->region_len))
		return refuse(v, "patch0", 0, "a bounce slot is 5 bytes apart from the region");
	if (!jmp32(exp, p->addr, v->env->tramp))
		return refuse(v, "patch0", 0, "the trampoline is out of the slot's reach");
	for (i = 0; i < JMP32; i++)
		if (p->bytes[i] != exp[i])
			return refuse(v, "patch0", i, "not a jmp rel32 to the trampoline");
	return walk(v, "patch0", p->addr, p->addr + JMP32, true);
}

/*
 * An evicted neighbour: `jmp rel32` to its own trampoline (the relocation
 * of what it displaced), int3, and the slot's `jmp rel32` in its dead tail.
 */
static int check_evicted(struct vctx *v, unsigned long slot)
{
	const struct gilk_splice *req = v->req;
	const struct gilk_patch *p = &req->patch[0];
	u8 exp[GILK_PATCH_MAX_LEN];
	unsigned long so = slot - p->addr;
	u32 i;
	int ret;

	if (p->divert != v->env->evict_tramp)
		return refuse(v, "patch0", 0, "the int3 divert must go to the evicted trampoline");
	if (overlap(p->addr, p->len, req->site, req->region_len) ||
	    slot < p->addr + JMP32 || so + JMP32 > p->len)
		return refuse(v, "patch0", 0, "the slot must lie in the evicted region's dead tail");
	ret = walk(v, "patch0", p->addr, p->addr + 1, false);
	if (ret)
		return ret;
	memset(exp, 0xcc, sizeof(exp));
	if (!jmp32(exp, p->addr, v->env->evict_tramp) ||
	    !jmp32(exp + so, slot, v->env->tramp))
		return refuse(v, "patch0", 0, "a trampoline out of reach");
	for (i = 0; i < p->len; i++)
		if (p->bytes[i] != exp[i])
			return refuse(v, "patch0", i, "not the evicted region's jmp, int3 fill and slot");
	return check_relocated(v, "evicted", 0, p->addr, p->orig, p->len, false,
			       req->evict, req->evict_len, v->env->evict_tramp);
}

/*
 * The header of the template the request gets (tramp.h) at the start of the
 * trampoline: its length, or -1 with the offset of the first byte refused.
 * The template is what the instrument and the filter need together (uapi
 * gilk_filter_needs()); a count whose filter is one test of the task may
 * have it inline instead (count_task). Inline templates keep the flags
 * unless they are dead at the site, which the checker finds out for
 * itself; saving them where they are dead is only slower. Tsc needs the
 * ring its code writes, reserved with the splice.
 */
static int check_header(struct vctx *v, enum gilk_tramp_kind *kind)
{
	const struct gilk_splice *req = v->req;
	const struct gilk_verify_env *env = v->env;
	struct gilk_tramp_params tp = {
		.kind = gilk_tramp_kind(gilk_filter_needs(&req->filter, env->needs),
					req->flags),
		.tramp = env->tramp, .site = req->site, .ctx = env->ctx,
		.handler = env->handler, .clac = env->clac, .counter = env->counter,
		.ring = env->ring, .cpu_number = env->cpu_number,
		.preempt_count = env->preempt_count, .current_task = env->current_task,
		.task_pid = env->task_pid,
	};
	struct gilk_task_offsets off = { env->task_pid, env->task_tgid, env->task_comm };
	enum gilk_tramp_kind kinds[2];
	u8 exp[GILK_TRAMP_HEADER_MAX];
	size_t hlen, i, best = 0;
	bool dead = gilk_flags_dead(env, req->site);
	int k, n = 0;

	if (tp.kind == GILK_TRAMP_TSC && !env->ring)
		return refuse(v, "trampoline", 0,
			      "the tsc template needs a reservation with a tsc ring");
	if (req->filter.len && env->needs == GILK_NEEDS_NOTHING &&
	    !(req->flags & (GILK_SPLICE_FULL | GILK_SPLICE_BUG)) &&
	    gilk_tramp_task_test(&tp, &req->filter, &off))
		kinds[n++] = GILK_TRAMP_COUNT_TASK;
	kinds[n++] = tp.kind;
	for (k = 0; k < n; k++) {
		tp.kind = kinds[k];
		if (gilk_tramp_inline(tp.kind) && !dead)
			tp.kind = gilk_tramp_flags_kept(tp.kind);
		for (;;) {
			hlen = gilk_tramp_header(exp, &tp);
			for (i = 0; i < hlen && i < req->tramp_len && req->tramp[i] == exp[i]; i++)
				;
			if (i == hlen) {
				*kind = tp.kind;
				return (int)hlen;
			}
			if (i > best)
				best = i;
			if (gilk_tramp_flags_kept(tp.kind) == tp.kind)
				break;
			tp.kind = gilk_tramp_flags_kept(tp.kind);
		}
	}
	refuse(v, "trampoline", (u32)best, "not gilk's trampoline header");
	return -1;
}

int gilk_verify(const struct gilk_splice *req,
		const struct gilk_verify_env *env, char *reason, size_t rlen,
		enum gilk_tramp_kind *kind)
{
	struct vctx v = { .req = req, .env = env, .reason = reason, .rlen = rlen };
	unsigned long slot;
	int ret, hlen;
	u32 i;

	if (req->tramp_len > GILK_TRAMP_MAX || req->evict_len > GILK_TRAMP_MAX ||
	    !req->region_len || req->region_len > GILK_PATCH_MAX_LEN ||
	    req->npatch > GILK_MAX_PATCHES)
		return refuse(&v, "request", 0, "lengths out of range");
	for (i = 0; i < req->npatch; i++)
		if (!req->patch[i].len || req->patch[i].len > GILK_PATCH_MAX_LEN)
			return refuse(&v, "request", 0, "patch %u's length out of range", i);
	v.region = req->site;
	v.region_len = req->region_len;
	if (req->npatch == 2) {
		v.slot = req->site + JMP8 + (s8)req->patch[1].bytes[1];
		if (req->patch[0].kind == GILK_PATCH_LIVE) {
			v.evicted = req->patch[0].addr;
			v.evicted_len = req->patch[0].len;
		}
	}
	hlen = check_header(&v, kind);
	if (hlen < 0)
		return -EBADMSG;
	ret = check_bounds(&v);
	if (!ret)
		ret = walk(&v, "site", req->site, req->site + 1, false);
	if (!ret)
		ret = check_relocated(&v, "trampoline", hlen, req->site, req->region_orig,
				      req->region_len, req->flags & GILK_SPLICE_BUG,
				      req->tramp + hlen, req->tramp_len - hlen,
				      env->tramp + hlen);
	if (ret)
		return ret;
	switch (req->npatch) {
	case 0:
		if (!(req->flags & GILK_SPLICE_TRAP) || req->evict_len)
			return refuse(&v, "request", 0, "no patch, and not trap mode");
		return 0;	/* the int3 alone: the rest of the region stays */
	case 1:
		if (req->evict_len)
			return refuse(&v, "evicted", 0, "an evicted trampoline without an evicted region");
		ret = check_site_patch(&v, 0, 0);
		break;
	default:
		/* host of the bounce slot first, the site last */
		slot = req->site + JMP8 + (s8)req->patch[1].bytes[1];
		ret = check_site_patch(&v, 1, slot);
		if (ret)
			return ret;
		if (req->patch[0].kind == GILK_PATCH_DEAD)
			ret = slot == req->patch[0].addr ? check_slot(&v) :
			      refuse(&v, "patch1", 1, "the jmp rel8 misses the slot");
		else if (req->patch[0].kind == GILK_PATCH_LIVE)
			ret = check_evicted(&v, slot);
		else
			ret = refuse(&v, "patch0", 0, "unknown patch kind");
		break;
	}
	return ret ? ret : check_edges(&v);
}
