// SPDX-License-Identifier: GPL-2.0
/*
 * Re-validation before any write. User space planned the splice; gilk.ko
 * re-checks the facts of the range patched (the code checker, verify.c,
 * checks the bytes), and refuses through the table of uapi/gilk_refusals.h: a
 * kind, its errno, and a sentence that says where.
 */
#include <linux/extable.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

bool gilk_is_text(unsigned long addr, int *kind)
{
	if (gilk_ks.core_kernel_text(addr)) {
		*kind = GILK_TEXT_KERNEL;
		return true;
	}
	if (gilk_ks.is_module_text_address(addr)) {
		*kind = GILK_TEXT_MODULE;
		return true;
	}
	*kind = GILK_TEXT_NONE;
	return false;
}

static bool in_module(unsigned long addr, struct module *mod)
{
	return mod && within_module(addr, mod);
}

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
	return kprobe_in(a - 4, a + len);
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
static bool in_static_call_tramps(unsigned long lo, unsigned long hi)
{
	return lo < (unsigned long)gilk_ks.static_call_text_end &&
	       hi > (unsigned long)gilk_ks.static_call_text_start;
}

/* A module's trampolines have no section bounds: known by their names. */
static bool in_module_static_call_tramp(unsigned long lo, unsigned long hi)
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
 * alternatives_text_reserved() walks lists text_mutex guards, and unlike
 * the other reservation predicates takes its end as exclusive.
 */
static int alt_reserved(unsigned long lo, unsigned long hi)
{
	int ret;

	mutex_lock(gilk_ks.text_mutex);
	ret = gilk_ks.alternatives_text_reserved((void *)lo, (void *)hi);
	mutex_unlock(gilk_ks.text_mutex);
	return ret;
}

/*
 * Idle code: RCU-tasks does not wait for the idle tasks, and the CPU runs
 * it without RCU watching, so a trampoline could be freed under it.
 */
static bool in_idle_text(unsigned long a)
{
	return a >= (unsigned long)gilk_ks.cpuidle_text_start &&
	       a < (unsigned long)gilk_ks.cpuidle_text_end;
}

/*
 * gilk_entry() returns through the return thunk and the trampoline may
 * call through a retpoline: a splice there would be hit from inside gilk,
 * outside its recursion guard. Known by their section where the kernel
 * bounds it, and by name (the SRSO aliases live elsewhere; 6.12 moves them).
 */
bool gilk_thunk_name(const char *name)
{
	static const char *const thunks[] = {
		"__x86_indirect_", "__x86_return_", "srso_", "zen_untrain_ret",
		"retbleed_", "entry_untrain_ret", "entry_ibpb", "call_depth_",
		"its_return_thunk", "__indirect_thunk_",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(thunks); i++)
		if (!strncmp(name, thunks[i], strlen(thunks[i])))
			return true;
	return false;
}

bool gilk_is_thunk(unsigned long a)
{
	char name[KSYM_SYMBOL_LEN];

	if (a >= (unsigned long)gilk_ks.indirect_thunk_start &&
	    a < (unsigned long)gilk_ks.indirect_thunk_end)
		return true;
	sprint_symbol_no_offset(name, a);
	return gilk_thunk_name(name);
}

static int p_static(unsigned long lo, unsigned long hi)
{
	return gilk_ks.static_call_text_reserved((void *)lo, (void *)(hi - 1));
}

static int p_ftrace(unsigned long lo, unsigned long hi)
{
	return gilk_ks.ftrace_text_reserved((void *)lo, (void *)(hi - 1));
}

static int p_alt(unsigned long lo, unsigned long hi)
{
	return alt_reserved(lo, hi);
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

/* Whether a's module is live: its jump labels set up, its keys in place. */
static bool module_live(unsigned long a)
{
	struct module *mod;
	bool live;

	preempt_disable();
	mod = gilk_ks.module_address(a);
	live = mod && mod->state == MODULE_STATE_LIVE;
	preempt_enable();
	return live;
}

/* The jump label sites in [lo, hi): the index answers for the core kernel. */
static void jump_facts(int text, unsigned long lo, unsigned long hi, u32 kind,
		       struct gilk_facts *f, struct gilk_fact *out)
{
	if (text == GILK_TEXT_KERNEL)
		gilk_site_facts(&gilk_jump_sites, lo, hi, kind, f, out);
	else if (text == GILK_TEXT_MODULE)
		module_jump_facts(lo, hi, kind, f, out);
}

/*
 * Whether [lo, hi) holds a static call site: in core kernel text the index
 * answers (the predicate walks all of the kernel's sites).
 */
static bool static_reserved(int text, unsigned long lo, unsigned long hi)
{
	struct gilk_fact found;
	struct gilk_facts q = { .max = 1 };

	if (text != GILK_TEXT_KERNEL)
		return p_static(lo, hi);
	gilk_site_facts(&gilk_static_sites, lo, hi, 0, &q, &found);
	return q.count;
}

bool gilk_jump_label_reserved(unsigned long addr, u32 len)
{
	struct gilk_facts q = { .max = 1 };
	struct gilk_fact found;
	int kind;

	gilk_is_text(addr, &kind);
	jump_facts(kind, addr, addr + len, 0, &q, &found);
	return q.count;
}

int gilk_check_range(unsigned long addr, u32 len, const u8 *expect,
		     const struct gilk_instrument *ins, struct gilk_why *why)
{
	void *s = (void *)addr, *e = (void *)(addr + len - 1);
	u8 now[GILK_PATCH_MAX_LEN];
	struct gilk_fact found;
	struct gilk_facts q;
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
				   "%pS is in a module still loading or going away", s);
	for (i = 0; i < len; i++) {
		unsigned long a = addr + i;

		if (in_module(a, THIS_MODULE) || (ins && in_module(a, ins->owner)))
			return gilk_refuse(why, GILK_REFUSED_GILK_CODE,
					   "0x%lx is gilk's or the instrument's own code", a);
	}
	q = (struct gilk_facts){ .max = 1 };
	gilk_blacklist_facts(&q, &found, addr, addr + len);
	if (q.count)
		return gilk_refuse(why, GILK_REFUSED_BLACKLIST,
				   "%pS is kprobe-blacklisted, noinstr or entry code",
				   (void *)(unsigned long)found.start);
	for (i = 0; i < len; i++) {
		unsigned long a = addr + i;

		if (in_idle_text(a))
			return gilk_refuse(why, GILK_REFUSED_IDLE,
					   "%pS is idle code (.cpuidle.text), where RCU-tasks does not wait",
					   (void *)a);
	}
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
	if (static_reserved(kind, addr, addr + len))
		return gilk_refuse(why, GILK_REFUSED_STATIC_CALL,
				   "%pS..+%u holds a static call site", s, len);
	if (in_static_call_tramps(addr, addr + len) ||
	    (kind == GILK_TEXT_MODULE && in_module_static_call_tramp(addr, addr + len)))
		return gilk_refuse(why, GILK_REFUSED_STATIC_CALL,
				   "%pS is a static call trampoline", s);
	if (gilk_ks.ftrace_text_reserved(s, e))
		return gilk_refuse(why, GILK_REFUSED_FTRACE,
				   "%pS..+%u holds an ftrace site", s, len);
	if (alt_reserved(addr, addr + len))
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

/* In core kernel text the index answers; elsewhere, bisection. */
static void site_facts(const struct gilk_site_index *idx, int text,
		       unsigned long lo, unsigned long hi, u32 kind,
		       int (*pred)(unsigned long, unsigned long),
		       struct gilk_facts *f, struct gilk_fact *out)
{
	if (text == GILK_TEXT_KERNEL)
		gilk_site_facts(idx, lo, hi, kind, f, out);
	else
		bisect(lo, hi, kind, pred, f, out);
}

void gilk_add_fact(struct gilk_facts *f, struct gilk_fact *out,
		   unsigned long lo, unsigned long hi, u32 kind)
{
	if (f->count && f->count <= f->max && out[f->count - 1].kind == kind &&
	    out[f->count - 1].end == lo) {
		out[f->count - 1].end = hi;
		return;
	}
	if (f->count < f->max)
		out[f->count] = (struct gilk_fact){ lo, hi, kind, 0 };
	f->count++;
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
	f->text = kind;
	f->count = 0;
	if (kind == GILK_TEXT_NONE)
		return 0;
	hi = clamp_to_text(lo, hi, kind);
	jump_facts(kind, lo, hi, GILK_RES_JUMP_LABEL, f, out);
	site_facts(&gilk_static_sites, kind, lo, hi, GILK_RES_STATIC_CALL, p_static, f, out);
	if (in_static_call_tramps(lo, hi))
		gilk_add_fact(f, out, max(lo, (unsigned long)gilk_ks.static_call_text_start),
			      min(hi, (unsigned long)gilk_ks.static_call_text_end),
			      GILK_RES_STATIC_CALL);
	bisect(lo, hi, GILK_RES_FTRACE, p_ftrace, f, out);
	bisect(lo, hi, GILK_RES_SMP_LOCK, p_alt, f, out);
	gilk_blacklist_facts(f, out, lo, hi);
	gilk_own_path_facts(f, out, lo, hi);
	gilk_extable_facts(f, out, lo, hi);
	gilk_kprobe_facts(f, out, lo, hi);
	add_targets(f, out, lo, hi);
	gilk_bug_facts(f, out, lo, hi);
	return 0;
}
