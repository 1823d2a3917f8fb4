// SPDX-License-Identifier: GPL-2.0
/*
 * A page that is slow to fault in, for tests of what gilk.ko holds while an
 * ioctl waits on a user buffer: each mmap of /proc/gilk_target_slowpage is
 * one page whose first fault waits (killable, at most SLOW_MS) until
 * "release" is written to the file. Reading the file gives how many faults
 * wait now. Userfaultfd does the same where the kernel has it; the debug
 * kernel's configuration does not, and this works on every kernel.
 */
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "target.h"

#define SLOW_MS 10000

static struct page *page;
static DECLARE_WAIT_QUEUE_HEAD(release_wq);
static atomic_t held = ATOMIC_INIT(0);	/* mappings whose fault must wait */
static atomic_t waiting = ATOMIC_INIT(0);

static vm_fault_t slow_fault(struct vm_fault *vmf)
{
	atomic_inc(&waiting);
	wait_event_killable_timeout(release_wq, !atomic_read(&held),
				    msecs_to_jiffies(SLOW_MS));
	atomic_dec(&waiting);
	if (vmf->pgoff)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct slow_vm_ops = {
	.fault = slow_fault,
};

static int slow_mmap(struct file *f, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	vma->vm_ops = &slow_vm_ops;
	atomic_set(&held, 1);
	return 0;
}

static ssize_t slow_read(struct file *f, char __user *buf, size_t len, loff_t *pos)
{
	char text[24];
	int n = scnprintf(text, sizeof(text), "%d\n", atomic_read(&waiting));

	return simple_read_from_buffer(buf, len, pos, text, n);
}

static ssize_t slow_write(struct file *f, const char __user *buf, size_t len, loff_t *pos)
{
	char cmd[16];

	if (len == 0 || len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, buf, len))
		return -EFAULT;
	cmd[len] = 0;
	if (!sysfs_streq(cmd, "release"))
		return -EINVAL;
	atomic_set(&held, 0);
	wake_up_all(&release_wq);
	return len;
}

static const struct proc_ops slow_ops = {
	.proc_read = slow_read,
	.proc_write = slow_write,
	.proc_mmap = slow_mmap,
	.proc_lseek = default_llseek,
};

static struct proc_dir_entry *entry;

int slowpage_init(void)
{
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	entry = proc_create("gilk_target_slowpage", 0600, NULL, &slow_ops);
	if (!entry) {
		__free_page(page);
		return -ENOMEM;
	}
	return 0;
}

/* proc files do not hold their module: the tests unmap the page first. */
void slowpage_exit(void)
{
	proc_remove(entry);
	__free_page(page);
}
