/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one instruction does to the arithmetic flags, by its opcode: the
 * rule the planner (core/flags_x86_64.c, from its own decoding) and gilk.ko's
 * checker (kmod/arch/x86/flags.c, from the kernel's decoder) both walk with, so that
 * they cannot disagree on an opcode. kmod/arch/x86/flags.h says why each rule holds.
 */
#ifndef _GILK_FLAG_EFFECT_H
#define _GILK_FLAG_EFFECT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#endif

enum gilk_flag_effect {
	GILK_FX_UNKNOWN,	/* may read them: the walk ends, live */
	GILK_FX_NONE,		/* reads none (inc and dec keep CF): go on */
	GILK_FX_WRITE_ALL,	/* writes all six before reading any: dead */
};

/* The length of an ftrace, static call or jump label site's nop. */
#define GILK_FX_NOP5 5

/*
 * op: the first opcode byte (after legacy and REX prefixes); op2: the next
 * byte (the second opcode byte after 0x0f); reg: the ModRM reg field of a
 * one-byte opcode that has one; vex: VEX or EVEX encoded; len: its length.
 */
static inline enum gilk_flag_effect gilk_flag_effect(unsigned char op, unsigned char op2,
						     unsigned char reg, bool vex,
						     unsigned int len)
{
	if (vex)
		return GILK_FX_UNKNOWN;
	/* add or and sub xor cmp, each in its six forms (not adc, sbb) */
	if (op < 0x40 && (op & 7) <= 5 && (op >> 3) != 2 && (op >> 3) != 3)
		return GILK_FX_WRITE_ALL;
	switch (op) {
	case 0x80: case 0x81: case 0x83:	/* /2 adc and /3 sbb read CF */
		return reg == 2 || reg == 3 ? GILK_FX_UNKNOWN : GILK_FX_WRITE_ALL;
	case 0x84: case 0x85: case 0xa8: case 0xa9:	/* test */
		return GILK_FX_WRITE_ALL;
	case 0xf6: case 0xf7:
		return reg == 0 ? GILK_FX_WRITE_ALL : GILK_FX_UNKNOWN;
	case 0xfe: case 0xff:			/* inc, dec */
		return reg <= 1 ? GILK_FX_NONE : GILK_FX_UNKNOWN;
	case 0x88: case 0x89: case 0x8a: case 0x8b: case 0x8d: case 0x63:
	case 0x90:
		return GILK_FX_NONE;
	case 0xc6: case 0xc7:			/* mov /0 (c7 f8 is xbegin) */
		return reg == 0 ? GILK_FX_NONE : GILK_FX_UNKNOWN;
	case 0x0f:
		if (op2 == 0xb6 || op2 == 0xb7 || op2 == 0xbe || op2 == 0xbf)
			return GILK_FX_NONE;	/* movzx, movsx */
		if (op2 == 0x1f)
			return len < GILK_FX_NOP5 ? GILK_FX_NONE : GILK_FX_UNKNOWN;
		return GILK_FX_UNKNOWN;
	default:
		if ((op >= 0x50 && op <= 0x5f) || (op >= 0xb0 && op <= 0xbf))
			return GILK_FX_NONE;	/* push, pop, mov imm */
		return GILK_FX_UNKNOWN;
	}
}

#endif
