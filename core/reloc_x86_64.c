/* x86-64 instruction relocator (see reloc_x86_64.h). */
#include "reloc_x86_64.h"

#include <string.h>

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	default:
		return false;
	}
}

/* Offset of the opcode byte: past legacy prefixes and a REX prefix. */
static unsigned opcode_offset(const struct insn *in)
{
	unsigned i = 0;

	while (i < in->len && is_legacy_prefix(in->bytes[i]))
		i++;
	if (i < in->len && (in->bytes[i] & 0xf0) == 0x40)
		i++;
	return i;
}

static int32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (int32_t)v;
}

static void wr32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/* Copies in's bytes to w with a RIP-relative displacement re-based for an
 * instruction that will end at new_end instead of in->addr + in->len. */
static enum reloc_status copy_rebased(struct x86w *w, const uint8_t *bytes,
				      const struct insn *in, uint64_t new_end)
{
	uint8_t b[INSN_MAX];

	memcpy(b, bytes, in->len);
	if (in->disp_off) {
		uint64_t abs = in->addr + in->len + (uint64_t)(int64_t)rd32(b + in->disp_off);

		if (!rel32_fits(new_end, abs))
			return RELOC_RIP_RANGE;
		wr32(b + in->disp_off, (int32_t)(abs - new_end));
	}
	xw_bytes(w, b, in->len);
	return RELOC_OK;
}

static enum reloc_status status_of(const struct x86w *w)
{
	switch (w->err) {
	case XW_OK: return RELOC_OK;
	case XW_RANGE: return RELOC_BRANCH_RANGE;
	default: return RELOC_NOSPACE;
	}
}

static enum reloc_status reloc_jcc(struct x86w *w, const struct insn *in)
{
	unsigned op = opcode_offset(in);
	unsigned cc;

	if (in->bytes[op] == 0x0f)
		cc = in->bytes[op + 1] & 15;
	else
		cc = in->bytes[op] & 15;
	xw_jcc(w, cc, in->target);
	return status_of(w);
}

static enum reloc_status reloc_loop(struct x86w *w, const struct insn *in)
{
	/*   loop  +2        (same prefixes and opcode, rel8 = 2)
	 *   jmp8  +5        not taken: skip the long jump
	 *   jmp   target    taken */
	uint8_t b[INSN_MAX];

	memcpy(b, in->bytes, in->len);
	b[in->len - 1] = 2;
	xw_bytes(w, b, in->len);
	xw_bytes(w, (const uint8_t[]){ 0xeb, 0x05 }, 2);
	xw_jmp(w, in->target);
	return status_of(w);
}

static enum reloc_status reloc_call_ind(struct x86w *w, const struct insn *in)
{
	unsigned op = opcode_offset(in);
	uint8_t b[INSN_MAX];
	uint64_t jmp_end;
	enum reloc_status s;

	if (in->bytes[op] != 0xff || op + 1 >= in->len ||
	    ((in->bytes[op + 1] >> 3) & 7) != 2)
		return RELOC_UNSUPPORTED; /* far call */
	/* The push moves rsp, so an operand addressed through rsp would read
	 * another slot. */
	if (in->mem_rsp)
		return RELOC_UNSUPPORTED;
	xw_push_u64(w, in->addr + in->len);
	memcpy(b, in->bytes, in->len);
	b[op + 1] = (uint8_t)((b[op + 1] & ~0x38) | 4 << 3); /* ff /2 -> ff /4 */
	jmp_end = xw_pc(w) + in->len;
	s = copy_rebased(w, b, in, jmp_end);
	return s != RELOC_OK ? s : status_of(w);
}

/*
 * A direct branch written with a prefix other than a hint's (2e, 3e) or
 * bnd's (f2), or with a REX: the 66 prefix changes it, and the others are
 * no compiler's (32-bit code read as 64-bit has them: pvh_start_xen's
 * "dec ecx; jne" is "rex.wb jne"). gilk.ko's checker refuses them, so the
 * plan does too.
 */
static bool branch_prefixed(const struct insn *in)
{
	unsigned op = opcode_offset(in);

	for (unsigned i = 0; i < op; i++)
		if (in->bytes[i] != 0x2e && in->bytes[i] != 0x3e && in->bytes[i] != 0xf2)
			return true;
	return false;
}

enum reloc_status reloc_insn(struct x86w *w, const struct insn *in)
{
	enum reloc_status s;

	if (in->emulate)
		return RELOC_UNSUPPORTED;
	if ((in->kind == IK_JMP || in->kind == IK_JCC || in->kind == IK_CALL) && branch_prefixed(in))
		return RELOC_UNSUPPORTED;
	switch (in->kind) {
	case IK_JMP:
		xw_jmp(w, in->target);
		return status_of(w);
	case IK_JCC:
		return reloc_jcc(w, in);
	case IK_LOOP:
		return reloc_loop(w, in);
	case IK_CALL:
		xw_push_u64(w, in->addr + in->len);
		xw_jmp(w, in->target);
		return status_of(w);
	case IK_CALL_IND:
		return reloc_call_ind(w, in);
	case IK_INT3:
	case IK_UD2:
	case IK_XBEGIN:
		return RELOC_UNSUPPORTED;
	case IK_JMP_IND:
		if (in->bytes[opcode_offset(in)] == 0xff &&
		    ((in->bytes[opcode_offset(in) + 1] >> 3) & 7) == 5)
			return RELOC_UNSUPPORTED; /* far jmp */
		/* fallthrough */
	default:
		s = copy_rebased(w, in->bytes, in, xw_pc(w) + in->len);
		return s != RELOC_OK ? s : status_of(w);
	}
}

size_t reloc_max_len(const struct insn *in)
{
	switch (in->kind) {
	case IK_JMP: return 5;
	case IK_JCC: return 6;
	case IK_LOOP: return (size_t)in->len + 2 + 5;
	case IK_CALL: return 21 + 5;   /* the long push form, then jmp */
	case IK_CALL_IND: return 21 + in->len;
	default: return in->len;
	}
}
