/*
 * Capstone-backed decoder (see decode.h). Capstone is opened once per decoder
 * with detail on; decode_one() reuses one cs_insn so a whole-kernel scan does
 * not allocate per instruction.
 *
 * A planner decodes each function twice, close together: once as a neighbour
 * of the functions before it (their CFGs take its branches into them), once
 * for its own CFG. Capstone was half of a whole-kernel scan's time, so the
 * decoder keeps the last instructions it decoded, by address: an entry is
 * used only when the bytes at that address are the entry's own bytes, which
 * is all a decode depends on (a ud2 is not kept: what it decodes as depends
 * on the bytes after it, Xen's and KVM's emulation prefix).
 */
#include "decode.h"
#include "decode_arm64.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DECODE_CACHE 16384	/* instructions: some 64 KiB of code */

struct decoder {
	enum arch arch;
	csh cs;
	cs_insn *ci;
	struct insn *cache;	/* DECODE_CACHE, by address; len 0: empty */
};

int decoder_open(struct decoder **out, struct gerr *e)
{
	return decoder_open_arch(out, ARCH_X86_64, e);
}

int decoder_open_arch(struct decoder **out, enum arch arch, struct gerr *e)
{
	struct decoder *d = calloc(1, sizeof(*d));
	cs_err err;

	if (!d)
		return gerr_set(e, "out of memory");
	d->arch = arch;
	if (arch == ARCH_ARM64)
		err = cs_open(CS_ARCH_ARM64, CS_MODE_LITTLE_ENDIAN, &d->cs);
	else
		err = cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs);
	if (err != CS_ERR_OK) {
		free(d);
		return gerr_set(e, "Capstone: cannot open an %s decoder", arch_name(arch));
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->ci = cs_malloc(d->cs);
	d->cache = calloc(DECODE_CACHE, sizeof(*d->cache));
	if (!d->ci || !d->cache) {
		free(d->cache);
		if (d->ci)
			cs_free(d->ci, 1);
		cs_close(&d->cs);
		free(d);
		return gerr_set(e, "out of memory");
	}
	*out = d;
	return 0;
}

enum arch decoder_arch(const struct decoder *d)
{
	return d->arch;
}

void decoder_close(struct decoder *d)
{
	if (!d)
		return;
	cs_free(d->ci, 1);
	cs_close(&d->cs);
	free(d->cache);
	free(d);
}

static bool is_jcc(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE:
	case X86_INS_JL: case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP:
	case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP: case X86_INS_JS:
		return true;
	default:
		return false;
	}
}

static enum insn_kind classify(const cs_insn *ci, bool imm_operand)
{
	unsigned id = ci->id;

	if (is_jcc(id))
		return IK_JCC;
	switch (id) {
	case X86_INS_JMP:
		return imm_operand ? IK_JMP : IK_JMP_IND;
	case X86_INS_LJMP:
		return IK_JMP_IND;
	case X86_INS_CALL:
		return imm_operand ? IK_CALL : IK_CALL_IND;
	case X86_INS_LCALL:
		return IK_CALL_IND;
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_JCXZ:
		return IK_LOOP;
	case X86_INS_RET:
		return IK_RET;
	case X86_INS_INT3:
		return IK_INT3;
	case X86_INS_UD2: case X86_INS_UD2B: case X86_INS_UD0:
		return IK_UD2;
	case X86_INS_RETF: case X86_INS_IRET: case X86_INS_IRETD:
	case X86_INS_IRETQ: case X86_INS_SYSRET: case X86_INS_SYSEXIT:
	case X86_INS_INT: case X86_INS_INTO: case X86_INS_INT1:
		return IK_TRAP_EXIT;
	case X86_INS_XBEGIN:
		return IK_XBEGIN;
	default:
		return IK_PLAIN;
	}
}

static int decode_plain(struct decoder *d, const uint8_t *code, size_t avail,
			uint64_t addr, struct insn *out)
{
	const uint8_t *p = code;
	size_t n = avail < INSN_MAX ? avail : INSN_MAX;
	uint64_t a = addr;
	cs_insn *ci = d->ci;
	const cs_x86 *x;
	bool imm = false;

	if (!cs_disasm_iter(d->cs, &p, &n, &a, ci))
		return -1;
	x = &ci->detail->x86;
	/* Capstone 4 decodes ud1 (0f b9 /r) without its ModRM byte; the kernel
	 * uses the register form (0f b9 cc after static call trampolines). */
	if (ci->id == X86_INS_UD2B && ci->size == 2 && avail > 2 && (code[2] & 0xc0) == 0xc0)
		ci->size = 3;
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->len = (uint8_t)ci->size;
	out->id = (uint16_t)ci->id;
	memcpy(out->bytes, code, ci->size);
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_IMM) {
			imm = true;
			out->target = (uint64_t)op->imm;
		} else if (op->type == X86_OP_MEM) {
			if (op->mem.base == X86_REG_RIP)
				out->disp_off = x->encoding.disp_offset;
			if (op->mem.base == X86_REG_RSP || op->mem.index == X86_REG_RSP)
				out->mem_rsp = 1;
			if (op->mem.index != X86_REG_INVALID)
				out->mem_index = 1;
			/* as gilk.ko's gilk_table_at(): fs and gs only are
			 * segments that move the address in 64-bit mode */
			if (op->mem.base == X86_REG_INVALID && op->mem.index != X86_REG_INVALID &&
			    op->mem.scale == 8 && op->mem.segment != X86_REG_FS &&
			    op->mem.segment != X86_REG_GS)
				out->table = (uint64_t)op->mem.disp;
		}
	}
	out->kind = (uint8_t)classify(ci, imm);
	out->table_jump = out->kind == IK_JMP_IND && out->mem_index;
	if (insn_has_target(out)) {
		out->imm_off = x->encoding.imm_offset;
		out->imm_size = x->encoding.imm_size;
	} else {
		out->target = 0;
	}
	out->nop = ci->id == X86_INS_NOP;
	return 0;
}

/* The kernel's own decoder (arch/x86/lib/insn.c) reads these 5 bytes as a
 * prefix of the instruction after them; read as code, "xen" is a js whose
 * target lands in the next function's middle. */
#define EMULATE_PREFIX_LEN 5
static const uint8_t emulate_prefixes[2][EMULATE_PREFIX_LEN] = {
	{ 0x0f, 0x0b, 0x78, 0x65, 0x6e },	/* Xen: ud2; .ascii "xen" */
	{ 0x0f, 0x0b, 0x6b, 0x76, 0x6d },	/* KVM: ud2; .ascii "kvm" */
};

static int emulate_prefix_at(const uint8_t *code, size_t avail)
{
	for (int i = 0; i < 2; i++)
		if (avail > EMULATE_PREFIX_LEN &&
		    !memcmp(code, emulate_prefixes[i], EMULATE_PREFIX_LEN))
			return i;
	return -1;
}

static int decode_uncached(struct decoder *d, const uint8_t *code, size_t avail,
			   uint64_t addr, struct insn *out)
{
	const size_t k = EMULATE_PREFIX_LEN;
	uint8_t rest[INSN_MAX];

	if (emulate_prefix_at(code, avail) < 0 ||
	    decode_plain(d, code + k, avail - k, addr + k, out) || out->len + k > INSN_MAX)
		return decode_plain(d, code, avail, addr, out);
	/* as one instruction: its offsets count from the ud2 */
	memcpy(rest, out->bytes, out->len);
	memcpy(out->bytes, code, k);
	memcpy(out->bytes + k, rest, out->len);
	out->addr = addr;
	out->len = (uint8_t)(out->len + k);
	if (out->disp_off)
		out->disp_off = (uint8_t)(out->disp_off + k);
	if (out->imm_off)
		out->imm_off = (uint8_t)(out->imm_off + k);
	out->emulate = 1;
	return 0;
}

int decode_one(struct decoder *d, const uint8_t *code, size_t avail,
	       uint64_t addr, struct insn *out)
{
	struct insn *c = &d->cache[addr % DECODE_CACHE];

	if (c->len && c->addr == addr && c->len <= avail && !memcmp(c->bytes, code, c->len)) {
		*out = *c;
		return 0;
	}
	if (d->arch == ARCH_ARM64) {
		if (arm64_decode(d->cs, d->ci, code, avail, addr, out))
			return -1;
		*c = *out;
		return 0;
	}
	if (decode_uncached(d, code, avail, addr, out))
		return -1;
	/* ud2, and ud1 whose length Capstone 4 gets wrong (decode_plain()
	 * looks at the byte after it) */
	if (out->len < 2 || out->bytes[0] != 0x0f ||
	    (out->bytes[1] != 0x0b && out->bytes[1] != 0xb9))
		*c = *out;
	return 0;
}

int decode_text(struct decoder *d, const struct insn *in, char *buf, size_t len)
{
	size_t k = in->emulate ? EMULATE_PREFIX_LEN : 0;
	const uint8_t *p = in->bytes + k;
	size_t n = in->len - k;
	uint64_t a = in->addr + k;
	cs_insn *ci = d->ci;
	const char *hint = arm64_hint_name(in);
	int w = 0;

	if (hint) {
		snprintf(buf, len, "%s", hint);
		return 0;
	}
	if (arm64_format_extra(in, buf, len) == 0)
		return 0;
	if (!cs_disasm_iter(d->cs, &p, &n, &a, ci))
		return -1;
	if (k)
		w = snprintf(buf, len, "ud2; .ascii \"%.3s\"; ", (const char *)in->bytes + 2);
	if ((size_t)w >= len)
		return 0;
	if (ci->op_str[0])
		snprintf(buf + w, len - w, "%s %s", ci->mnemonic, ci->op_str);
	else
		snprintf(buf + w, len - w, "%s", ci->mnemonic);
	return 0;
}

bool insn_has_target(const struct insn *in)
{
	switch (in->kind) {
	case IK_JMP: case IK_JCC: case IK_LOOP: case IK_CALL: case IK_XBEGIN:
		return true;
	default:
		return false;
	}
}

bool insn_is_idle(const struct insn *in)
{
	if (in->arch == ARCH_ARM64)
		return arm64_is_idle(in);
	switch (in->id) {
	case X86_INS_HLT: case X86_INS_MWAIT: case X86_INS_MONITOR:
		return true;
	default:
		/* mwaitx, monitorx (0f 01 fb, fa), unknown to Capstone 4 */
		return in->len == 3 && in->bytes[0] == 0x0f && in->bytes[1] == 0x01 &&
		       (in->bytes[2] == 0xfa || in->bytes[2] == 0xfb);
	}
}

bool insn_is_trap_or_sys(const struct insn *in)
{
	if (in->arch == ARCH_ARM64)
		return arm64_is_trap_or_sys(in);
	switch (in->id) {
	case X86_INS_INT: case X86_INS_INTO: case X86_INS_INT1:
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return true;
	default:
		return false;
	}
}

bool insn_falls_through(const struct insn *in)
{
	switch (in->kind) {
	case IK_JMP: case IK_RET: case IK_JMP_IND: case IK_UD2:
	case IK_TRAP_EXIT: case IK_INT3:
		return false;
	default:
		return true;
	}
}

bool insn_ends_block(const struct insn *in)
{
	switch (in->kind) {
	case IK_PLAIN: case IK_CALL: case IK_CALL_IND:
		return false;
	default:
		return true;
	}
}

uint32_t decode_arm64_writes(struct decoder *d, const struct insn *in)
{
	return d->arch == ARCH_ARM64 ? arm64_writes(d->cs, d->ci, in) : ARM64_WRITES_ALL;
}
