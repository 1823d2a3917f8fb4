/* AArch64 instructions into struct insn (see decode_arm64.h). */
#include "decode_arm64.h"

#include <stdio.h>
#include <string.h>

#include "decode_internal.h"

/* Capstone decodes arm64 with detail: the operands give targets */
int decode_arm64_open(struct decoder *d, struct gerr *e)
{
	if (cs_open(CS_ARCH_ARM64, CS_MODE_LITTLE_ENDIAN, &d->cs) != CS_ERR_OK)
		return gerr_set(e, "Capstone: cannot open an arm64 decoder");
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

int decode_arm64(struct decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		 struct insn *out)
{
	return arm64_decode(d->cs, d->ci, code, avail, addr, out);
}

/* Capstone's, but for what Capstone 4 does not know: the hints of
 * ARMv8.3 and later, and ARMv8.1's atomics */
int decode_arm64_text(struct decoder *d, const struct insn *in, char *buf, size_t len)
{
	const char *hint = arm64_hint_name(in);

	if (hint) {
		snprintf(buf, len, "%s", hint);
		return 0;
	}
	if (arm64_format_extra(in, buf, len) == 0)
		return 0;
	return decode_cs_text(d, in->bytes, in->len, in->addr, buf, len);
}

uint32_t decode_arm64_writes_of(struct decoder *d, const struct insn *in)
{
	return arm64_writes(d->cs, d->ci, in);
}

static enum insn_kind classify(const cs_insn *ci)
{
	switch (ci->id) {
	case ARM64_INS_B: {
		arm64_cc cc = ci->detail->arm64.cc;

		return cc == ARM64_CC_INVALID || cc == ARM64_CC_AL || cc == ARM64_CC_NV ?
		       IK_JMP : IK_JCC;
	}
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		return IK_JCC;
	case ARM64_INS_BL:
		return IK_CALL;
	case ARM64_INS_BLR:
		return IK_CALL_IND;
	case ARM64_INS_BR:
		return IK_JMP_IND;
	case ARM64_INS_RET:
		return IK_RET;
	case ARM64_INS_ERET:
		return IK_TRAP_EXIT;
	case ARM64_INS_BRK: case ARM64_INS_HLT:
		return IK_UD2;
	default:
		return IK_PLAIN;
	}
}

/* ADR, ADRP and the literal loads name an address relative to their own:
 * Capstone gives it as an immediate operand, already resolved. */
static bool is_pc_relative(const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;

	switch (ci->id) {
	case ARM64_INS_ADR: case ARM64_INS_ADRP:
		return true;
	case ARM64_INS_LDR: case ARM64_INS_LDRSW: case ARM64_INS_PRFM:
		/* the literal form has two operands; a post-indexed load's
		 * third is its increment */
		return a->op_count == 2 && a->operands[1].type == ARM64_OP_IMM;
	default:
		return false;
	}
}

/* Xn or Wn by its number; 31 is the zero register here */
static void reg_name(char *b, size_t n, char r, unsigned i)
{
	snprintf(b, n, i == 31 ? "%czr" : "%c%u", r, i);
}

/*
 * What Capstone 4 (Debian 12's) does not know and every arm64 kernel holds:
 * ARMv8.1's atomics (LSE: cas, casp, ld<op>, st<op>, swp, which the kernel's
 * atomics run in place of their LL/SC loops), and udf (0x0000xxxx, also the
 * zero words of padding). Neither branches nor names an address relative to
 * itself; udf traps. Formats the word into buf (when given); -1 when it is
 * none of them.
 */
static int lse_format(uint32_t w, char *buf, size_t len)
{
	static const char *const ops[8] = { "add", "clr", "eor", "set", "smax", "smin", "umax", "umin" };
	static const char *const sfx[4] = { "b", "h", "", "" };
	unsigned size = w >> 30, rs = (w >> 16) & 31, rn = (w >> 5) & 31, rt = w & 31;
	char r = size == 3 ? 'x' : 'w', base[8], reg_s[8], reg_t[8];
	const char *acq, *rel;

	snprintf(base, sizeof(base), rn == 31 ? "sp" : "x%u", rn);
	reg_name(reg_s, sizeof(reg_s), r, rs);
	reg_name(reg_t, sizeof(reg_t), r, rt);
	if ((w & 0x3f200c00u) == 0x38200000u) {	/* ld<op>, st<op>, swp */
		unsigned o3 = (w >> 15) & 1, opc = (w >> 12) & 7;

		acq = (w >> 23) & 1 ? "a" : "";
		rel = (w >> 22) & 1 ? "l" : "";
		if (o3 && opc)
			return -1;
		if (!buf)
			return 0;
		if (o3)
			snprintf(buf, len, "swp%s%s%s %s, %s, [%s]", acq, rel, sfx[size], reg_s, reg_t, base);
		else if (rt == 31 && !*acq)
			snprintf(buf, len, "st%s%s%s %s, [%s]", ops[opc], rel, sfx[size], reg_s, base);
		else
			snprintf(buf, len, "ld%s%s%s%s %s, %s, [%s]", ops[opc], acq, rel, sfx[size], reg_s, reg_t, base);
		return 0;
	}
	acq = (w >> 22) & 1 ? "a" : "";
	rel = (w >> 15) & 1 ? "l" : "";
	if ((w & 0x3fa07c00u) == 0x08a07c00u) {		/* cas */
		if (buf)
			snprintf(buf, len, "cas%s%s%s %s, %s, [%s]", acq, rel, sfx[size], reg_s, reg_t, base);
		return 0;
	}
	if ((w & 0xbfa07c00u) == 0x08207c00u && !(rs & 1) && !(rt & 1)) {	/* casp */
		char s1[8], t1[8];

		r = (w >> 30) & 1 ? 'x' : 'w';
		reg_name(reg_s, sizeof(reg_s), r, rs);
		reg_name(s1, sizeof(s1), r, rs + 1);
		reg_name(reg_t, sizeof(reg_t), r, rt);
		reg_name(t1, sizeof(t1), r, rt + 1);
		if (buf)
			snprintf(buf, len, "casp%s%s %s, %s, %s, %s, [%s]", acq, rel,
				 reg_s, s1, reg_t, t1, base);
		return 0;
	}
	if ((w & 0xffff0000u) == 0) {
		if (buf)
			snprintf(buf, len, "udf #%u", w & 0xffff);
		return 0;
	}
	return -1;
}

int arm64_format_extra(const struct insn *in, char *buf, size_t len)
{
	uint32_t w;

	if (in->id != ARM64_INS_INVALID)
		return -1;
	memcpy(&w, in->bytes, 4);
	return lse_format(w, buf, len);
}

int arm64_decode(csh cs, cs_insn *ci, const uint8_t *code, size_t avail,
		 uint64_t addr, struct insn *out)
{
	const uint8_t *p = code;
	size_t n = 4;
	uint64_t a = addr;
	const cs_arm64 *x;
	uint32_t w;

	if (avail < 4 || addr % 4)
		return -1;
	if (!cs_disasm_iter(cs, &p, &n, &a, ci)) {
		memcpy(&w, code, 4);
		if (lse_format(w, NULL, 0))
			return -1;
		memset(out, 0, sizeof(*out));
		out->addr = addr;
		out->len = 4;
		out->id = ARM64_INS_INVALID;
		out->arch = ARCH_ARM64;
		memcpy(out->bytes, code, 4);
		out->kind = (w & 0xffff0000u) == 0 ? IK_UD2 : IK_PLAIN;
		/* The zero word (udf #0) is what the linker pads text with
		 * between functions: where nothing falls into it, filler. */
		out->nop = w == 0;
		return 0;
	}
	x = &ci->detail->arm64;
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->len = 4;
	out->id = (uint16_t)ci->id;
	out->arch = ARCH_ARM64;
	memcpy(out->bytes, code, 4);
	out->kind = (uint8_t)classify(ci);
	if (insn_has_target(out)) {
		/* the target is the last immediate (TBZ's bit number comes
		 * before it) */
		for (int i = x->op_count - 1; i >= 0; i--)
			if (x->operands[i].type == ARM64_OP_IMM) {
				out->target = (uint64_t)x->operands[i].imm;
				break;
			}
	}
	out->pcrel = is_pc_relative(ci);
	out->nop = ci->id == ARM64_INS_NOP;
	return 0;
}

/* HINT #imm: CRm:op2 in bits 11..5 of d503201f | imm << 5. Capstone 4 knows
 * only the ARMv8.0 ones; pointer authentication and BTI came later, and
 * every arm64 kernel built with them starts its functions so. */
const char *arm64_hint_name(const struct insn *in)
{
	static const char *const names[] = {
		[7] = "xpaclri", [8] = "pacia1716", [10] = "pacib1716",
		[12] = "autia1716", [14] = "autib1716", [16] = "esb",
		[17] = "psb csync", [18] = "tsb csync", [20] = "csdb",
		[24] = "paciaz", [25] = "paciasp", [26] = "pacibz",
		[27] = "pacibsp", [28] = "autiaz", [29] = "autiasp",
		[30] = "autibz", [31] = "autibsp", [32] = "bti",
		[34] = "bti c", [36] = "bti j", [38] = "bti jc",
	};
	uint32_t w, imm;

	if (in->id != ARM64_INS_HINT)
		return NULL;
	memcpy(&w, in->bytes, 4);
	if ((w & 0xfffff01fu) != 0xd503201fu)
		return NULL;
	imm = (w >> 5) & 0x7f;
	return imm < sizeof(names) / sizeof(names[0]) ? names[imm] : NULL;
}

void arm64_mark_table_jumps(struct insn *insns, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t br, w;
		unsigned rn;

		memcpy(&br, insns[i].bytes, 4);
		if ((br & 0xfffffc1fu) != 0xd61f0000u)
			continue;
		rn = (br >> 5) & 31;
		for (size_t j = i; j > 0 && j + 4 > i; j--) {
			memcpy(&w, insns[j - 1].bytes, 4);
			/* add (extended register), shift 2, into Xrn */
			if ((w & 0x7fe00000u) == 0x0b200000u && ((w >> 10) & 7) == 2 &&
			    (w & 31) == rn) {
				insns[i].table_jump = 1;
				break;
			}
		}
	}
}

bool arm64_is_exclusive(uint32_t w, bool load)
{
	bool casp = (w & 0x00200000u) && !(w & 0x80000000u);

	return (w & 0x3f800000u) == 0x08000000u && !casp && !!(w & 0x00400000u) == load;
}

bool arm64_is_idle(const struct insn *in)
{
	return in->id == ARM64_INS_WFI || in->id == ARM64_INS_WFE;
}

bool arm64_is_trap_or_sys(const struct insn *in)
{
	switch (in->id) {
	case ARM64_INS_SVC: case ARM64_INS_HVC: case ARM64_INS_SMC:
	case ARM64_INS_ERET: case ARM64_INS_BRK: case ARM64_INS_HLT:
	case ARM64_INS_DCPS1: case ARM64_INS_DCPS2: case ARM64_INS_DCPS3:
		return true;
	default:
		return false;
	}
}

/* Bit of a general register in arm64_writes()'s mask; 0 for the zero
 * registers and anything else. */
static uint32_t reg_bit(unsigned r)
{
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return 1u << (r - ARM64_REG_X0);
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return 1u << (r - ARM64_REG_W0);
	if (r == ARM64_REG_X29)
		return 1u << 29;
	if (r == ARM64_REG_X30)
		return 1u << 30;
	if (r == ARM64_REG_SP || r == ARM64_REG_WSP)
		return 1u << 31;
	return 0;
}

uint32_t arm64_writes(csh cs, cs_insn *ci, const struct insn *in)
{
	const uint8_t *p = in->bytes;
	size_t n = 4;
	uint64_t a = in->addr;
	cs_regs rd, wr;
	uint8_t nrd, nwr;
	const cs_arm64 *x;
	uint32_t m = 0;

	if (in->id == ARM64_INS_INVALID || !cs_disasm_iter(cs, &p, &n, &a, ci) ||
	    cs_regs_access(cs, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return ARM64_WRITES_ALL;
	for (unsigned i = 0; i < nwr; i++)
		m |= reg_bit(wr[i]);
	/* the operands too: Capstone 4's lists miss some */
	x = &ci->detail->arm64;
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_arm64_op *op = &x->operands[i];

		if (op->type == ARM64_OP_REG && op->access & CS_AC_WRITE)
			m |= reg_bit(op->reg);
		if (op->type == ARM64_OP_MEM && x->writeback)
			m |= reg_bit(op->mem.base);
	}
	if (in->kind == IK_CALL || in->kind == IK_CALL_IND)
		m |= 0x4007ffffu;
	return m;
}
