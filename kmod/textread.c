// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel text as it was before gilk's splices and kprobes changed it: what
 * the code checker decodes a function from (a jmp and int3 fill over another
 * splice's region, or a kprobe's int3 in the middle of an instruction, would
 * otherwise put it off the instruction boundaries). The checker reads it
 * under gilk_lock; FACTS (.cold parts and their namesakes, tables, in
 * coldparts.c) and gilk.ko's load without: a splice object stays readable
 * under rcu_read_lock() until freed after a grace period, and one coming,
 * going or being claimed again as it is read may show a mix of bytes.
 * FACTS only advises the planner; the checker decides under the lock.
 */
#include <linux/rcupdate.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

/* Every range a splice owns is at most GILK_PATCH_MAX_LEN long. */
static void overlay_splices(unsigned long addr, u8 *buf, size_t len)
{
	const struct gilk_splice_obj *o;
	unsigned long i;
	u32 k;

	rcu_read_lock();
	xa_for_each_range(&gilk_owned, i, o, addr - GILK_PATCH_MAX_LEN, addr + len - 1) {
		gilk_text_overlay(addr, buf, len, o->site, o->region_orig, o->region_len);
		for (k = 0; k < min_t(u32, o->npatch, GILK_MAX_PATCHES); k++)
			gilk_text_overlay(addr, buf, len, o->patch[k].addr, o->patch[k].orig,
					  o->patch[k].len);
	}
	rcu_read_unlock();
}

int gilk_text_read(unsigned long addr, void *buf, size_t len)
{
	if (copy_from_kernel_nofault(buf, (void *)addr, len))
		return -EFAULT;
	/*
	 * Kprobes first: one in a splice's bytes came after the splice and
	 * saved gilk's own jmp, and what the splice holds is what was there
	 * before either.
	 */
	gilk_arch_overlay_kprobes(addr, buf, len);
	overlay_splices(addr, buf, len);
	return 0;
}
