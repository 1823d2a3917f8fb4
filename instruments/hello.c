// SPDX-License-Identifier: GPL-2.0
/*
 * hello: the smallest instrument, the template for writing one. On every
 * hit it records an event holding the pid of the task that ran the spliced
 * code. An instrument is a function gilk.ko calls from the trampoline with
 * the site's registers (ctx->regs, a struct pt_regs): it runs with
 * preemption off, in whatever context the site runs (task, softirq, hard
 * interrupt, even NMI), so it must not sleep, take a lock that code it may
 * interrupt holds, or print per hit. gilk_emit() is safe everywhere.
 */
#include <linux/module.h>
#include <linux/sched.h>

#include "gilk.h"

static void hello_fn(const struct gilk_ctx *ctx)
{
	u64 pid = task_pid_nr(current);

	gilk_emit(ctx, &pid, sizeof(pid));
}

/* What its events hold, for gilk's events, hist and dump to name. */
static const struct gilk_field hello_fields[] = { { "pid" } };

static struct gilk_instrument hello = {
	.name = "hello",
	.help = "an event with the pid of the task at the site",
	.fn = hello_fn,
	.fields = hello_fields,
	.nfields = ARRAY_SIZE(hello_fields),
	.owner = THIS_MODULE,
};

module_gilk_instrument(hello);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gilk instrument: the smallest one, an event with the pid");
