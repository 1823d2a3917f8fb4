// SPDX-License-Identifier: GPL-2.0
/*
 * How many bytes a jump label site of x86-64 holds, for the site index
 * (siteindex.c): its jmp or nop decoded.
 */
#include <linux/irqflags.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

/*
 * A jump label site's length: 2 or 5, and 5 (the most) where a flipping key
 * has left text_poke_bp()'s int3, which arch_jump_entry_size() would BUG()
 * on. The bytes are copied with interrupts off: text_poke_bp() waits for
 * every CPU between its writes (int3, the rest, the first byte), so the copy
 * sees at most one of them under way, never the old first byte before the
 * new rest (0f plus a rel32 would decode as 2 bytes of a 5-byte site).
 */
u32 gilk_jump_site_len(unsigned long code)
{
	u8 b[GILK_JUMP_SITE_MAX];
	struct insn insn;
	unsigned long flags;
	long bad;

	local_irq_save(flags);
	bad = copy_from_kernel_nofault(b, (void *)code, sizeof(b));
	local_irq_restore(flags);
	if (bad || gilk_ks.insn_decode(&insn, b, sizeof(b), INSN_MODE_KERN) ||
	    (insn.length != 2 && insn.length != 5))
		return 5;
	return insn.length;
}
