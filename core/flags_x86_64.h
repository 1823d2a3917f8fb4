/*
 * flags_x86_64: whether the arithmetic flags are dead at a site, so that the count
 * template may change them without saving them. gilk.ko's checker decides
 * the same question by the same rules (kmod/arch/x86/flags.h, which lists them) with
 * the kernel's decoder: where this says dead, it must agree.
 *
 * From the site along the one path without a branch, an instruction that
 * writes every flag before any is read makes them dead; one that may read
 * them, a branch, a call, a ret, a 5-byte nop (an ftrace, static call or
 * jump label site), a jump label site, an instruction with an
 * exception-table entry, the end of the function or 16 instructions
 * without an answer make them live.
 */
#ifndef GILK_FLAGS_X86_64_H
#define GILK_FLAGS_X86_64_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "textfacts.h"

/* The most instructions walked (GILK_FLAGS_WALK_MAX in the uapi). */
#define FLAGS_WALK_MAX 16

/* facts may be NULL. */
bool flags_dead_at(const struct cfg *g, const struct textfacts *facts,
		   uint64_t site);

#endif
