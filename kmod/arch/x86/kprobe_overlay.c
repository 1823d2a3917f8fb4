// SPDX-License-Identifier: GPL-2.0
/*
 * The bytes x86-64's kprobes hide, put back in a copy of the text for
 * gilk_text_read() (textread.c).
 */
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>

#include "gilk_internal.h"

/*
 * A kprobe's int3 (or an optimized one's jmp) hides the instruction it saved.
 * An optimized one's jmp reaches 4 bytes past its address: one that starts
 * up to 4 bytes before the window still covers its first bytes.
 */
void gilk_arch_overlay_kprobes(unsigned long addr, u8 *buf, size_t len)
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

			gilk_text_overlay(addr, buf, len, a + 1, op->optinsn.copied_insn,
				DISP32_SIZE);
		}
#endif
		if (a >= addr)
			buf[a - addr] = kp->opcode;
	}
	rcu_read_unlock();
}
