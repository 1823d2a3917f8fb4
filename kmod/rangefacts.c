// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe blacklist, the exception tables and the kprobes, asked about a
 * whole range at once. The kernel's predicates (within_kprobe_blacklist(),
 * search_exception_tables(), get_kprobe()) answer for one address each; FACTS
 * asked them byte by byte over a function and its neighbours, and the
 * blacklist's answer is a walk of its whole list plus a symbol lookup, so
 * planning one function live took most of a minute. Here the blacklist is
 * one pass over its list, an exception table a binary search for the
 * range's first entry, and the kprobes one hash lookup per byte (the table's
 * size is private to kprobes.c). The answers are the kernel predicates',
 * byte for byte: tests/guest compares them with a per-byte reference.
 */
#include <linux/extable.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rculist.h>

#include "gilk_internal.h"

/*
 * within_kprobe_blacklist(a), with kprobe_mutex held: a is in __kprobes text, in a listed range,
 * or in a suffixed symbol (foo.cold, foo.isra.0) whose base symbol foo is.
 */
static bool listed(unsigned long a)
{
	struct kprobe_blacklist_entry *ent;

	if (a >= (unsigned long)gilk_ks.kprobes_text_start &&
	    a < (unsigned long)gilk_ks.kprobes_text_end)
		return true;
	list_for_each_entry(ent, gilk_ks.kprobe_blacklist, list)
		if (a >= ent->start_addr && a < ent->end_addr)
			return true;
	return false;
}

static void add_clipped(struct gilk_facts *f, struct gilk_fact *out,
			unsigned long s, unsigned long e, unsigned long lo,
			unsigned long hi, u32 kind)
{
	s = max(s, lo);
	e = min(e, hi);
	if (s < e)
		gilk_add_fact(f, out, s, e, kind);
}

/*
 * Blacklisted bytes of a suffixed symbol (foo.cold, foo.isra.0) in [lo, hi)
 * because its base symbol foo is: within_kprobe_blacklist()'s second look.
 */
static void add_suffixed(struct gilk_facts *f, struct gilk_fact *out,
			 unsigned long lo, unsigned long hi)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long a = lo, size, off, base;
	char *dot;

	while (a < hi && gilk_ks.kallsyms_lookup_size_offset(a, &size, &off) && size) {
		sprint_symbol_no_offset(name, a);
		name[strcspn(name, " ")] = 0;	/* " [module]" */
		dot = strchr(name, '.');
		if (dot) {
			*dot = 0;
			base = gilk_ks.kallsyms_lookup_name(name);
			if (base && listed(base))
				add_clipped(f, out, a - off, a - off + size, lo, hi,
					    GILK_RES_BLACKLIST);
		}
		a = a - off + size;
	}
}

void gilk_blacklist_facts(struct gilk_facts *f, struct gilk_fact *out,
			  unsigned long lo, unsigned long hi)
{
	struct kprobe_blacklist_entry *ent;

	add_clipped(f, out, (unsigned long)gilk_ks.kprobes_text_start,
		    (unsigned long)gilk_ks.kprobes_text_end, lo, hi, GILK_RES_BLACKLIST);
	/*
	 * A module's entries are freed with a plain kfree() when it goes,
	 * under kprobe_mutex (kprobes_module_callback()): RCU does not keep
	 * them. The caller holds neither kprobe_mutex nor text_mutex.
	 */
	mutex_lock(gilk_ks.kprobe_mutex);
	list_for_each_entry(ent, gilk_ks.kprobe_blacklist, list)
		add_clipped(f, out, ent->start_addr, ent->end_addr, lo, hi,
			    GILK_RES_BLACKLIST);
	add_suffixed(f, out, lo, hi);
	mutex_unlock(gilk_ks.kprobe_mutex);
}

static unsigned long ex_insn(const struct exception_table_entry *e)
{
	return (unsigned long)&e->insn + e->insn;
}

static unsigned long ex_fixup(const struct exception_table_entry *e)
{
	return (unsigned long)&e->fixup + e->fixup;
}

/*
 * The first entry of lo's exception table (the core kernel's, or its
 * module's) whose instruction is at or above lo, and in *last the table's
 * end. Both tables are sorted by instruction. Preemption off.
 */
static const struct exception_table_entry *ex_from(unsigned long lo,
						   const struct exception_table_entry **last)
{
	const struct exception_table_entry *first = gilk_ks.start_ex_table;
	struct module *mod = gilk_ks.module_address(lo);
	const struct exception_table_entry *hi;

	*last = gilk_ks.stop_ex_table;
	if (mod) {
		first = mod->extable;
		*last = mod->extable + mod->num_exentries;
	}
	hi = *last;
	while (first < hi) {
		const struct exception_table_entry *mid = first + (hi - first) / 2;

		if (ex_insn(mid) < lo)
			first = mid + 1;
		else
			hi = mid;
	}
	return first;
}

/*
 * The exception-table entries whose instructions lie in [lo, hi), each as a
 * one-byte GILK_RES_EXTABLE fact (search_exception_tables() answers for its
 * first byte). Both tables are sorted by instruction (the core kernel's at
 * build time, a module's at load).
 */
void gilk_extable_facts(struct gilk_facts *f, struct gilk_fact *out,
			unsigned long lo, unsigned long hi)
{
	const struct exception_table_entry *e, *last;

	preempt_disable();	/* keeps a module's table while we read */
	for (e = ex_from(lo, &last); e < last && ex_insn(e) < hi; e++)
		gilk_add_fact(f, out, ex_insn(e), ex_insn(e) + 1, GILK_RES_EXTABLE);
	preempt_enable();
}

/*
 * The fixup landings in [lo, hi), of any instruction: a fixup may lie in
 * another function than its instruction. The core kernel's by the index
 * (siteindex.c), a module's entries one by one.
 */
void gilk_fixup_facts(struct gilk_facts *f, struct gilk_fact *out,
		      unsigned long lo, unsigned long hi)
{
	const struct exception_table_entry *e;
	struct module *mod;

	preempt_disable();	/* keeps a module's table while we read */
	mod = gilk_ks.module_address(lo);
	for (e = mod ? mod->extable : NULL; mod && e < mod->extable + mod->num_exentries; e++)
		if (ex_fixup(e) >= lo && ex_fixup(e) < hi)
			gilk_add_fact(f, out, ex_fixup(e), ex_fixup(e) + 1, GILK_FACT_TARGET);
	preempt_enable();
	if (!mod)
		gilk_site_facts(&gilk_fixup_targets, lo, hi, GILK_FACT_TARGET, f, out);
}

/*
 * What a kprobe writes covers GILK_ARCH_KPROBE_SPAN bytes from its address:
 * a byte is a kprobe fact when a live kprobe sits on it or on one of the
 * GILK_ARCH_KPROBE_BEFORE before it.
 */
void gilk_kprobe_facts(struct gilk_facts *f, struct gilk_fact *out,
		       unsigned long lo, unsigned long hi)
{
	unsigned long a;

	rcu_read_lock();
	for (a = lo - GILK_ARCH_KPROBE_BEFORE; a < hi; a++) {
		struct kprobe *kp = gilk_ks.get_kprobe((void *)a);

		/* a gone one's module is going: it writes nothing more */
		if (kp && !kprobe_gone(kp))
			add_clipped(f, out, a, a + GILK_ARCH_KPROBE_SPAN, lo, hi, GILK_RES_KPROBE);
		if (!((a - lo) & 4095)) {	/* up to 1 MiB */
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
	}
	rcu_read_unlock();
}
