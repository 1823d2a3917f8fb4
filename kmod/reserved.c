// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel reserves in a range, from its own predicates and tables:
 * kprobes, static call trampolines and sites, jump label sites, idle code
 * (SMP alternatives are x86's: arch/x86/alternatives.c). The re-validation
 * before a write (checks.c) and the FACTS answer (facts.c) both ask it.
 */
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/static_call_types.h>

#include "gilk_internal.h"

static bool kprobe_in(unsigned long lo, unsigned long hi)
{
	unsigned long i;
	bool found = false;

	rcu_read_lock();
	for (i = lo; i < hi && !found; i++) {
		struct kprobe *kp = gilk_ks.get_kprobe((void *)i);

		/* a gone one's module is going: it writes nothing more */
		found = kp && !kprobe_gone(kp);
	}
	rcu_read_unlock();
	return found;
}

/* A kprobe at any byte, or an optimized one whose jmp reaches into it. */
bool gilk_kprobe_near(unsigned long a, u32 len)
{
	return kprobe_in(a - GILK_ARCH_KPROBE_BEFORE, a + len);
}

bool gilk_kprobe_on(unsigned long a, u32 len)
{
	return kprobe_in(a, a + len);
}

/*
 * The trampolines static calls go through (__SCT__*): static_call_update()
 * rewrites their jmp and BUG()s unless the bytes after it are intact, and
 * static_call_text_reserved() only knows the call sites.
 */
bool gilk_in_static_call_tramps(unsigned long lo, unsigned long hi)
{
	return lo < (unsigned long)gilk_ks.static_call_text_end &&
	       hi > (unsigned long)gilk_ks.static_call_text_start;
}

/* A module's trampolines have no section bounds: known by their names. */
bool gilk_in_module_static_call_tramp(unsigned long lo, unsigned long hi)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long a;

	for (a = lo; a < hi; a++) {
		sprint_symbol_no_offset(name, a);
		if (!strncmp(name, "__SCT__", 7))
			return true;
	}
	return false;
}

/*
 * Idle code: RCU-tasks does not wait for the idle tasks, and the CPU runs
 * it without RCU watching, so a trampoline could be freed under it.
 */
bool gilk_in_idle_text(unsigned long a)
{
	return a >= (unsigned long)gilk_ks.cpuidle_text_start &&
	       a < (unsigned long)gilk_ks.cpuidle_text_end;
}

/*
 * The jump label sites of lo's module in [lo, hi), from the module's own
 * table. Never through jump_label_text_reserved(): it decodes every site it
 * walks, the core kernel's too, and BUG()s on one where a flipping key's
 * text_poke_bp() has left its int3; its callers hold jump_label_mutex, which
 * the kernel takes before text_mutex, and gilk may hold text_mutex here.
 * While the module is coming its table is still being sorted, and while it
 * goes its keys are being torn down: all of [lo, hi) counts then.
 */
static void module_jump_facts(unsigned long lo, unsigned long hi, u32 kind,
			      struct gilk_facts *f, struct gilk_fact *out)
{
	const struct jump_entry *j;
	struct module *mod;

	preempt_disable();	/* keeps the module's table while we read */
	mod = gilk_ks.module_address(lo);
	if (mod && mod->state != MODULE_STATE_LIVE) {
		gilk_add_fact(f, out, lo, hi, kind);
		mod = NULL;
	}
	for (j = mod ? mod->jump_entries : NULL;
	     mod && j < mod->jump_entries + mod->num_jump_entries; j++) {
		unsigned long a = jump_entry_code(j), e;

		if (a >= hi || a + GILK_JUMP_SITE_MAX <= lo)
			continue;
		e = a + gilk_jump_site_len(a);
		if (e > lo)
			gilk_add_fact(f, out, max(a, lo), min(e, hi), kind);
	}
	preempt_enable();
}

/* The jump label sites in [lo, hi): the index answers for the core kernel. */
void gilk_jump_facts(int text, unsigned long lo, unsigned long hi, u32 kind,
		     struct gilk_facts *f, struct gilk_fact *out)
{
	if (text == GILK_TEXT_KERNEL)
		gilk_site_facts(&gilk_jump_sites, lo, hi, kind, f, out);
	else if (text == GILK_TEXT_MODULE)
		module_jump_facts(lo, hi, kind, f, out);
}

/*
 * The static call sites of lo's module in [lo, hi), from the module's own
 * table, as module_jump_facts() reads its jump labels: the kernel's
 * static_call_text_reserved() walks every site of the core kernel before
 * the module's, for each question, and FACTS asked it over and over to
 * bisect a range. A site is a call; one in init text counts while the
 * module is coming, and then all of [lo, hi) does, as while it goes.
 */
static void module_static_facts(unsigned long lo, unsigned long hi, u32 kind,
				struct gilk_facts *f, struct gilk_fact *out)
{
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	const struct static_call_site *sc;
	struct module *mod;

	preempt_disable();	/* keeps the module's table while we read */
	mod = gilk_ks.module_address(lo);
	if (mod && mod->state != MODULE_STATE_LIVE) {
		gilk_add_fact(f, out, lo, hi, kind);
		mod = NULL;
	}
	for (sc = mod ? mod->static_call_sites : NULL;
	     mod && sc < mod->static_call_sites + mod->num_static_call_sites; sc++) {
		unsigned long a = (long)&sc->addr + sc->addr;

		if (((long)&sc->key + sc->key) & STATIC_CALL_SITE_INIT)
			continue;
		if (a < hi && a + GILK_ARCH_STATIC_CALL_LEN > lo)
			gilk_add_fact(f, out, max(a, lo), min(a + GILK_ARCH_STATIC_CALL_LEN, hi),
				      kind);
	}
	preempt_enable();
#endif
}

/* The static call sites in [lo, hi): the index answers for the core kernel. */
void gilk_static_facts(int text, unsigned long lo, unsigned long hi, u32 kind,
		       struct gilk_facts *f, struct gilk_fact *out)
{
	if (text == GILK_TEXT_KERNEL)
		gilk_site_facts(&gilk_static_sites, lo, hi, kind, f, out);
	else if (text == GILK_TEXT_MODULE)
		module_static_facts(lo, hi, kind, f, out);
}

/* Whether [lo, hi) holds a static call site. */
bool gilk_static_reserved(int text, unsigned long lo, unsigned long hi)
{
	struct gilk_fact found;
	struct gilk_facts q = { .max = 1 };

	gilk_static_facts(text, lo, hi, 0, &q, &found);
	return q.count;
}

bool gilk_jump_label_reserved(unsigned long addr, u32 len)
{
	struct gilk_facts q = { .max = 1 };
	struct gilk_fact found;
	int kind;

	gilk_is_text(addr, &kind);
	gilk_jump_facts(kind, addr, addr + len, 0, &q, &found);
	return q.count;
}
