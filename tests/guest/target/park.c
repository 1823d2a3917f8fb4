// SPDX-License-Identifier: GPL-2.0
/*
 * Parks a task at an address, for tests of what gilk does to a task that
 * stands there: writing "park ADDR" to /proc/gilk_target_park sets an
 * instruction breakpoint (the CPU's debug registers) at ADDR. The first CPU
 * to reach it is interrupted right there (an irq_work raised from the
 * breakpoint's handler arrives before ADDR runs), and on that interrupt's
 * way out a softirq holds the CPU for PARK_MS with interrupts enabled: the
 * task stands at ADDR, as one interrupted or preempted there would, while
 * the other CPUs, IPIs to this one included, go on. Then it runs ADDR.
 * "unpark" removes the breakpoint. "park ADDR+OFF" parks at ADDR + OFF (the
 * shell's arithmetic cannot add to a kernel address). Reading gives how
 * many tasks were parked.
 */
#include <linux/delay.h>
#include <linux/hw_breakpoint.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

#include "target.h"

#define PARK_MS 800

static struct perf_event * __percpu *bp;
static atomic_t hits, parked;
static DEFINE_MUTEX(park_lock);

static void hold(struct tasklet_struct *t)
{
	atomic_inc(&parked);
	mdelay(PARK_MS);
}

static DECLARE_TASKLET(hold_tasklet, hold);

static void raise_hold(struct irq_work *w)
{
	tasklet_schedule(&hold_tasklet);
}

static DEFINE_IRQ_WORK(hold_work, raise_hold);

/* In the #DB exception, NMI-like: only irq_work may be raised here. */
static void on_hit(struct perf_event *e, struct perf_sample_data *data,
		   struct pt_regs *regs)
{
	if (atomic_inc_return(&hits) == 1)
		irq_work_queue(&hold_work);
}

static void unpark(void)
{
	if (bp)
		unregister_wide_hw_breakpoint(bp);
	bp = NULL;
}

static int park(unsigned long addr)
{
	struct perf_event_attr attr;

	hw_breakpoint_init(&attr);
	attr.bp_addr = addr;
	attr.bp_len = sizeof(long);
	attr.bp_type = HW_BREAKPOINT_X;
	unpark();
	atomic_set(&hits, 0);
	atomic_set(&parked, 0);
	bp = register_wide_hw_breakpoint(&attr, on_hit, NULL);
	if (IS_ERR((void __force *)bp)) {
		int ret = PTR_ERR((void __force *)bp);

		bp = NULL;
		return ret;
	}
	return 0;
}

static ssize_t park_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *off)
{
	char buf[64];
	unsigned long addr, plus = 0;
	int ret = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	mutex_lock(&park_lock);
	if (sscanf(buf, "park %lx+%lx", &addr, &plus) >= 1)
		ret = park(addr + plus);
	else if (!strncmp(buf, "unpark", 6))
		unpark();
	else
		ret = -EINVAL;
	mutex_unlock(&park_lock);
	return ret ? ret : len;
}

static ssize_t park_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *off)
{
	char buf[32];
	int n = scnprintf(buf, sizeof(buf), "%d\n", atomic_read(&parked));

	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct proc_ops park_ops = {
	.proc_read = park_read,
	.proc_write = park_write,
	.proc_lseek = default_llseek,
};

static struct proc_dir_entry *entry;

int park_init(void)
{
	entry = proc_create("gilk_target_park", 0600, NULL, &park_ops);
	return entry ? 0 : -ENOMEM;
}

void park_exit(void)
{
	proc_remove(entry);
	mutex_lock(&park_lock);
	unpark();
	mutex_unlock(&park_lock);
	irq_work_sync(&hold_work);
	tasklet_kill(&hold_tasklet);
}
