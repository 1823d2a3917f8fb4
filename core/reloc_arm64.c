/* AArch64 relocation (see reloc_arm64.h). */
#include "reloc_arm64.h"

#include "decode_arm64.h"

#include <stdbool.h>

#define A64_NOP 0xd503201fu

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= (1ull << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

bool a64_b_reaches(uint64_t from, uint64_t to)
{
	int64_t d = (int64_t)(to - from);

	return !(d & 3) && d >= -(1ll << 27) && d < (1ll << 27);
}

uint32_t a64_b(uint64_t from, uint64_t to)
{
	return 0x14000000u | (uint32_t)(((int64_t)(to - from) >> 2) & 0x3ffffff);
}

/* ldr Xt, <literal at lit>, written at pc */
static uint32_t ldr_x_literal(uint64_t pc, uint64_t lit, unsigned rt)
{
	return 0x58000000u | (uint32_t)((((int64_t)(lit - pc) >> 2) & 0x7ffff) << 5) | rt;
}

/* code[0..ncode) at to, then a literal holding value, which code[ldr_at]
 * loads into Xrt: "b over" it after code that falls through, a nop to align
 * it to 8 bytes. */
static size_t with_literal(uint32_t *out, const uint32_t *code, size_t ncode, bool falls,
			   uint64_t to, uint64_t value, unsigned ldr_at, unsigned rt)
{
	size_t n = ncode + falls;
	uint64_t lit;

	if ((to + n * 4) % 8)
		n++;
	lit = to + n * 4;
	for (size_t i = 0; i < ncode; i++)
		out[i] = code[i];
	out[ldr_at] = ldr_x_literal(to + ldr_at * 4, lit, rt);
	if (falls)
		out[ncode] = a64_b(to + ncode * 4, lit + 8);
	if (n > ncode + falls)
		out[ncode + falls] = A64_NOP;
	out[n] = (uint32_t)value;
	out[n + 1] = (uint32_t)(value >> 32);
	return n + 2;
}

static bool is_trap(uint32_t w)
{
	return (w & 0xff000000u) == 0xd4000000u ||	/* svc hvc smc brk hlt dcps */
	       (w & 0xffff0000u) == 0 ||		/* udf */
	       w == 0xd69f03e0u || w == 0xd6bf03e0u ||	/* eret, drps */
	       (w & 0xfffffbffu) == 0xd69f0bffu;	/* eretaa, eretab */
}

enum reloc_status reloc_arm64(uint32_t w, uint64_t from, uint64_t to, uint32_t *out,
			      size_t *n)
{
	uint64_t target;
	unsigned rt = w & 31;

	*n = 0;
	if ((from | to) & 3)
		return RELOC_UNSUPPORTED;
	/* bc.cond (Armv8.8) is not inverted here */
	/* an exclusive load is copied: nothing but the b back runs between
	 * it and its store; the store is refused (reloc_arm64.h) */
	if (is_trap(w) || arm64_is_exclusive(w, false) || (w & 0xff000010u) == 0x54000010u)
		return RELOC_UNSUPPORTED;
	if ((w & 0xfc000000u) == 0x14000000u) {			/* b */
		target = from + (uint64_t)(sext(w, 26) * 4);
		if (!a64_b_reaches(to, target))
			return RELOC_BRANCH_RANGE;
		out[0] = a64_b(to, target);
		*n = 1;
		return RELOC_OK;
	}
	if ((w & 0xfc000000u) == 0x94000000u) {			/* bl */
		uint32_t code[2] = { 0, 0 };

		target = from + (uint64_t)(sext(w, 26) * 4);
		if (!a64_b_reaches(to + 4, target))
			return RELOC_BRANCH_RANGE;
		code[1] = a64_b(to + 4, target);
		*n = with_literal(out, code, 2, false, to, from + 4, 0, 30);
		return RELOC_OK;
	}
	if ((w & 0xfffffc1fu) == 0xd63f0000u) {			/* blr Xn */
		unsigned rn = (w >> 5) & 31;
		/* mov x16, Xn; ldr x30, =from + 4; br x16 */
		uint32_t code[3] = { 0xaa0003f0u | rn << 16, 0, 0xd61f0200u };

		*n = with_literal(out, code, 3, false, to, from + 4, 1, 30);
		return RELOC_OK;
	}
	if ((w & 0xfeff0000u) == 0xd63f0000u)			/* blraa, blrab, ... */
		return RELOC_UNSUPPORTED;
	if ((w & 0xff000010u) == 0x54000000u ||			/* b.cond */
	    (w & 0x7e000000u) == 0x34000000u ||			/* cbz, cbnz */
	    (w & 0x7e000000u) == 0x36000000u) {			/* tbz, tbnz */
		uint32_t skip;

		if ((w & 0xff000000u) == 0x54000000u) {
			unsigned cond = w & 15;

			target = from + (uint64_t)(sext(w >> 5, 19) * 4);
			if (cond >= 14) {	/* al, nv: always */
				if (!a64_b_reaches(to, target))
					return RELOC_BRANCH_RANGE;
				out[0] = a64_b(to, target);
				*n = 1;
				return RELOC_OK;
			}
			skip = 0x54000000u | (2u << 5) | (cond ^ 1);
		} else if ((w & 0x7e000000u) == 0x34000000u) {
			target = from + (uint64_t)(sext(w >> 5, 19) * 4);
			skip = ((w ^ 0x01000000u) & 0xff00001fu) | (2u << 5);
		} else {
			target = from + (uint64_t)(sext(w >> 5, 14) * 4);
			skip = ((w ^ 0x01000000u) & 0xfff8001fu) | (2u << 5);
		}
		if (!a64_b_reaches(to + 4, target))
			return RELOC_BRANCH_RANGE;
		out[0] = skip;
		out[1] = a64_b(to + 4, target);
		*n = 2;
		return RELOC_OK;
	}
	if ((w & 0x1f000000u) == 0x10000000u) {			/* adr, adrp */
		int64_t imm = sext(((w >> 5) & 0x7ffff) << 2 | ((w >> 29) & 3), 21);
		uint64_t value = w & 0x80000000u ? (from & ~0xfffull) + ((uint64_t)imm << 12) :
				 from + (uint64_t)imm;
		uint32_t code[1] = { 0 };

		*n = with_literal(out, code, 1, true, to, value, 0, rt);
		return RELOC_OK;
	}
	if ((w & 0x3b000000u) == 0x18000000u) {			/* ldr, ldrsw, prfm literal */
		unsigned opc = w >> 30;
		uint32_t code[2];

		if (w & 0x04000000u)
			return RELOC_UNSUPPORTED;			/* SIMD&FP */
		if (opc == 3) {
			out[0] = A64_NOP;
			*n = 1;
			return RELOC_OK;
		}
		if (rt == 31)		/* the zero register: nothing to load through */
			return RELOC_UNSUPPORTED;
		target = from + (uint64_t)(sext(w >> 5, 19) * 4);
		code[0] = 0;
		/* ldr Wt, [Xt]; ldr Xt, [Xt]; ldrsw Xt, [Xt] */
		code[1] = (opc == 0 ? 0xb9400000u : opc == 1 ? 0xf9400000u : 0xb9800000u) |
			  rt << 5 | rt;
		*n = with_literal(out, code, 2, true, to, target, 0, rt);
		return RELOC_OK;
	}
	out[0] = w;
	*n = 1;
	return RELOC_OK;
}
