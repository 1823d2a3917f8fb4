/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the arithmetic flags are dead at a site: the count template leaves
 * them alone only there (its incq changes them). The planner says so
 * (core/flags_x86_64.c); the checker does not take its word but walks the code
 * itself, with the kernel's decoder, by the same rules.
 *
 * The rules. From the site, follow the one path control takes without a
 * branch: each instruction falls into the next. Every flag (CF, PF, AF, ZF,
 * SF, OF) is dead once an instruction writes it before anything reads it:
 *  - add, or, and, sub, xor, cmp and test write all six, reading none: dead;
 *  - mov, lea, movzx/movsx(d), push, pop, nops shorter than 5 bytes, and
 *    inc and dec (which keep CF) read none: the walk goes on;
 *  - anything else may read them: a jcc, setcc, cmovcc, adc, sbb, pushf,
 *    a call or ret (asm callees and returns pass flags: cmpxchg8b_emu), a
 *    jmp (another path), a VEX instruction, one that does not decode.
 * A 5-byte nop (an ftrace, static call or jump label site: a call or a jmp
 * at any moment), a jump label site and an instruction with an
 * exception-table entry (its fixup runs elsewhere) also end the walk as
 * live, and so do 16 instructions without an answer.
 */
#ifndef _GILK_FLAGS_H
#define _GILK_FLAGS_H

#include "verify_env.h"

bool gilk_flags_dead(const struct gilk_verify_env *env, unsigned long site);

#endif
