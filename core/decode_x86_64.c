/*
 * x86-64's decoding, through Zydis: a whole-kernel scan decodes millions of
 * instructions, and Capstone 4 formats each one's text whether asked or
 * not, so Capstone only gives the text (decode.h, decode_internal.h).
 */
#include "decode_internal.h"

#include <stdio.h>
#include <string.h>

int decode_x86_64_open(struct decoder *d, struct gerr *e)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK)
		return gerr_set(e, "Capstone: cannot open an x86-64 decoder");
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&d->zy, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) {
		cs_close(&d->cs);
		return gerr_set(e, "Zydis: cannot open an x86-64 decoder");
	}
	return 0;
}

static bool is_jcc(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_JB: case ZYDIS_MNEMONIC_JBE: case ZYDIS_MNEMONIC_JL:
	case ZYDIS_MNEMONIC_JLE: case ZYDIS_MNEMONIC_JNB: case ZYDIS_MNEMONIC_JNBE:
	case ZYDIS_MNEMONIC_JNL: case ZYDIS_MNEMONIC_JNLE: case ZYDIS_MNEMONIC_JNO:
	case ZYDIS_MNEMONIC_JNP: case ZYDIS_MNEMONIC_JNS: case ZYDIS_MNEMONIC_JNZ:
	case ZYDIS_MNEMONIC_JO: case ZYDIS_MNEMONIC_JP: case ZYDIS_MNEMONIC_JS:
	case ZYDIS_MNEMONIC_JZ:
		return true;
	default:
		return false;
	}
}

/* A far jmp, call or ret changes CS: never a branch within the kernel's text. */
static enum insn_kind classify(const ZydisDecodedInstruction *zi, bool imm_operand)
{
	bool far = zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	if (is_jcc(zi->mnemonic))
		return IK_JCC;
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		return imm_operand && !far ? IK_JMP : IK_JMP_IND;
	case ZYDIS_MNEMONIC_CALL:
		return imm_operand && !far ? IK_CALL : IK_CALL_IND;
	case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE: case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JRCXZ: case ZYDIS_MNEMONIC_JECXZ: case ZYDIS_MNEMONIC_JCXZ:
		return IK_LOOP;
	case ZYDIS_MNEMONIC_RET:
		return far ? IK_TRAP_EXIT : IK_RET;
	case ZYDIS_MNEMONIC_INT3:
		return IK_INT3;
	case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1: case ZYDIS_MNEMONIC_UD2:
		return IK_UD2;
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET: case ZYDIS_MNEMONIC_SYSEXIT: case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INTO: case ZYDIS_MNEMONIC_INT1:
		return IK_TRAP_EXIT;
	case ZYDIS_MNEMONIC_XBEGIN:
		return IK_XBEGIN;
	default:
		return IK_PLAIN;
	}
}

/* What a memory operand tells the planner: RIP-relative, through rsp, indexed, a table. */
static void note_mem(const ZydisDecodedInstruction *zi, const ZydisDecodedOperandMem *m,
		     struct insn *out)
{
	if (m->base == ZYDIS_REGISTER_RIP)
		out->disp_off = zi->raw.disp.offset;
	if (m->base == ZYDIS_REGISTER_RSP || m->index == ZYDIS_REGISTER_RSP)
		out->mem_rsp = 1;
	if (m->index != ZYDIS_REGISTER_NONE)
		out->mem_index = 1;
	/* as gilk.ko's gilk_table_at(): fs and gs only are segments that
	 * move the address in 64-bit mode */
	if (m->base == ZYDIS_REGISTER_NONE && m->index != ZYDIS_REGISTER_NONE &&
	    m->scale == 8 && m->segment != ZYDIS_REGISTER_FS && m->segment != ZYDIS_REGISTER_GS)
		out->table = (uint64_t)m->disp.value;
}

/*
 * Only a memory operand (ModRM's, not register-direct) and a relative
 * branch's target matter here. Most instructions have neither, and their
 * operands are not decoded at all; the others', only those the text shows
 * (a push's stack slot is not one).
 */
static bool needs_operands(const ZydisDecodedInstruction *zi)
{
	return (zi->attributes & ZYDIS_ATTRIB_HAS_MODRM && zi->raw.modrm.mod != 3) ||
	       zi->attributes & ZYDIS_ATTRIB_IS_RELATIVE;
}

static int decode_plain(struct decoder *d, const uint8_t *code, size_t avail,
			uint64_t addr, struct insn *out)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT_VISIBLE];
	size_t n = avail < INSN_MAX ? avail : INSN_MAX;
	bool imm = false;
	int nops = 0;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d->zy, &ctx, code, n, &zi)))
		return -1;
	if (needs_operands(&zi)) {
		nops = zi.operand_count_visible;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&d->zy, &ctx, &zi, ops, (ZyanU8)nops)))
			return -1;
	}
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->len = zi.length;
	out->id = (uint16_t)zi.mnemonic;
	memcpy(out->bytes, code, zi.length);
	for (int i = 0; i < nops; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		ZyanU64 at;

		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			imm = true;
			if (op->imm.is_relative &&
			    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, op, addr, &at)))
				out->target = at;
		} else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			note_mem(&zi, &op->mem, out);
		}
	}
	out->kind = (uint8_t)classify(&zi, imm);
	out->table_jump = out->kind == IK_JMP_IND && out->mem_index;
	if (insn_has_target(out)) {
		out->imm_off = zi.raw.imm[0].offset;
		out->imm_size = zi.raw.imm[0].size / 8;
	} else {
		out->target = 0;
	}
	out->nop = zi.mnemonic == ZYDIS_MNEMONIC_NOP;
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

/*
 * An int3, as decode_plain() records it. The kernel pads with int3 by the
 * megabyte (the gaps after __entry_text_end, __kprobes_text_end and SRSO's
 * aligned thunk are more than half of the instructions in 6.1's text): each
 * is not worth a decode, nor a cache entry a real instruction could use.
 */
static void int3_at(uint64_t addr, struct insn *out)
{
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->len = 1;
	out->id = ZYDIS_MNEMONIC_INT3;
	out->kind = IK_INT3;
	out->bytes[0] = 0xcc;
}

int decode_x86_64(struct decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		  struct insn *out)
{
	if (avail && code[0] == 0xcc) {
		int3_at(addr, out);
		return 0;
	}
	return decode_uncached(d, code, avail, addr, out);
}

/* Not an int3 (decode_x86_64() makes them without a decode) nor a ud2:
 * what a ud2 decodes as depends on the bytes after it (the emulation
 * prefix). */
bool decode_x86_64_keeps(const struct insn *in)
{
	return in->kind != IK_INT3 &&
	       (in->len < 2 || in->bytes[0] != 0x0f || in->bytes[1] != 0x0b);
}

int decode_x86_64_text(struct decoder *d, const struct insn *in, char *buf, size_t len)
{
	size_t k = in->emulate ? EMULATE_PREFIX_LEN : 0;
	int w = 0;

	if (k)
		w = snprintf(buf, len, "ud2; .ascii \"%.3s\"; ", (const char *)in->bytes + 2);
	if ((size_t)w >= len)
		return 0;
	return decode_cs_text(d, in->bytes + k, in->len - k, in->addr + k, buf + w, len - w);
}

bool decode_x86_64_is_idle(const struct insn *in)
{
	switch (in->id) {
	case ZYDIS_MNEMONIC_HLT: case ZYDIS_MNEMONIC_MWAIT: case ZYDIS_MNEMONIC_MONITOR:
	case ZYDIS_MNEMONIC_MWAITX: case ZYDIS_MNEMONIC_MONITORX:
		return true;
	default:
		return false;
	}
}

bool decode_x86_64_is_trap_or_sys(const struct insn *in)
{
	switch (in->id) {
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INTO: case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER: case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
		return true;
	default:
		return false;
	}
}
