// SPDX-License-Identifier: GPL-2.0
/*
 * BUG() and WARN() sites. Each is a ud2 the trap handler finds by address
 * in a bug table, so it cannot move to a trampoline. A splice whose region
 * starts with one (GILK_SPLICE_BUG) leaves it out of the trampoline; after
 * the instrument, gilk_entry() replays what the kernel does when that ud2
 * traps (handle_bug() in arch/x86/kernel/traps.c, report_bug() in
 * lib/bug.c): the report at the original address with the site's
 * registers, then a WARN resumes after the ud2 (the trampoline's jump) and
 * anything else dies as an invalid opcode.
 *
 * report_bug() itself cannot be called: it first checks that a ud2 is
 * still at the address, and the splice's jump is there now. So the report
 * is made here from the kernel's own parts (find_bug, bug_get_file_line,
 * __warn), with report_bug()'s rules for WARN_ONCE and the cut line.
 */
#include <linux/bug.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"
#include "verify_env.h"

static notrace enum bug_trap_type gilk_bug_report(unsigned long addr, struct pt_regs *regs)
{
	struct bug_entry *bug = gilk_ks.find_bug(addr);
	bool warning, once;
	const char *file;
	unsigned int line;

	if (!bug)
		return BUG_TRAP_TYPE_NONE;
	gilk_ks.disable_trace_on_warning();
	gilk_ks.bug_get_file_line(bug, &file, &line);
	warning = bug->flags & BUGFLAG_WARNING;
	once = bug->flags & BUGFLAG_ONCE;
	if (warning && once) {
		if (bug->flags & BUGFLAG_DONE)
			return BUG_TRAP_TYPE_WARN;
		bug->flags |= BUGFLAG_DONE;
	}
	if (!(bug->flags & BUGFLAG_NO_CUT_HERE))
		pr_warn(CUT_HERE);
	if (warning) {
		gilk_ks.warn(file, line, (void *)addr, BUG_GET_TAINT(bug), regs, NULL);
		return BUG_TRAP_TYPE_WARN;
	}
	if (file)
		pr_crit("kernel BUG at %s:%u!\n", file, line);
	else
		pr_crit("Kernel BUG at %pB [verbose debug info unavailable]\n", (void *)addr);
	return BUG_TRAP_TYPE_BUG;
}
NOKPROBE_SYMBOL(gilk_bug_report);

/* On the hit path, after the guard (hitpath.c): kprobes may not be put here. */
notrace void gilk_bug_replay(unsigned long addr, struct pt_regs *regs)
{
	/* die() returns only when a debugger stopped the oops; the CPU would
	 * then run the ud2 again, and so do we.
	 */
	for (;;) {
		if (gilk_bug_report(addr, regs) == BUG_TRAP_TYPE_WARN)
			return;
		gilk_ks.die(GILK_ARCH_BUG_DIE_MSG, regs, 0);
	}
}
NOKPROBE_SYMBOL(gilk_bug_replay);

static unsigned long entry_addr(const struct bug_entry *b)
{
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
	return (unsigned long)&b->bug_addr_disp + b->bug_addr_disp;
#else
	return b->bug_addr;
#endif
}

/* Only ud2s can be bug sites, so only they are looked up. */
int gilk_bug_check(unsigned long addr, u32 len, unsigned long replayed,
		   struct gilk_why *why)
{
	unsigned long a;

	for (a = addr; a < addr + len; a++) {
		if (a == replayed || !gilk_arch_is_bug_trap(a) || !gilk_ks.find_bug(a))
			continue;
		return gilk_refuse(why, GILK_REFUSED_BUG_SITE,
				   "%pS is a BUG/WARN site: only a splice that starts there and replays it may displace it",
				   (void *)a);
	}
	return 0;
}

int gilk_bug_kind(unsigned long addr)
{
	struct bug_entry *bug = gilk_arch_is_bug_trap(addr) ? gilk_ks.find_bug(addr) : NULL;

	if (!bug)
		return GILK_NOT_BUG;
	return (bug->flags & BUGFLAG_WARNING) ? GILK_WARN : GILK_BUG;
}

int gilk_bug_check_replayed(unsigned long site, struct gilk_why *why)
{
	if (gilk_arch_is_bug_trap(site) && gilk_ks.find_bug(site))
		return 0;
	return gilk_refuse(why, GILK_REFUSED_NOT_BUG, "%pS is not a BUG/WARN ud2: nothing to replay",
			   (void *)site);
}

void gilk_bug_facts(struct gilk_facts *f, struct gilk_fact *out,
		    unsigned long lo, unsigned long hi)
{
	const struct bug_entry *first = gilk_ks.start_bug_table;
	const struct bug_entry *last = gilk_ks.stop_bug_table;
	const struct bug_entry *b;
	struct module *mod;

	preempt_disable();	/* keeps the module's table while we read */
	mod = gilk_ks.module_address(lo);
	if (mod) {
		first = mod->bug_table;
		last = mod->bug_table + mod->num_bugs;
	}
	for (b = first; b < last; b++) {
		unsigned long a = entry_addr(b);

		if (a >= lo && a < hi)
			gilk_add_fact(f, out, a, a + 1, (b->flags & BUGFLAG_WARNING) ?
				      GILK_FACT_WARN : GILK_FACT_BUG);
	}
	preempt_enable();
}
