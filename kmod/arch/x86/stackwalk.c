// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel stack at a hit, by the kernel's own unwinder (ORC, or frame
 * pointers) started from the site's registers, as perf's callchains are:
 * for aggregations keyed by stack (agg.c) and for instruments (gilk.h's
 * gilk_stack()). It runs on the hit path, inside the recursion guard: a
 * splice on the unwinder itself is a nested hit, counted, never entered.
 */
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <asm/unwind.h>

#include "gilk_internal.h"

notrace unsigned int gilk_stack(const struct pt_regs *regs, u64 *frames, unsigned int max,
				bool *more)
{
	/* the unwinder's calls take them writable; they only read them */
	struct pt_regs *r = (struct pt_regs *)regs;
	struct unwind_state state;
	unsigned int n = 0;

	*more = false;
	if (!max)
		return 0;
	frames[n++] = instruction_pointer(r);
	/* started from registers, the unwinder reports their caller first */
	for (unwind_start(&state, current, r, NULL);
	     !unwind_done(&state); unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		if (n == max) {
			*more = true;
			break;
		}
		frames[n++] = addr;
	}
	return n;
}
EXPORT_SYMBOL_GPL(gilk_stack);
NOKPROBE_SYMBOL(gilk_stack);
