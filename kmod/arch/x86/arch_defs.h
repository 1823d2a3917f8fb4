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
#include <asm/tsc.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* A byte that traps where it runs: int3. A trap-mode splice's region is all of it. */
#define GILK_ARCH_TRAP_BYTE 0xcc
/* What trampoline memory holds where no trampoline is: a stray jump traps. */
#define GILK_ARCH_FILL_BYTE GILK_ARCH_TRAP_BYTE

/* A jmp rel32: what a site's chain of joined splices is entered by. */
#define GILK_JMP32_LEN 5

static __maybe_unused void gilk_arch_jmp(u8 *b, unsigned long from, unsigned long to)
{
	s32 rel = (s32)(to - (from + GILK_JMP32_LEN));

	b[0] = 0xe9;
	memcpy(b + 1, &rel, sizeof(rel));
}

/*
 * A kprobe writes an int3 at its address, an optimized one a jmp rel32
 * there: what it writes begins at most GILK_ARCH_KPROBE_BEFORE bytes
 * before a byte it covers, and covers GILK_ARCH_KPROBE_SPAN bytes.
 */
#define GILK_ARCH_KPROBE_BEFORE 4
#define GILK_ARCH_KPROBE_SPAN 5

/* A jump label site is a jmp rel8 or rel32 (or a nop as long), a static call site a call rel32. */
#define GILK_JUMP_SITE_MAX 5
#define GILK_ARCH_STATIC_CALL_LEN 5

/* The words for a CPU whose per-CPU base is not set yet. */
#define GILK_ARCH_EARLY_CPU_WHY "runs before the CPU's %%gs is its per-CPU base (bring-up, resume)"

/* The tsc instrument's clock: the TSC, read in order with the code before it, and its rate. */
static __always_inline u64 gilk_arch_counter(void)
{
	return rdtsc_ordered();
}

static __always_inline u32 gilk_arch_counter_khz(void)
{
	return tsc_khz;
}

/* BUG() and WARN() trap with ud2; die() names the trap as the CPU's handler does. */
#define GILK_ARCH_BUG_DIE_MSG "invalid opcode"

static __maybe_unused bool gilk_arch_is_bug_trap(unsigned long a)
{
	u8 b[2];

	return !copy_from_kernel_nofault(b, (void *)a, 2) && b[0] == 0x0f && b[1] == 0x0b;
}

#endif
