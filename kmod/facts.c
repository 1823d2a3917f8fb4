// SPDX-License-Identifier: GPL-2.0
/*
 * FACTS: what gilk.ko knows of a range of text that user space cannot read
 * from it (reserved sites, edges no decoder sees, BUG/WARN sites), from
 * every provider (reserved.c, siteindex.c, rangefacts.c, ownpath.c,
 * coldparts.c, bug.c); and the hidden edges the code checker asks about.
 * Above the providers, which add to the answer with gilk_add_fact().
 */
#include <linux/jump_label.h>
#include <linux/module.h>

#include "gilk_internal.h"

static int p_ftrace(unsigned long lo, unsigned long hi)
{
	return gilk_ks.ftrace_text_reserved((void *)lo, (void *)(hi - 1));
}

static int p_alt(unsigned long lo, unsigned long hi)
{
	return gilk_alt_reserved(lo, hi);
}

/* Reserved ranges inside [lo, hi) of one kind, found by bisection: the
 * kernel's predicates answer for a range, and sites are sparse.
 */
static void bisect(unsigned long lo, unsigned long hi, u32 kind,
		   int (*pred)(unsigned long, unsigned long),
		   struct gilk_facts *f, struct gilk_fact *out)
{
	if (lo >= hi || !pred(lo, hi))
		return;
	if (hi - lo == 1) {
		gilk_add_fact(f, out, lo, hi, kind);
		return;
	}
	bisect(lo, lo + (hi - lo) / 2, kind, pred, f, out);
	bisect(lo + (hi - lo) / 2, hi, kind, pred, f, out);
}

/*
 * Edges no decoding of the range and its neighbours sees, into [lo, hi):
 * jump-label targets, the landings of exception fixups and the branches
 * between a function and the compiler's .cold parts (both ways), wherever
 * they come from.
 */
static void add_targets(struct gilk_facts *f, struct gilk_fact *out,
			unsigned long lo, unsigned long hi)
{
	const struct jump_entry *j;
	struct module *mod;

	/* the core kernel's by the index, a module's (a few) one by one */
	preempt_disable();	/* keeps the module's tables while we read */
	mod = gilk_ks.module_address(lo);
	for (j = mod ? mod->jump_entries : NULL;
	     mod && j < mod->jump_entries + mod->num_jump_entries; j++) {
		unsigned long t = jump_entry_target(j);

		if (t >= lo && t < hi)
			gilk_add_fact(f, out, t, t + 1, GILK_FACT_TARGET);
	}
	preempt_enable();
	if (!mod)
		gilk_site_facts(&gilk_jump_targets, lo, hi, GILK_FACT_TARGET, f, out);
	gilk_fixup_facts(f, out, lo, hi);
	gilk_cold_facts(f, out, lo, hi);
}

bool gilk_hidden_edge(unsigned long lo, unsigned long hi)
{
	struct gilk_facts q = { .max = 1 };
	struct gilk_fact found;

	if (lo < hi)
		add_targets(&q, &found, lo, hi);
	return q.count;
}

/* Whether a is text of the same kind and module as lo's. */
static bool same_text(unsigned long a, int kind, const struct module *mod)
{
	const struct module *m;
	int k;

	if (!gilk_is_text(a, &k) || k != kind)
		return false;
	preempt_disable();
	m = gilk_ks.module_address(a);
	preempt_enable();
	return m == mod;
}

/*
 * The end of the text lo is in, or hi if sooner: the kernel's reservation
 * predicates WARN when a range runs from one module's text into another
 * (or out of it), which panics under panic_on_warn. Text is one run from
 * lo on, so a bisection finds where it stops.
 */
static unsigned long clamp_to_text(unsigned long lo, unsigned long hi, int kind)
{
	const struct module *mod;
	unsigned long ok = lo + 1, bad = hi;

	preempt_disable();
	mod = gilk_ks.module_address(lo);
	preempt_enable();
	if (same_text(hi - 1, kind, mod))
		return hi;
	while (bad - ok > 1) {
		unsigned long mid = ok + (bad - ok) / 2;

		if (same_text(mid - 1, kind, mod))
			ok = mid;
		else
			bad = mid;
	}
	return ok;
}

int gilk_facts(struct gilk_facts *f, struct gilk_fact *out)
{
	unsigned long lo = f->start, hi = f->end;
	int kind;

	if (hi <= lo || hi - lo > 1 << 20)
		return -EINVAL;
	gilk_is_text(lo, &kind);
	/*
	 * The neighbourhood of the kernel's first functions starts below its
	 * text: the answer is for the text in it, not none.
	 */
	if (kind == GILK_TEXT_NONE && lo < (unsigned long)gilk_ks.stext &&
	    hi > (unsigned long)gilk_ks.stext) {
		lo = (unsigned long)gilk_ks.stext;
		gilk_is_text(lo, &kind);
	}
	f->text = kind;
	f->count = 0;
	if (kind == GILK_TEXT_NONE)
		return 0;
	hi = clamp_to_text(lo, hi, kind);
	gilk_jump_facts(kind, lo, hi, GILK_RES_JUMP_LABEL, f, out);
	gilk_static_facts(kind, lo, hi, GILK_RES_STATIC_CALL, f, out);
	if (gilk_in_static_call_tramps(lo, hi))
		gilk_add_fact(f, out, max(lo, (unsigned long)gilk_ks.static_call_text_start),
			      min(hi, (unsigned long)gilk_ks.static_call_text_end),
			      GILK_RES_STATIC_CALL);
	bisect(lo, hi, GILK_RES_FTRACE, p_ftrace, f, out);
	bisect(lo, hi, GILK_RES_SMP_LOCK, p_alt, f, out);
	gilk_blacklist_facts(f, out, lo, hi);
	gilk_own_path_facts(f, out, lo, hi);
	/* hi is clamped to lo's module: all of it is gilk.ko's, or none */
	if (kind == GILK_TEXT_MODULE && within_module(lo, THIS_MODULE))
		gilk_add_fact(f, out, lo, hi, GILK_RES_GILK_CODE);
	gilk_lifecycle_facts(f, out, lo, hi);
	gilk_extable_facts(f, out, lo, hi);
	gilk_kprobe_facts(f, out, lo, hi);
	add_targets(f, out, lo, hi);
	gilk_bug_facts(f, out, lo, hi);
	return 0;
}
