// SPDX-License-Identifier: GPL-2.0
/*
 * Re-validation before any write. User space planned the splice; gilk.ko
 * re-checks the facts of the range patched (what the kernel reserves there:
 * reserved.c and the fact providers; the code checker, verify.c, checks the
 * bytes), and refuses through the table of uapi/gilk_refusals.h: a
 * kind, its errno, and a sentence that says where.
 */
#include <linux/module.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

static bool in_module(unsigned long addr, struct module *mod)
{
	return mod && within_module(addr, mod);
}

/*
 * Whether a's module is live: its jump labels set up, its keys in place,
 * its init symbols gone.
 */
static bool module_live(unsigned long a)
{
	struct module *mod;
	bool live;

	preempt_disable();
	mod = gilk_ks.module_address(a);
	live = mod && gilk_module_settled(mod);
	preempt_enable();
	return live;
}

int gilk_check_place(unsigned long addr, u32 len, const struct gilk_instrument *ins,
		     struct gilk_why *why)
{
	int kind;
	u32 i;

	if (!len || len > GILK_PATCH_MAX_LEN)
		return gilk_refuse(why, GILK_REFUSED_MALFORMED,
				   "patch length %u out of range", len);
	if (!gilk_is_text(addr, &kind) || !gilk_is_text(addr + len - 1, &kind))
		return gilk_refuse(why, GILK_REFUSED_NOT_TEXT,
				   "0x%lx is not kernel or module text", addr);
	if (kind == GILK_TEXT_MODULE && !module_live(addr))
		return gilk_refuse(why, GILK_REFUSED_MODULE_NOT_LIVE,
				   "%pS is in a module still loading or going away", (void *)addr);
	for (i = 0; i < len; i++) {
		unsigned long a = addr + i;

		if (in_module(a, THIS_MODULE) || (ins && in_module(a, ins->owner)))
			return gilk_refuse(why, GILK_REFUSED_GILK_CODE,
					   "0x%lx is gilk's or the instrument's own code", a);
	}
	return 0;
}

int gilk_check_range(unsigned long addr, u32 len, const u8 *expect,
		     const struct gilk_instrument *ins, struct gilk_why *why)
{
	void *s = (void *)addr, *e = (void *)(addr + len - 1);
	u8 now[GILK_PATCH_MAX_LEN];
	struct gilk_fact found;
	struct gilk_facts q;
	int kind, ret;
	u32 i;

	ret = gilk_check_place(addr, len, ins, why);
	if (ret)
		return ret;
	gilk_is_text(addr, &kind);
	q = (struct gilk_facts){ .max = 1 };
	gilk_blacklist_facts(&q, &found, addr, addr + len);
	if (q.count)
		return gilk_refuse(why, GILK_REFUSED_BLACKLIST,
				   "%pS is kprobe-blacklisted, noinstr or entry code",
				   (void *)(unsigned long)found.start);
	for (i = 0; i < len; i++) {
		unsigned long a = addr + i;

		if (gilk_in_idle_text(a))
			return gilk_refuse(why, GILK_REFUSED_IDLE,
					   "%pS is idle code (.cpuidle.text), where RCU-tasks does not wait",
					   (void *)a);
	}
	q = (struct gilk_facts){ .max = 1 };
	gilk_lifecycle_facts(&q, &found, addr, addr + len);
	if (q.count)
		return gilk_refuse(why, found.kind == GILK_RES_EARLY_CPU ?
				   GILK_REFUSED_EARLY_CPU : GILK_REFUSED_RCU_IDLE,
				   found.kind == GILK_RES_EARLY_CPU ?
				   "%pS " GILK_ARCH_EARLY_CPU_WHY :
				   "%pS runs while RCU does not watch the CPU (idle)",
				   (void *)(unsigned long)found.start);
	/* the thunks are in the table too: a lookup, not a name per byte */
	q = (struct gilk_facts){ .max = 1 };
	gilk_own_path_facts(&q, &found, addr, addr + len);
	if (q.count)
		return gilk_refuse(why, GILK_REFUSED_GILK_PATH,
				   "%pS is on gilk's own path: its int3 divert or hit path runs it, or it is a thunk",
				   (void *)(unsigned long)found.start);
	if (gilk_jump_label_reserved(addr, len))
		return gilk_refuse(why, GILK_REFUSED_JUMP_LABEL,
				   "%pS..+%u holds a jump label site", s, len);
	if (gilk_static_reserved(kind, addr, addr + len))
		return gilk_refuse(why, GILK_REFUSED_STATIC_CALL,
				   "%pS..+%u holds a static call site", s, len);
	if (gilk_in_static_call_tramps(addr, addr + len) ||
	    (kind == GILK_TEXT_MODULE && gilk_in_module_static_call_tramp(addr, addr + len)))
		return gilk_refuse(why, GILK_REFUSED_STATIC_CALL,
				   "%pS is a static call trampoline", s);
	if (gilk_ks.ftrace_text_reserved(s, e))
		return gilk_refuse(why, GILK_REFUSED_FTRACE,
				   "%pS..+%u holds an ftrace site", s, len);
	if (gilk_alt_reserved(addr, addr + len))
		return gilk_refuse(why, GILK_REFUSED_SMP_LOCK,
				   "%pS..+%u holds an SMP alternatives site", s, len);
	if (gilk_kprobe_near(addr, len))
		return gilk_refuse(why, GILK_REFUSED_KPROBE, "%pS..+%u has a kprobe", s, len);
	q = (struct gilk_facts){ .max = 1 };
	gilk_extable_facts(&q, &found, addr, addr + len);
	if (q.count)
		return gilk_refuse(why, GILK_REFUSED_EXTABLE,
				   "%pS has an exception-table entry",
				   (void *)(unsigned long)found.start);
	if (copy_from_kernel_nofault(now, s, len) || memcmp(now, expect, len))
		return gilk_refuse(why, GILK_REFUSED_STALE,
				   "the bytes at %pS are not the ones the plan was made from", s);
	return 0;
}
