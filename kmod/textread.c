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
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>

#include "gilk_internal.h"

static void overlay(unsigned long addr, u8 *buf, size_t len,
		    unsigned long at, const u8 *orig, u32 n)
{
	unsigned long lo = max(addr, at), hi = min(addr + len, at + n);

	if (lo < hi)
		memcpy(buf + (lo - addr), orig + (lo - at), hi - lo);
}

/* Every range a splice owns is at most GILK_PATCH_MAX_LEN long. */
static void overlay_splices(unsigned long addr, u8 *buf, size_t len)
{
	const struct gilk_splice_obj *o;
	unsigned long i;
	u32 k;

	rcu_read_lock();
	xa_for_each_range(&gilk_owned, i, o, addr - GILK_PATCH_MAX_LEN, addr + len - 1) {
		overlay(addr, buf, len, o->site, o->region_orig, o->region_len);
		for (k = 0; k < min_t(u32, o->npatch, GILK_MAX_PATCHES); k++)
			overlay(addr, buf, len, o->patch[k].addr, o->patch[k].orig,
				o->patch[k].len);
	}
	rcu_read_unlock();
}

/*
 * A kprobe's int3 (or an optimized one's jmp) hides the instruction it saved.
 * An optimized one's jmp reaches 4 bytes past its address: one that starts
 * up to 4 bytes before the window still covers its first bytes.
 */
static void overlay_kprobes(unsigned long addr, u8 *buf, size_t len)
{
	unsigned long a;

	rcu_read_lock();
	for (a = addr - (JMP32_INSN_SIZE - 1); a < addr + len; a++) {
		struct kprobe *kp = gilk_ks.get_kprobe((void *)a);
		u8 first;

		/* an ftrace-based kprobe writes nothing of its own */
		if (!kp || kprobe_ftrace(kp) ||
		    copy_from_kernel_nofault(&first, (void *)a, 1))
			continue;
#ifdef CONFIG_OPTPROBES
		/* optimized: its jmp is there, the bytes it covers saved
		 * (only once the jmp is written; until then, its int3)
		 */
		if (kprobe_optimized(kp) && first == JMP32_INSN_OPCODE) {
			struct optimized_kprobe *op =
				container_of(kp, struct optimized_kprobe, kp);

			overlay(addr, buf, len, a + 1, op->optinsn.copied_insn,
				DISP32_SIZE);
		}
#endif
		if (a >= addr)
			buf[a - addr] = kp->opcode;
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
	overlay_kprobes(addr, buf, len);
	overlay_splices(addr, buf, len);
	return 0;
}
