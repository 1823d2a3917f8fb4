/*
 * splice_arm64: what makes an arm64 instruction unfit to be a splice site.
 * On arm64 a site is one instruction, which one aligned 4-byte store
 * replaces by a b to the trampoline (the architecture lets a b be written
 * over another instruction while other CPUs run it), and which the
 * trampoline runs relocated (reloc_arm64.h). The planner (splice.c, and splice_arm64.c for arm64) checks
 * the kernel's tables; these are the rules the instruction and its
 * neighbours decide.
 */
#ifndef GILK_SPLICE_ARM64_H
#define GILK_SPLICE_ARM64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "splice.h"

/* Why the instruction g->insns[idx] cannot be a site, before relocation
 * (which the planner tries next: reloc_arm64()), SPLICE_OK when it can:
 *  - SR_LANDING_PAD: arm64_is_landing_pad();
 *  - SR_EXCLUSIVE: between a load-exclusive and its store-exclusive
 *    (inclusive): the trampoline's stores would clear the exclusive monitor,
 *    the store would fail every time and the loop around it never end;
 *  - SR_IDLE: wfi, wfe. */
enum splice_reason arm64_site_refusal(const struct cfg *g, size_t idx);

/* A landing pad of indirect branches, which a b must not replace: a bti of
 * any kind, or a paciasp/pacibsp that starts g's function (under BTI it
 * lands indirect calls as well). Whether the kernel enforces BTI does not
 * matter: a splice goes past either, as on x86 past endbr64. */
bool arm64_is_landing_pad(const struct cfg *g, const struct insn *in);
/* paciasp or pacibsp: signs x30 with sp, as a function's first own
 * instruction does */
bool arm64_is_pac_sp(const struct insn *in);

#endif
