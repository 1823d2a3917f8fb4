// SPDX-License-Identifier: GPL-2.0
/*
 * A jump label of the module's own, flipped on request, for the race between
 * a static key's text_poke_bp() and gilk's questions about module text: while
 * a key flips, its site holds an int3 for a while, and the kernel's
 * jump_label_text_reserved() decodes every site it walks and BUG()s on one
 * that is neither 2 nor 5 bytes long (CI hit it at the first packet's flow
 * hash, with gilk asking about e1000). /proc/gilk_target_jl: reading gives
 * the site's address; writing "flip N" turns the key on and off N times.
 */
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

#include "target.h"

static DEFINE_STATIC_KEY_FALSE(jl_key);

noinline long gilk_target_jl(long n)
{
	if (static_branch_unlikely(&jl_key))
		return 3 * n + 1;
	return n + 1;
}

/* The site's address: the module's jump entries are its own to read. */
static unsigned long jl_site(void)
{
	struct jump_entry *j = THIS_MODULE->jump_entries;
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_jump_entries; i++)
		if (jump_entry_key(&j[i]) == &jl_key.key)
			return jump_entry_code(&j[i]);
	return 0;
}

static ssize_t jl_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *off)
{
	char buf[32];
	unsigned long n, i;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "flip %lu", &n) != 1 || n > 100000)
		return -EINVAL;
	for (i = 0; i < n && !fatal_signal_pending(current); i++) {
		static_branch_enable(&jl_key);
		static_branch_disable(&jl_key);
		cond_resched();
	}
	return len;
}

static ssize_t jl_read(struct file *file, char __user *ubuf, size_t len,
		       loff_t *off)
{
	char buf[32];
	int n = scnprintf(buf, sizeof(buf), "%lx\n", jl_site());

	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct proc_ops jl_ops = {
	.proc_read = jl_read,
	.proc_write = jl_write,
	.proc_lseek = default_llseek,
};

static struct proc_dir_entry *entry;

int jl_init(void)
{
	entry = proc_create("gilk_target_jl", 0600, NULL, &jl_ops);
	return entry ? 0 : -ENOMEM;
}

void jl_exit(void)
{
	proc_remove(entry);
}
