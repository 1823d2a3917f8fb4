// SPDX-License-Identifier: GPL-2.0
/*
 * gilk.ko: /dev/gilk (mode 0600), the ioctl dispatch, and module load and
 * unload. Every open and every ioctl needs CAP_SYS_ADMIN and is refused
 * under integrity lockdown (writing kernel text is what lockdown forbids).
 * Unloading removes every splice safely, in one grace period.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

#define GILK_READ_MAX (1 << 20)

static DEFINE_MUTEX(read_mutex);

static int allowed(void)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return security_locked_down(LOCKDOWN_DEV_MEM);
}

static int gilk_open(struct inode *inode, struct file *f)
{
	return allowed();
}

/*
 * What READ may read: the kernel image, the module area (modules, and the
 * trampolines) and RAM's direct map, as /proc/kcore shows them; never
 * ioremapped device memory, where a read has side effects.
 */
static bool readable(unsigned long a, unsigned long len)
{
	unsigned long end = a + len, p;

	if (end < a)
		return false;
	if (a >= (unsigned long)gilk_ks.stext && end <= (unsigned long)gilk_ks.end)
		return true;
	/* modules, and module_alloc()ed memory such as trampolines */
	if (a >= MODULES_VADDR && end <= MODULES_END)
		return true;
	for (p = a & PAGE_MASK; p < end; p += PAGE_SIZE)
		if (p < PAGE_OFFSET || !virt_addr_valid((void *)p))
			return false;
	return true;
}

static long do_read_mem(void __user *arg)
{
	struct gilk_read r;
	void *buf;
	long ret = 0;

	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	if (!r.len || r.len > GILK_READ_MAX)
		return -EINVAL;
	if (!readable(r.addr, r.len))
		return -EACCES;
	buf = kvmalloc(r.len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_kernel_nofault(buf, (void *)(unsigned long)r.addr, r.len))
		ret = -EIO;
	else if (copy_to_user(u64_to_user_ptr(r.buf), buf, r.len))
		ret = -EFAULT;
	kvfree(buf);
	return ret;
}

/*
 * A page of splices from an id on, in id order (GILK_IOC_LIST and
 * GILK_IOC_BRIEFS: the same request, records of two sizes). Copied out
 * under gilk_lock into a kernel buffer, and to user space after it: a copy
 * that faults (or waits on userfaultfd) must not hold the lock every
 * splice and unsplice needs.
 */
struct list_page {
	__u32 from, max, count, next;
	__u64 buf;
};
static_assert(sizeof(struct list_page) == sizeof(struct gilk_list));
static_assert(sizeof(struct list_page) == sizeof(struct gilk_briefs));

static void fill_info(struct gilk_splice_obj *s, void *out)
{
	gilk_splice_info(s, out);
}

static void fill_brief(struct gilk_splice_obj *s, void *out)
{
	struct gilk_brief *o = out;

	o->id = s->id;
	o->site = s->site;
	o->hits = gilk_splice_hits(s);
	strscpy(o->instrument, s->ins->name, sizeof(o->instrument));
	strscpy(o->arg, s->arg, sizeof(o->arg));
}

static long do_list_page(void __user *arg, size_t size, u32 most,
			 void (*fill)(struct gilk_splice_obj *s, void *out))
{
	struct gilk_splice_obj *s;
	struct list_page p;
	unsigned long i;
	long ret = 0;
	void *out;
	u32 n = 0;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (!p.max || p.max > most || p.count || p.next)
		return -EINVAL;
	out = kvcalloc(p.max, size, GFP_KERNEL_ACCOUNT);
	if (!out)
		return -ENOMEM;
	if (mutex_lock_killable(&gilk_lock)) {
		kvfree(out);
		return -EINTR;
	}
	xa_for_each_start(&gilk_splices, i, s, p.from) {
		if (READ_ONCE(s->state) != GILK_ACTIVE)
			continue;
		if (n == p.max) {
			p.next = s->id;
			break;
		}
		fill(s, out + (size_t)n++ * size);
	}
	mutex_unlock(&gilk_lock);
	p.count = n;
	if (copy_to_user(u64_to_user_ptr(p.buf), out, (size_t)n * size) ||
	    copy_to_user(arg, &p, sizeof(p)))
		ret = -EFAULT;
	kvfree(out);
	return ret;
}

static long do_instruments(void __user *arg)
{
	struct gilk_instruments l;
	struct gilk_instrument_info *out;
	long ret;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if (l.max > 256)
		l.max = 256;
	/* 256 of them are 133 KiB: not one high-order allocation */
	out = kvcalloc(l.max ? l.max : 1, sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	ret = gilk_instruments_list(out, l.max, &l.count);
	if (!ret && (copy_to_user(u64_to_user_ptr(l.buf), out,
				  min(l.max, l.count) * sizeof(*out)) ||
		     copy_to_user(arg, &l, sizeof(l))))
		ret = -EFAULT;
	kvfree(out);
	return ret;
}

static long do_facts(void __user *arg)
{
	struct gilk_facts f;
	struct gilk_fact *out;
	long ret;

	if (copy_from_user(&f, arg, sizeof(f)))
		return -EFAULT;
	if (f.max > GILK_FACTS_MAX)
		f.max = GILK_FACTS_MAX;
	out = kvcalloc(f.max ? f.max : 1, sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	ret = gilk_facts(&f, out);
	if (!ret && (copy_to_user(u64_to_user_ptr(f.buf), out,
				  min(f.max, f.count) * sizeof(*out)) ||
		     copy_to_user(arg, &f, sizeof(f))))
		ret = -EFAULT;
	kvfree(out);
	return ret;
}

static long do_splice_batch(void __user *arg, struct file *f)
{
	struct gilk_batch b;
	long ret;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	ret = gilk_splice_batch(u64_to_user_ptr(b.items), b.count, &b.failed, f);
	if (copy_to_user(arg, &b, sizeof(b)) && !ret)
		ret = -EFAULT;
	return ret;
}

static long do_unsplice_batch(void __user *arg)
{
	struct gilk_batch b;
	u32 *ids;
	long ret;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (!b.count || b.count > GILK_BATCH_MAX)
		return -EINVAL;
	ids = kvcalloc(b.count, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	if (copy_from_user(ids, u64_to_user_ptr(b.items), b.count * sizeof(*ids))) {
		kvfree(ids);
		return -EFAULT;
	}
	b.failed = 0;
	ret = gilk_unsplice_batch(ids, b.count, &b.failed);
	if (copy_to_user(arg, &b, sizeof(b)) && !ret)
		ret = -EFAULT;
	kvfree(ids);
	return ret;
}

static int gilk_release_file(struct inode *inode, struct file *f)
{
	gilk_release_owner(f);
	return 0;
}

static long gilk_ioctl(struct file *f, unsigned int cmd, unsigned long a)
{
	void __user *arg = (void __user *)a;
	long ret = allowed();
	u32 id;

	if (ret)
		return ret;
	switch (cmd) {
	case GILK_IOC_VERSION: {
		struct gilk_version v = { GILK_ABI_VERSION, GILK_BATCH_MAX };

		return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
	}
	case GILK_IOC_STATS: {
		struct gilk_stats st;

		if (gilk_stats(&st))
			return -EINTR;
		return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
	}
	case GILK_IOC_AGG_READ: {
		struct gilk_agg_read r;
		int err;

		if (copy_from_user(&r, arg, sizeof(r)))
			return -EFAULT;
		err = gilk_agg_read(&r);
		if (!err && copy_to_user(arg, &r, sizeof(r)))
			err = -EFAULT;
		return err;
	}
	case GILK_IOC_READ:
		return do_read_mem(arg);
	case GILK_IOC_RESERVE: {
		struct gilk_reserve r;

		if (copy_from_user(&r, arg, sizeof(r)))
			return -EFAULT;
		ret = gilk_reserve(&r, f);
		if (!ret && copy_to_user(arg, &r, sizeof(r))) {
			gilk_release(r.id, f);
			ret = -EFAULT;
		}
		return ret;
	}
	case GILK_IOC_SPLICE: {
		u32 failed;

		/* one request: a batch of one, the request itself */
		return gilk_splice_batch(arg, 1, &failed, f);
	}
	case GILK_IOC_UNSPLICE:
		if (copy_from_user(&id, arg, sizeof(id)))
			return -EFAULT;
		return gilk_unsplice(id);
	case GILK_IOC_RELEASE:
		if (copy_from_user(&id, arg, sizeof(id)))
			return -EFAULT;
		return gilk_release(id, f);
	case GILK_IOC_SPLICE_BATCH:
		return do_splice_batch(arg, f);
	case GILK_IOC_UNSPLICE_BATCH:
		return do_unsplice_batch(arg);
	case GILK_IOC_LIST:
		return do_list_page(arg, sizeof(struct gilk_splice_info), GILK_LIST_MAX,
				    fill_info);
	case GILK_IOC_BRIEFS:
		return do_list_page(arg, sizeof(struct gilk_brief), GILK_BRIEFS_MAX,
				    fill_brief);
	case GILK_IOC_INSTRUMENTS:
		return do_instruments(arg);
	case GILK_IOC_FACTS:
		return do_facts(arg);
	default:
		return -ENOTTY;
	}
}

static ssize_t gilk_read(struct file *f, char __user *buf, size_t len, loff_t *off)
{
	ssize_t ret = allowed();

	if (ret)
		return ret;
	mutex_lock(&read_mutex);
	ret = gilk_events_read(buf, len);
	mutex_unlock(&read_mutex);
	return ret;
}

static const struct file_operations gilk_fops = {
	.owner = THIS_MODULE,
	.open = gilk_open,
	.release = gilk_release_file,
	.unlocked_ioctl = gilk_ioctl,
	.read = gilk_read,
	.llseek = noop_llseek,
};

static struct miscdevice gilk_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "gilk",
	.fops = &gilk_fops,
	.mode = 0600,
};

static int __init gilk_init(void)
{
	int ret = gilk_resolve_ksyms();

	if (ret)
		return ret;
	ret = gilk_site_index_init();
	if (ret)
		return ret;
	ret = gilk_cold_index_init();
	if (ret)
		goto fail_index;
	ret = gilk_events_init();
	if (ret)
		goto fail_cold;
	ret = gilk_fetch_init();
	if (ret)
		goto fail_events;
	ret = gilk_task_names_init();
	if (ret)
		goto fail_fetch;
	ret = gilk_builtin_init();
	if (ret)
		goto fail_task_names;
	ret = gilk_patch_init();
	if (ret)
		goto fail_builtin;
	/* after the notifier: what runs before it is on gilk's path */
	ret = gilk_own_path_init();
	if (ret)
		goto fail_patch;
	ret = gilk_lifecycle_init();
	if (ret)
		goto fail_own_path;
	ret = gilk_modules_init();
	if (ret)
		goto fail_lifecycle;
	ret = misc_register(&gilk_dev);
	if (ret)
		goto fail_modules;
	return 0;
fail_modules:
	gilk_modules_exit();
fail_lifecycle:
	gilk_lifecycle_exit();
fail_own_path:
	gilk_own_path_exit();
fail_patch:
	gilk_patch_exit();
fail_builtin:
	gilk_builtin_exit();
fail_task_names:
	gilk_task_names_exit();
fail_fetch:
	gilk_fetch_exit();
fail_events:
	gilk_events_exit();
fail_cold:
	gilk_cold_index_exit();
fail_index:
	gilk_site_index_exit();
	return ret;
}

static void __exit gilk_exit(void)
{
	misc_deregister(&gilk_dev);
	gilk_modules_exit();
	gilk_unsplice_all();
	gilk_lifecycle_exit();
	gilk_own_path_exit();
	gilk_patch_exit();
	gilk_builtin_exit();
	gilk_task_names_exit();
	gilk_fetch_exit();
	gilk_events_exit();
	gilk_cold_index_exit();
	gilk_site_index_exit();
}

module_init(gilk_init);
module_exit(gilk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gilk: splice instrumentation into the running kernel");
