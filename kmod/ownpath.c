// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel functions gilk's own path runs through, found at load, so that
 * no splice is ever put where gilk would meet it again on its way to handle
 * it. A CPU that meets a gilk int3 (any splice's, while the patch protocol
 * waits, and a trap-mode splice's for good) comes to gilk_int3_notify()
 * through the die notifier chain: notify_die() takes rcu_read_lock(), which
 * on a PREEMPT_RCU kernel is a call to __rcu_read_lock(). An int3 there
 * would be met again inside its own handling, without end. kprobes is not
 * exposed (its handler runs before the chain and calls nothing out), and
 * gilk cannot run before the chain, so it refuses what the chain runs.
 *
 * The walk starts at what the int3 exception runs for a kernel int3 (its
 * entry and exit tell lockdep, RCU and context tracking, which on a debug
 * kernel call out of line: ct_nmi_enter()'s trace_rcu_dyntick() met its own
 * int3 until the NMI count overflowed), at notify_die(), at the die chain's
 * notifiers that run before gilk's, and at gilk's own int3 handler and hit
 * path (gilk_entry();
 * the instrument it calls, and the fetch it runs, run inside the recursion
 * guard, where a hit is counted as nested and skipped). It follows direct calls and tail jumps,
 * decoded with the kernel's own decoder:
 *  - through code that is never spliced anyway (kprobe-blacklisted, noinstr
 *    and entry code, gilk.ko's own) as far as it goes, since that code runs
 *    in full on the path;
 *  - into a function a splice could be on: it is on gilk's path, and so is
 *    what it calls directly (one level), but no further. Deeper code runs
 *    only in conditions the int3 handler (NMI context, interrupts off) does
 *    not meet: __rcu_read_unlock() calls rcu_read_unlock_special(), which
 *    returns at once in NMI context. Following every call to its end would
 *    refuse thousands of functions (printk and the scheduler among them)
 *    reached only from branches the path never takes; make torture, which
 *    splices every function at once, is the check that nothing deeper runs.
 * The thunks are on the path too (gilk_entry() returns through the return
 * thunk, an instrument is called through a retpoline): they are added by
 * name, and the walk does not go into them.
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "gilk_internal.h"

#define OWN_PATH_DEPTH 2	/* levels of spliceable code kept */
#define OWN_PATH_MAX 4096	/* functions walked, at most */
#define OWN_PATH_NOTIFIERS 16	/* die notifiers ahead of gilk's, at most */

struct path_fn {
	unsigned long start, size;
	u8 depth;	/* spliceable levels above and including it */
	bool walked, on_path;
};

static struct path_fn *path;	/* the functions on gilk's path, by start */
static size_t n_path;

struct walk {
	struct path_fn *fn;
	size_t n;
	u8 depth;	/* of the function whose branches are being visited */
};

/* Code no splice can be on: its callees run as its caller's do. */
static bool never_spliced(unsigned long fn)
{
	struct gilk_facts q = { .max = 1 };
	struct gilk_fact found;

	if (within_module(fn, THIS_MODULE))
		return true;
	gilk_blacklist_facts(&q, &found, fn, fn + 1);
	return q.count;
}

static struct path_fn *find(struct walk *w, unsigned long start)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->fn[i].start == start)
			return &w->fn[i];
	return NULL;
}

static int visit(void *ctx, unsigned long t)
{
	struct walk *w = ctx;
	unsigned long size, off, start;
	struct path_fn *f;
	bool glue;
	u8 depth;
	int kind;

	if (!gilk_is_text(t, &kind) ||
	    !gilk_ks.kallsyms_lookup_size_offset(t, &size, &off) || !size)
		return 0;
	start = t - off;
	/* the fetch runs inside the recursion guard, as the instrument does:
	 * what it reads with may be spliced, a hit there counted as nested
	 */
	if (gilk_is_thunk(start) || start == (unsigned long)gilk_fetch_run)
		return 0;
	glue = never_spliced(start);
	depth = glue ? w->depth : w->depth + 1;
	if (depth > OWN_PATH_DEPTH)
		return 0;
	f = find(w, start);
	if (f) {
		/* met again nearer the path: walk it again from there */
		if (depth < f->depth) {
			f->depth = depth;
			f->walked = false;
		}
		f->on_path |= !glue;
		return 0;
	}
	if (w->n == OWN_PATH_MAX)
		return -E2BIG;
	w->fn[w->n++] = (struct path_fn){ start, size, depth, false, !glue };
	return 0;
}

static int add_root(struct walk *w, unsigned long addr, const char *name)
{
	w->depth = 0;
	if (!addr) {
		pr_err("gilk: cannot find %s, where gilk's own path starts\n", name);
		return -ENOENT;
	}
	return visit(w, addr);
}

/*
 * What the int3 exception runs for a kernel int3 before the die chain, and
 * after it on the way out: the kernel's text-poke handler, the NMI-like
 * entry and exit (lockdep, RCU, context tracking) and the kprobe handler.
 * Not exc_int3() itself: it also calls die() for an int3 nobody handles,
 * never one of gilk's, and die()'s printing is no path of gilk's. A kernel
 * may inline one into exc_int3() (then its callees are exc_int3()'s) or be
 * built without kprobes: the ones it lacks are left out.
 */
static int add_int3_entry(struct walk *w)
{
	static const char *const roots[] = {
		"poke_int3_handler", "irqentry_nmi_enter", "irqentry_nmi_exit",
		"kprobe_int3_handler",
	};
	unsigned long addr;
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(roots) && !ret; i++) {
		addr = gilk_ks.kallsyms_lookup_name(roots[i]);
		if (addr)
			ret = add_root(w, addr, roots[i]);
	}
	return ret;
}

/* Visits every function found, a deeper level's after the one above. */
static int walk_all(struct walk *w)
{
	size_t i;
	bool again = true;
	int ret;

	while (again) {
		again = false;
		for (i = 0; i < w->n; i++) {
			struct path_fn *f = &w->fn[i];

			if (f->walked || f->depth >= OWN_PATH_DEPTH)
				continue;
			f->walked = true;
			again = true;
			w->depth = f->depth;
			ret = gilk_leaving_targets(f->start, f->start + f->size, visit, w);
			if (ret)
				return ret;
			cond_resched();
		}
	}
	return 0;
}

/* Every core kernel thunk, by name (checks.c), as a function on the path. */
static int add_thunk(GILK_EACH_SYMBOL_PARAMS)
{
	struct walk *w = ctx;
	unsigned long size, off;
	struct path_fn *f;

	/* the end marker names whatever follows the thunks' section */
	if (!gilk_thunk_name(name) || !strcmp(name, "__indirect_thunk_end") ||
	    addr < (unsigned long)gilk_ks.stext ||
	    addr >= (unsigned long)gilk_ks.etext ||
	    !gilk_ks.kallsyms_lookup_size_offset(addr, &size, &off) || off || !size)
		return 0;
	f = find(w, addr);
	if (f) {
		f->on_path = true;
		return 0;
	}
	if (w->n == OWN_PATH_MAX)
		return -E2BIG;
	/* walked: a thunk's jumps lead nowhere gilk must refuse */
	w->fn[w->n++] = (struct path_fn){ addr, size, 0, true, true };
	return 0;
}

/*
 * The die chain's notifiers that come before gilk's: hw_breakpoint's asks
 * to be first, at gilk's priority, and was registered at boot. Each runs
 * on every int3 before gilk's divert does.
 */
static int add_notifiers_before(struct walk *w)
{
	unsigned long fn[OWN_PATH_NOTIFIERS];
	struct atomic_notifier_head *chain;
	struct notifier_block *nb;
	unsigned int n = 0, i;
	int ret = 0;

	chain = (void *)gilk_ks.kallsyms_lookup_name("die_chain");
	if (!chain) {
		pr_err("gilk: cannot find die_chain, whose notifiers run before gilk's\n");
		return -ENOENT;
	}
	/* taken under RCU, visited after: a visit may sleep (kprobe_mutex) */
	rcu_read_lock();
	for (nb = rcu_dereference(chain->head); nb && nb != &gilk_int3_nb;
	     nb = rcu_dereference(nb->next)) {
		if (n == OWN_PATH_NOTIFIERS) {
			ret = -E2BIG;
			break;
		}
		fn[n++] = (unsigned long)nb->notifier_call;
	}
	rcu_read_unlock();
	if (ret) {
		pr_err("gilk: more than %d die notifiers run before gilk's\n", OWN_PATH_NOTIFIERS);
		return ret;
	}
	for (i = 0; i < n && !ret; i++) {
		w->depth = 0;
		ret = visit(w, fn[i]);
	}
	return ret;
}

static int cmp_start(const void *a, const void *b)
{
	const struct path_fn *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int gilk_own_path_init(void)
{
	struct walk w = { .n = 0 };
	size_t i;
	int ret;

	w.fn = kvmalloc_array(OWN_PATH_MAX, sizeof(*w.fn), GFP_KERNEL);
	if (!w.fn)
		return -ENOMEM;
	ret = add_int3_entry(&w);
	if (!ret)
		ret = add_root(&w, gilk_ks.kallsyms_lookup_name("notify_die"), "notify_die");
	if (!ret)
		ret = add_root(&w, (unsigned long)gilk_int3_notify, "gilk's int3 handler");
	if (!ret)
		ret = add_root(&w, (unsigned long)gilk_entry, "gilk_entry");
	if (!ret)
		ret = add_notifiers_before(&w);
	if (!ret)
		ret = walk_all(&w);
	if (!ret)
		ret = gilk_ks.kallsyms_on_each_symbol(add_thunk, &w);
	if (ret) {
		if (ret == -E2BIG)
			pr_err("gilk: gilk's own path runs through more than %d functions\n",
			       OWN_PATH_MAX);
		kvfree(w.fn);
		return ret;
	}
	for (i = 0; i < w.n; i++)
		if (w.fn[i].on_path && !within_module(w.fn[i].start, THIS_MODULE))
			w.fn[n_path++] = w.fn[i];
	sort(w.fn, n_path, sizeof(*w.fn), cmp_start, NULL);
	path = w.fn;
	pr_info("gilk: %zu kernel functions are on gilk's own path: no splice goes there\n",
		n_path);
	return 0;
}

void gilk_own_path_exit(void)
{
	kvfree(path);
	path = NULL;
	n_path = 0;
}

/* The bytes of functions on gilk's path in [lo, hi), as GILK_RES_OWN_PATH. */
void gilk_own_path_facts(struct gilk_facts *f, struct gilk_fact *out,
			 unsigned long lo, unsigned long hi)
{
	size_t a = 0, b = n_path;

	while (a < b) {		/* the first that ends above lo */
		size_t mid = a + (b - a) / 2;

		if (path[mid].start + path[mid].size <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < n_path && path[a].start < hi; a++)
		gilk_add_fact(f, out, max(lo, path[a].start),
			      min(hi, path[a].start + path[a].size), GILK_RES_OWN_PATH);
}
