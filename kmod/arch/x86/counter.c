// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the tsc instrument can run inline in its trampoline on this
 * machine (GILK_NEEDS_TSC), or through the scratch template.
 */
#include <asm/cpufeature.h>

#include "gilk_internal.h"
#include "compat.h"

static bool fits_disp32(unsigned long v)
{
	return v == (unsigned long)(long)(s32)v;
}

/*
 * Where the ring's ns can come from tsc_khz and the template can read the
 * CPU's number, preempt count and task through a disp32 (as on 6.1 and
 * 6.12, whose per-CPU offsets start at 0).
 */
bool gilk_arch_counter_inline(void)
{
	return boot_cpu_has(X86_FEATURE_TSC) && tsc_khz && fits_disp32(gilk_cpu_number_addr()) &&
	       fits_disp32(gilk_preempt_count_addr()) && fits_disp32(gilk_current_task_addr()) &&
	       fits_disp32(gilk_task_pid_offset());
}
