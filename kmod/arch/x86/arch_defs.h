/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64's part of gilk_internal.h, included before the rest of it: the
 * kernel's instruction decoder, whose types gilk_ks's insn_decode takes,
 * and the few encodings the shared files write or test, kept here as
 * plain static code so that they compile as they did in those files.
 */
#ifndef _GILK_ARCH_DEFS_H
#define _GILK_ARCH_DEFS_H

#include <asm/insn.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* What trampoline memory holds where no trampoline is: a stray jump traps. */
#define GILK_ARCH_FILL_BYTE 0xcc

/* A jmp rel32: what a site's chain of joined splices is entered by. */
#define GILK_JMP32_LEN 5

static __maybe_unused void gilk_arch_jmp(u8 *b, unsigned long from, unsigned long to)
{
	s32 rel = (s32)(to - (from + GILK_JMP32_LEN));

	b[0] = 0xe9;
	memcpy(b + 1, &rel, sizeof(rel));
}

/* BUG() and WARN() trap with ud2; die() names the trap as the CPU's handler does. */
#define GILK_ARCH_BUG_DIE_MSG "invalid opcode"

static __maybe_unused bool gilk_arch_is_bug_trap(unsigned long a)
{
	u8 b[2];

	return !copy_from_kernel_nofault(b, (void *)a, 2) && b[0] == 0x0f && b[1] == 0x0b;
}

#endif
