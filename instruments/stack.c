// SPDX-License-Identifier: GPL-2.0
/*
 * stack: the kernel stack at the site, as the return addresses the kernel's
 * own unwinder (ORC, or frame pointers) finds from the site's registers
 * (gilk_stack()), innermost first; the shell shows each with its symbol.
 * An event per stack costs far more than a hit, so it is rate-limited: at
 * most N stacks a second per CPU (the splice's argument, 10 unless given);
 * every event carries how many hits were not walked since the module
 * loaded (those of the last second show in the next event), so the limit
 * is never silent. For every stack counted, unlimited, "count by stack"
 * aggregates them in gilk.ko instead.
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>

#include "gilk.h"

#define STACK_FRAMES 16
#define STACK_RATE_DEFAULT 10

struct stack_window {
	unsigned long start;	/* jiffies when this second began */
	unsigned int used;	/* stacks walked in it */
};

struct stack_event {
	u64 suppressed;
	u64 frames[STACK_FRAMES];
};

static DEFINE_PER_CPU(struct stack_window, windows);
static atomic64_t suppressed;

/* Whether this CPU may walk one more stack this second. */
static bool stack_allowed(const char *arg)
{
	struct stack_window *w = this_cpu_ptr(&windows);
	unsigned int rate;

	if (kstrtouint(arg, 10, &rate) || !rate)
		rate = STACK_RATE_DEFAULT;
	if (time_after(jiffies, w->start + HZ)) {
		w->start = jiffies;
		w->used = 0;
	}
	if (w->used >= rate)
		return false;
	w->used++;
	return true;
}

static void stack_fn(const struct gilk_ctx *ctx)
{
	struct stack_event ev;
	unsigned int n;
	bool more;

	if (!stack_allowed(ctx->arg)) {
		atomic64_inc(&suppressed);
		return;
	}
	n = gilk_stack(ctx->regs, ev.frames, STACK_FRAMES, &more);
	ev.suppressed = atomic64_read(&suppressed);
	gilk_emit(ctx, &ev, sizeof(ev.suppressed) + n * sizeof(ev.frames[0]));
}

/* suppressed, then as many frames as the walk found: the frames are optional */
#define FRAME(n) { "frame" #n, GILK_FIELD_HEX | GILK_FIELD_OPTIONAL }
static const struct gilk_field stack_fields[] = {
	{ "suppressed" }, FRAME(0), FRAME(1), FRAME(2), FRAME(3), FRAME(4), FRAME(5),
	FRAME(6), FRAME(7), FRAME(8), FRAME(9), FRAME(10), FRAME(11), FRAME(12), FRAME(13),
	FRAME(14), FRAME(15),
};
static_assert(sizeof(struct stack_event) == ARRAY_SIZE(stack_fields) * sizeof(u64));

static struct gilk_instrument stack = {
	.name = "stack",
	.help = "arg N: the kernel stack at the site, at most N (10) a second per CPU",
	.fn = stack_fn,
	.fields = stack_fields,
	.nfields = ARRAY_SIZE(stack_fields),
	.owner = THIS_MODULE,
};

module_gilk_instrument(stack);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gilk instrument: the kernel stack at the site, rate-limited");
