// SPDX-License-Identifier: GPL-2.0
/*
 * latency: how long calls of a function take, from FUNC:entry to FUNC:exit.
 * Spliced with the argument "entry" at the entry and "exit" at every return
 * point (the shell's "latency FUNC" makes both in one batch), it records,
 * per call, an event with the duration in ns.
 *
 * Pairs are kept per task, not per CPU: a task may sleep, be preempted or
 * migrate between its entry and its exit. Code that runs outside any task
 * (soft and hard interrupts) cannot sleep or migrate, so its pairs are kept
 * per CPU and per interrupt level. Each keeps a small stack of open calls
 * (recursion, or two timed functions nested), and each open call is known
 * by its stack pointer: past the ftrace call at the entry and at every
 * return point it points at the return address, so an exit finds its own
 * entry even when calls in between lost theirs (an exit missed, a call
 * begun before the splices). Nothing is dropped silently: every event
 * carries the running counts of calls not timed (overflows: a full depth
 * stack or no free task slot; NMIs, where no state may be touched) and of
 * exits or entries that found no partner (unmatched).
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "gilk.h"

#define LATENCY_DEPTH 8		/* open calls per task or interrupt level */
#define LATENCY_TASK_BITS 10	/* 1024 task slots */
#define LATENCY_PROBES 16	/* slots tried per task */

struct open_calls {
	unsigned int depth;
	unsigned long sp[LATENCY_DEPTH];
	u64 t0[LATENCY_DEPTH];
};

struct task_slot {
	struct task_struct *task;	/* owner, or NULL when free */
	struct open_calls calls;
};

/* The event: what the shell's payload table calls "latency". */
struct latency_event {
	u64 ns;
	u64 pid;
	u64 depth;
	u64 overflows;
	u64 unmatched;
};

static struct task_slot task_slots[1 << LATENCY_TASK_BITS];
/* [0]: softirq, [1]: hard interrupt */
static DEFINE_PER_CPU(struct open_calls[2], irq_calls);
static atomic64_t overflows, unmatched;

/*
 * The current task's slot, claimed if it has none and claim is set. Only
 * the task itself claims, fills or frees its slot (with interrupts off), so
 * a slot it finds by its own pointer is its own.
 */
static struct open_calls *task_calls(bool claim)
{
	unsigned long h = hash_ptr(current, LATENCY_TASK_BITS);
	struct task_slot *free = NULL;
	int i;

	for (i = 0; i < LATENCY_PROBES; i++) {
		struct task_slot *s = &task_slots[(h + i) & ((1 << LATENCY_TASK_BITS) - 1)];
		struct task_struct *t = READ_ONCE(s->task);

		if (t == current)
			return &s->calls;
		if (!t && !free)
			free = s;
	}
	if (!claim)
		return NULL;
	/* Another task may take the free slot first: then try the rest. */
	for (i = 0; i < LATENCY_PROBES; i++) {
		struct task_slot *s = &task_slots[(h + i) & ((1 << LATENCY_TASK_BITS) - 1)];

		if (!READ_ONCE(s->task) && !cmpxchg(&s->task, NULL, current)) {
			s->calls.depth = 0;
			return &s->calls;
		}
	}
	return NULL;
}

static void task_calls_release(struct open_calls *c)
{
	if (c->depth)
		return;
	/* Release: the next owner must not see this task's last stores
	 * land after its own.
	 */
	smp_store_release(&container_of(c, struct task_slot, calls)->task, NULL);
}

static void enter(struct open_calls *c, unsigned long sp)
{
	/*
	 * Calls at or above this stack pointer have returned without their
	 * exit being seen (an exit not spliced, or spliced after the call
	 * began): a nested call is always deeper, at a lower address.
	 */
	while (c->depth && c->sp[c->depth - 1] <= sp) {
		c->depth--;
		atomic64_inc(&unmatched);
	}
	if (c->depth == LATENCY_DEPTH) {
		atomic64_inc(&overflows);
		return;
	}
	c->sp[c->depth] = sp;
	c->t0[c->depth] = ktime_get_mono_fast_ns();
	c->depth++;
}

static void leave(const struct gilk_ctx *ctx, struct open_calls *c, unsigned long sp)
{
	struct latency_event ev;
	unsigned int i = c->depth;
	u64 now = ktime_get_mono_fast_ns();

	while (i && c->sp[i - 1] != sp)
		i--;
	if (!i) {
		/* An entry overflowed, or came before the splices. */
		atomic64_inc(&unmatched);
		return;
	}
	/* Calls above it lost their exits. */
	atomic64_add(c->depth - i, &unmatched);
	c->depth = i - 1;
	ev.ns = now - c->t0[i - 1];
	ev.pid = in_task() ? task_pid_nr(current) : 0;
	ev.depth = c->depth;
	ev.overflows = atomic64_read(&overflows);
	ev.unmatched = atomic64_read(&unmatched);
	gilk_emit(ctx, &ev, sizeof(ev));
}

static void latency_fn(const struct gilk_ctx *ctx)
{
	bool entry = !strcmp(ctx->arg, "entry");
	unsigned long sp = kernel_stack_pointer(ctx->regs);
	struct open_calls *c;
	unsigned long flags;

	if (!entry && strcmp(ctx->arg, "exit"))
		return;
	/* An NMI may land between any two instructions below. */
	if (in_nmi()) {
		atomic64_inc(entry ? &overflows : &unmatched);
		return;
	}
	local_irq_save(flags);
	if (in_task()) {
		c = task_calls(entry);
		if (!c)
			atomic64_inc(entry ? &overflows : &unmatched);
	} else {
		c = &this_cpu_ptr(irq_calls)[in_hardirq() ? 1 : 0];
	}
	if (c && entry)
		enter(c, sp);
	else if (c)
		leave(ctx, c, sp);
	if (c && in_task())
		task_calls_release(c);
	local_irq_restore(flags);
}

/* struct latency_event's words, in order */
static const struct gilk_field latency_fields[] = {
	{ "ns" }, { "pid" }, { "depth" }, { "overflows" }, { "unmatched" },
};
static_assert(sizeof(struct latency_event) == ARRAY_SIZE(latency_fields) * sizeof(u64));

static struct gilk_instrument latency = {
	.name = "latency",
	.help = "arg entry|exit: an event per call with its duration (shell: latency FUNC)",
	.fn = latency_fn,
	.fields = latency_fields,
	.nfields = ARRAY_SIZE(latency_fields),
	.owner = THIS_MODULE,
};

module_gilk_instrument(latency);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gilk instrument: function latency, entry to exit, per task");
