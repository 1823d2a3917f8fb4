// SPDX-License-Identifier: GPL-2.0
/*
 * The hit path: what every trampoline but the inline ones (count,
 * count_task, tsc) calls. It runs at any site gilk splices, so it calls
 * nothing a splice can be on outside the per-CPU recursion guard (ownpath.c
 * refuses what it reaches), and kprobes may not be put on it.
 */
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>

#include "gilk_internal.h"

static DEFINE_PER_CPU(int, gilk_depth);

/*
 * Called by every trampoline but count's, with the splice and the site's
 * registers (NULL from the scratch template: the instrument needs none).
 */
notrace void gilk_entry(struct gilk_splice_obj *s, struct pt_regs *regs)
{
	struct gilk_hit hit;
	int cpu;

	preempt_disable_notrace();
	cpu = smp_processor_id();
	/* before the guard: a filter calls nothing, and a nested hit is
	 * filtered as any other
	 */
	if (s->filter && !gilk_filter_pass(s->filter, regs)) {
		this_cpu_inc(*s->filtered);
		goto out;
	}
	this_cpu_inc(*s->hits);
	if (this_cpu_inc_return(gilk_depth) == 1) {
		hit.ctx.splice = s->id;
		hit.ctx.cpu = cpu;
		hit.ctx.site = s->site;
		hit.ctx.regs = regs;
		hit.ctx.arg = s->arg;
		hit.s = s;
		s->ins->fn(&hit.ctx);
	} else {
		atomic64_inc(&s->missed);
	}
	this_cpu_dec(gilk_depth);
out:
	/*
	 * No reschedule from here: preempt_schedule_notrace() would run
	 * outside the guard, and a splice on it would be hit again from
	 * here, without end (preempt=full). A pending reschedule waits for
	 * the next preemption point, at worst the next interrupt. (This is
	 * preempt_enable_no_resched_notrace(), which modules do not get.)
	 */
	barrier();
	__preempt_count_dec();
	/* Outside the guard and with preemption as the site had it: a BUG
	 * does not come back from here.
	 */
	if (unlikely(s->flags & GILK_SPLICE_BUG))
		gilk_bug_replay(s->site, regs);
}
NOKPROBE_SYMBOL(gilk_entry);
