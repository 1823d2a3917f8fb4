// SPDX-License-Identifier: GPL-2.0
/*
 * The names of tasks that have exited, for the tsc template's events: a hit
 * records only the task's pid (uapi gilk.h: who), and gilk.ko looks up the
 * rest when it drains the ring, by which time a short command has often
 * exited. As ftrace's saved_cmdlines keeps the last name seen in each of a
 * fixed number of pid slots, this keeps the name of the last task to exit
 * in each, from the sched_process_exit tracepoint: a task is found alive,
 * or here until another exit takes its slot (then its event says it is
 * gone).
 */
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "gilk_internal.h"

#define SLOTS 4096	/* a power of 2 */

struct exited {
	u32 tid, pid;
	char comm[TASK_COMM_LEN];
};

static_assert(TASK_COMM_LEN == GILK_COMM_LEN);

static struct exited cache[SLOTS];
/* raw: the tracepoint's probes run with preemption off, even on PREEMPT_RT */
static DEFINE_RAW_SPINLOCK(cache_lock);
static struct tracepoint *exit_tp;

static void record_exit(void *data, struct task_struct *p)
{
	struct exited *x = &cache[p->pid & (SLOTS - 1)];
	unsigned long flags;

	raw_spin_lock_irqsave(&cache_lock, flags);
	x->tid = p->pid;
	x->pid = p->tgid;
	/* the task exiting is the one running this: it renames nothing now */
	memcpy(x->comm, p->comm, sizeof(x->comm));
	x->comm[sizeof(x->comm) - 1] = '\0';
	raw_spin_unlock_irqrestore(&cache_lock, flags);
}

bool gilk_exited_task(u32 tid, u32 *pid, char *comm)
{
	struct exited *x = &cache[tid & (SLOTS - 1)];
	unsigned long flags;
	bool found;

	raw_spin_lock_irqsave(&cache_lock, flags);
	found = tid && x->tid == tid;
	if (found) {
		*pid = x->pid;
		memcpy(comm, x->comm, sizeof(x->comm));
	}
	raw_spin_unlock_irqrestore(&cache_lock, flags);
	return found;
}

static void find_exit_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		*(struct tracepoint **)priv = tp;
}

int gilk_task_names_init(void)
{
	for_each_kernel_tracepoint(find_exit_tp, &exit_tp);
	/* without the tracepoint, an exited task's events say it is gone */
	if (!exit_tp)
		return 0;
	return tracepoint_probe_register(exit_tp, record_exit, NULL);
}

void gilk_task_names_exit(void)
{
	if (!exit_tp)
		return;
	tracepoint_probe_unregister(exit_tp, record_exit, NULL);
	tracepoint_synchronize_unregister();
}
