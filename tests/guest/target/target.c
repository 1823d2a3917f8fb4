// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target.ko: code for the guest tests to splice, with a WARN() and a
 * BUG() reached on demand. Writing "warn N" to /proc/gilk_target runs
 * gilk_target_warn(N), which warns when N is odd; "once N" runs
 * gilk_target_once(N), which warns the first time N is odd; "call N" runs
 * gilk_target_warn(N) through a static call (whose trampoline no splice may
 * take); "bug N" runs
 * gilk_target_bug(N), which BUGs when N is 13; "evict N" runs
 * gilk_target_evict(N) (evict.c), "pad N" gilk_target_pad(N) (pad.c),
 * "flags N" gilk_target_flags(N) (flags.c), "recurse N"
 * gilk_target_recurse(N) (recurse.c), N calls deep, "kprobe 1" and "kprobe 0"
 * put and take off a kprobe at gilk_target_kpsite+8 (kpsite.c, the result
 * 0 or -errno), "optsite N" gilk_target_optsite(N) and "optkprobe N"
 * puts (1) or takes off (0) a kprobe the kernel optimizes (optsite.c),
 * "lock N" gilk_target_smplock(N) (smplock.c), "cgoto N"
 * gilk_target_cgoto(N) (cgoto.c, N 0 or 1), "nokprobe N"
 * gilk_target_nokprobe(N), which is kprobe-blacklisted, "edge N" and
 * "endbr N" the functions of edge.c, "holdlive MS" holds the next module
 * to load MS ms in its live window (holdlive.c). Reading the file gives the
 * last result. A proc file rather than a module parameter: a
 * BUG kills the writer, and a parameter write would die holding the module's
 * param lock.
 */
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/static_call.h>
#include <linux/uaccess.h>

#include "target.h"

static long last;

static noinline long gilk_target_warn(long n)
{
	if (WARN_ON(n & 1))
		return -n;
	return n + 1;
}

DEFINE_STATIC_CALL(gilk_target_sc, gilk_target_warn);

static noinline long gilk_target_once(long n)
{
	if (WARN_ON_ONCE(n & 1))
		return -n;
	return n + 1;
}

static noinline long gilk_target_bug(long n)
{
	BUG_ON(n == 13);
	return n * 2;
}

/*
 * kprobe-blacklisted: each load of the module adds an entry to the kernel's
 * blacklist and each unload frees it, which FACTS must not race.
 */
static noinline long gilk_target_nokprobe(long n)
{
	return n ^ 0x5a;
}
NOKPROBE_SYMBOL(gilk_target_nokprobe);

/*
 * Called through a pointer: a function whose address is taken keeps its
 * endbr64 under IBT (6.12 seals the others into a nop at load).
 */
static long (*endbr_fn)(long) = gilk_target_endbr;

static ssize_t target_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *off)
{
	char buf[32], op[12];
	long n;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%11s %ld", op, &n) != 2)
		return -EINVAL;
	if (!strcmp(op, "warn"))
		WRITE_ONCE(last, gilk_target_warn(n));
	else if (!strcmp(op, "call"))
		WRITE_ONCE(last, static_call(gilk_target_sc)(n));
	else if (!strcmp(op, "once"))
		WRITE_ONCE(last, gilk_target_once(n));
	else if (!strcmp(op, "bug"))
		WRITE_ONCE(last, gilk_target_bug(n));
	else if (!strcmp(op, "edge"))
		WRITE_ONCE(last, gilk_target_edge_a(n) + gilk_target_edge_b(n));
	else if (!strcmp(op, "endbr"))
		WRITE_ONCE(last, READ_ONCE(endbr_fn)(n));
	else if (!strcmp(op, "nokprobe"))
		WRITE_ONCE(last, gilk_target_nokprobe(n));
	else if (!strcmp(op, "evict"))
		WRITE_ONCE(last, gilk_target_evict(n));
	else if (!strcmp(op, "pad"))
		WRITE_ONCE(last, gilk_target_pad(n));
	else if (!strcmp(op, "flags"))
		WRITE_ONCE(last, gilk_target_flags(n));
	else if (!strcmp(op, "recurse") && n >= 0 && n <= 100)
		WRITE_ONCE(last, gilk_target_recurse(n));
	else if (!strcmp(op, "kprobe"))
		WRITE_ONCE(last, gilk_target_kprobe(n));
	else if (!strcmp(op, "optkprobe"))
		WRITE_ONCE(last, gilk_target_optkprobe(n));
	else if (!strcmp(op, "optsite"))
		WRITE_ONCE(last, gilk_target_optsite(n));
	else if (!strcmp(op, "lock"))
		WRITE_ONCE(last, gilk_target_smplock(n));
	else if (!strcmp(op, "cgoto") && (n == 0 || n == 1))
		WRITE_ONCE(last, gilk_target_cgoto(n));
	else if (!strcmp(op, "holdlive"))
		WRITE_ONCE(last, gilk_target_holdlive(n));
	else
		return -EINVAL;
	return len;
}

static ssize_t target_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *off)
{
	char buf[32];
	int n = scnprintf(buf, sizeof(buf), "%ld\n", READ_ONCE(last));

	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct proc_ops target_ops = {
	.proc_read = target_read,
	.proc_write = target_write,
	.proc_lseek = default_llseek,
};

static struct proc_dir_entry *entry;

static int __init target_init(void)
{
	int ret = park_init();

	if (ret)
		return ret;
	ret = tk_init();
	if (ret)
		goto fail_park;
	ret = slowpage_init();
	if (ret)
		goto fail_tk;
	ret = jl_init();
	if (ret)
		goto fail_slow;
	ret = holdlive_init();
	if (ret)
		goto fail_jl;
	entry = proc_create("gilk_target", 0600, NULL, &target_ops);
	if (!entry) {
		ret = -ENOMEM;
		goto fail_hold;
	}
	return 0;
fail_hold:
	holdlive_exit();
fail_jl:
	jl_exit();
fail_slow:
	slowpage_exit();
fail_tk:
	tk_exit();
fail_park:
	park_exit();
	return ret;
}

static void __exit target_exit(void)
{
	proc_remove(entry);
	holdlive_exit();
	kpsite_exit();
	optsite_exit();
	jl_exit();
	slowpage_exit();
	tk_exit();
	park_exit();
}

module_init(target_init);
module_exit(target_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Code with WARN() and BUG() sites for gilk's guest tests");
