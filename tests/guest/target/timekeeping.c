// SPDX-License-Identifier: GPL-2.0
/*
 * Runs code while this CPU is in the middle of a timekeeping update, as an
 * NMI that lands there does: writing "run" to /proc/gilk_target_tk puts a
 * kprobe on update_vsyscall(), which the kernel calls with tk_core's
 * sequence count held for writing, and its handler calls
 * gilk_target_in_tk() once, right there. An instrument that reads the
 * clock with ktime_get_ns() from a splice on that function waits for the
 * update to end, which it never does: this CPU is the one updating. The
 * write returns when the call was made (or after a second without one).
 * Reading gives the calls made.
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

#include "target.h"

static atomic_t calls, armed;
static long last;
static DEFINE_MUTEX(tk_lock);

noinline long gilk_target_in_tk(long n)
{
	return n + 1;
}

static int in_update(struct kprobe *kp, struct pt_regs *regs)
{
	if (atomic_cmpxchg(&armed, 1, 0) == 1) {
		WRITE_ONCE(last, gilk_target_in_tk(atomic_read(&calls)));
		atomic_inc(&calls);
	}
	return 0;
}

static struct kprobe kp = {
	.symbol_name = "update_vsyscall",
	.pre_handler = in_update,
};

static ssize_t tk_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *off)
{
	char buf[16];
	int i, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (strncmp(buf, "run", 3))
		return -EINVAL;
	mutex_lock(&tk_lock);
	kp.addr = NULL;
	kp.flags = 0;
	ret = register_kprobe(&kp);
	if (!ret) {
		atomic_set(&armed, 1);
		for (i = 0; i < 50 && atomic_read(&armed); i++)
			msleep(20);
		atomic_set(&armed, 0);
		unregister_kprobe(&kp);
	}
	mutex_unlock(&tk_lock);
	return ret ? ret : len;
}

static ssize_t tk_read(struct file *file, char __user *ubuf, size_t len,
		       loff_t *off)
{
	char buf[32];
	int n = scnprintf(buf, sizeof(buf), "%d\n", atomic_read(&calls));

	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct proc_ops tk_ops = {
	.proc_read = tk_read,
	.proc_write = tk_write,
	.proc_lseek = default_llseek,
};

static struct proc_dir_entry *entry;

int tk_init(void)
{
	entry = proc_create("gilk_target_tk", 0600, NULL, &tk_ops);
	return entry ? 0 : -ENOMEM;
}

void tk_exit(void)
{
	proc_remove(entry);
}
