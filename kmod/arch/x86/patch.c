// SPDX-License-Identifier: GPL-2.0
/*
 * The patch protocol, for a whole batch of splices at once (as the kernel's
 * own text_poke_bp_batch() does for its sites). gilk_patch_in() runs it
 * forward, in this order:
 *  0. under the text lock (kprobe_mutex, then text_mutex), the bytes each
 *     splice will write over are checked to be still the ones its request
 *     was checked against, with no kprobe come since;
 *  1. the batch's int3 diverts are armed; dead patches (bounce slots in
 *     padding nothing executes) are written directly; int3 is written at
 *     each live patch's first byte and at each trap-mode site; all CPUs
 *     are synced once. From then on the DIE_INT3 notifier sends any CPU
 *     that hits one to its divert (the trampoline, which does what the
 *     original bytes did);
 *  2. synchronize_rcu_tasks(), holding text_mutex and gilk_lock no more:
 *     no task is still inside the old bytes (a task preempted there has
 *     not yet made a voluntary context switch);
 *  3. under text_mutex again, the int3s and the bytes they wait over are
 *     checked to be still all there is (another patcher may have come):
 *     if not, the batch is backed out, and a second grace period passes
 *     before the caller frees anything;
 *  4. the rest of each patch is written, one sync; each first byte, and
 *     the rest of each trap-mode region as int3, one sync. After that sync
 *     no CPU can still be in the int3 handler for them, and the diverts
 *     are disarmed.
 * gilk_patch_out() runs it back, for splices the caller found still its
 * own: int3, the original rest, the original first byte, a sync after each
 * step, first at the sites; a grace period; then at the evicted neighbours
 * that hold bounce slots (a task may sit between a site's jmp rel8 and the
 * slot's jmp until the first grace period is over); a grace period; then
 * the dead slots get their bytes back.
 *
 * The text lock is held from each check of what is at an address to the
 * last write there; text_mutex never across a wait, and neither is
 * gilk_lock: splices made at the same time claim while one waits.
 *
 * Why kprobe_mutex: a kprobe copies the instruction it will replay under
 * text_mutex, but arms its int3 only after it dropped and took text_mutex
 * again. Between the two, gilk could find no kprobe, write, and then have
 * the int3 written into its jmp, with a copy of bytes that are gone. And
 * while gilk's int3 waits for its grace period, the kernel would let
 * kprobes into the rest of the region, even into the middle of its
 * instructions: its decoder steps over a foreign int3 as a one-byte
 * instruction. So kprobe_mutex is held from the int3s through the wait to
 * the last write, as the kernel's kprobe optimizer holds it across its own
 * wait; step 3 still catches any other patcher.
 *
 * The diverts are sorted arrays, one per batch (or per trap-mode splice,
 * whose int3 stays), on a list the notifier reads under RCU: its cost per
 * int3 is a binary search per armed array, whatever the batch's size.
 */
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

static LIST_HEAD(armed);	/* of gilk_traps; read under RCU */
static DEFINE_SPINLOCK(armed_lock);

static const u8 int3 = 0xcc;

struct gilk_traps *gilk_traps_alloc(unsigned int n)
{
	struct gilk_traps *t;
	size_t size = struct_size(t, trap, n);

	/* a few: never fails, so a revert always has its diverts */
	t = n <= GILK_TRAPS_NOFAIL ? kzalloc(size, GFP_KERNEL | __GFP_NOFAIL) :
				     kvzalloc(size, GFP_KERNEL);
	if (t)
		INIT_LIST_HEAD(&t->list);
	return t;
}

void gilk_traps_free(struct gilk_traps *t)
{
	if (t)
		kvfree_rcu(t, rcu);	/* the notifier may still be walking it */
}

void gilk_traps_add(struct gilk_traps *t, unsigned long addr, unsigned long divert)
{
	t->trap[t->n++] = (struct gilk_trap){ addr, divert };
}

static int cmp_trap(const void *a, const void *b)
{
	const struct gilk_trap *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void gilk_traps_arm(struct gilk_traps *t)
{
	sort(t->trap, t->n, sizeof(t->trap[0]), cmp_trap, NULL);
	spin_lock(&armed_lock);
	list_add_rcu(&t->list, &armed);
	spin_unlock(&armed_lock);
}

/* Once its int3s are gone and synced; gilk_traps_free() after. */
void gilk_traps_disarm(struct gilk_traps *t)
{
	spin_lock(&armed_lock);
	list_del_rcu(&t->list);
	spin_unlock(&armed_lock);
}

/* Inline, no call out: a splice on a function called here would recurse. */
static unsigned long divert_of(const struct gilk_traps *t, unsigned long at)
{
	unsigned int lo = 0, hi = READ_ONCE(t->n);

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->trap[mid].addr == at)
			return t->trap[mid].divert;
		if (t->trap[mid].addr < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Calls nothing out of line: a splice on anything it called would have its
 * int3 met here again (ownpath.c refuses what the chain runs before it).
 * The int3 handler runs with interrupts off, which RCU counts as a reader
 * (the arrays go with kvfree_rcu()), so no rcu_read_lock(): on a
 * PREEMPT_RCU kernel that is a call.
 */
int gilk_int3_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	struct gilk_traps *t;
	unsigned long at, to = 0;

	if (val != DIE_INT3 || !regs || user_mode(regs))
		return NOTIFY_DONE;
	at = regs->ip - 1;	/* int3 traps after itself */
	list_for_each_entry_rcu(t, &armed, list, true) {
		to = divert_of(t, at);
		if (to)
			break;
	}
	if (!to)
		return NOTIFY_DONE;
	regs->ip = to;
	return NOTIFY_STOP;
}

NOKPROBE_SYMBOL(gilk_int3_notify);

struct notifier_block gilk_int3_nb = {
	.notifier_call = gilk_int3_notify,
	.priority = INT_MAX,
};

int gilk_patch_init(void)
{
	return register_die_notifier(&gilk_int3_nb);
}

void gilk_patch_exit(void)
{
	unregister_die_notifier(&gilk_int3_nb);
}

void gilk_text_lock(void)
{
	mutex_lock(gilk_ks.kprobe_mutex);
	mutex_lock(gilk_ks.text_mutex);
}

void gilk_text_unlock(void)
{
	mutex_unlock(gilk_ks.text_mutex);
	mutex_unlock(gilk_ks.kprobe_mutex);
}

bool gilk_text_holds(unsigned long addr, const u8 *want, u32 len)
{
	u8 now[GILK_PATCH_MAX_LEN];

	return !copy_from_kernel_nofault(now, (void *)addr, len) &&
	       !memcmp(now, want, len) && !gilk_kprobe_near(addr, len);
}

/* Which live patches of a splice a step writes: all, the sites', or the others'. */
enum gilk_which { GILK_ALL_LIVE, GILK_SITES, GILK_HOSTS };

static bool selected(const struct gilk_splice_obj *s, const struct gilk_patch_state *p,
		     enum gilk_which sel)
{
	if (p->kind != GILK_PATCH_LIVE)
		return sel == GILK_ALL_LIVE;
	if (sel == GILK_HOSTS && s->host_kept)
		return false;
	return sel == GILK_ALL_LIVE || (sel == GILK_SITES) == (p->addr == s->site);
}

/*
 * Pointers to the patches of objs that sel selects (a trap-mode splice has
 * none), and their int3 diverts; NULL and nothing allocated when there is no
 * memory for them.
 */
static struct gilk_patch_state **collect(struct gilk_splice_obj **objs, u32 n,
					 enum gilk_which sel, unsigned int *np,
					 struct gilk_traps **traps)
{
	struct gilk_patch_state **p;
	unsigned int k = 0;
	u32 i, j;

	/* as few as gilk_traps_alloc() never fails for: neither does this */
	if (n * GILK_MAX_PATCHES <= GILK_TRAPS_NOFAIL)
		p = kmalloc_array(n * GILK_MAX_PATCHES + 1, sizeof(*p), GFP_KERNEL | __GFP_NOFAIL);
	else
		p = kvmalloc_array((size_t)n * GILK_MAX_PATCHES + 1, sizeof(*p), GFP_KERNEL);
	*traps = p ? gilk_traps_alloc(n * GILK_MAX_PATCHES) : NULL;
	if (!*traps) {
		kvfree(p);
		return NULL;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < objs[i]->npatch; j++) {
			struct gilk_patch_state *ps = &objs[i]->patch[j];

			if (!selected(objs[i], ps, sel))
				continue;
			p[k++] = ps;
			if (ps->kind == GILK_PATCH_LIVE)
				gilk_traps_add(*traps, ps->addr, ps->divert);
		}
	*np = k;
	return p;
}

/* Steps 0 and 3: each splice checked; *failed says which was not. */
static int check_each(int (*check)(const struct gilk_splice_obj *s, struct gilk_why *why),
		      struct gilk_splice_obj **objs, u32 n, struct gilk_why *why, u32 *failed)
{
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = check(objs[i], why);
		if (ret) {
			*failed = i;
			return ret;
		}
	}
	return 0;
}

/* Step 0 for one splice. */
static int unchanged(const struct gilk_splice_obj *s, struct gilk_why *why)
{
	u32 i;

	/* a joining splice writes only the jmp into its site's splices */
	if (!s->base && !gilk_text_holds(s->site, s->region_orig, s->region_len))
		goto changed;
	for (i = 0; i < s->npatch; i++)
		if (!gilk_text_holds(s->patch[i].addr, s->patch[i].orig, s->patch[i].len))
			goto changed;
	return 0;
changed:
	return gilk_refuse(why, GILK_REFUSED_CHANGED,
			   "another patcher changed the bytes at %pS after they were checked",
			   (void *)s->site);
}

/* Step 1's writes; whether step 2 must wait (a trap region of one byte need not). */
static bool begin(struct gilk_splice_obj **objs, u32 n,
		  struct gilk_patch_state **p, unsigned int np, struct gilk_pokes *pk)
{
	bool wait = false;
	unsigned int i;

	for (i = 0; i < np; i++)
		if (p[i]->kind == GILK_PATCH_DEAD)
			gilk_pokes_add(pk, p[i]->addr, p[i]->bytes, p[i]->len);
	for (i = 0; i < np; i++)
		if (p[i]->kind == GILK_PATCH_LIVE)
			gilk_pokes_add(pk, p[i]->addr, &int3, 1);
	for (i = 0; i < n; i++) {
		if (objs[i]->trap) {
			gilk_traps_arm(objs[i]->trap);
			gilk_pokes_add(pk, objs[i]->site, &int3, 1);
		}
		wait |= !objs[i]->trap || objs[i]->region_len > 1;
	}
	gilk_pokes_sync(pk);
	return wait;
}

/*
 * Step 3 for one splice: whether what step 1 wrote there, and the bytes its
 * int3s wait over, are still all there is. A trap-mode splice's int3 stays
 * for good.
 */
static int begun(const struct gilk_splice_obj *s, struct gilk_why *why)
{
	u8 want[GILK_PATCH_MAX_LEN];
	u32 i;

	if (s->flags & GILK_SPLICE_TRAP) {
		memcpy(want, s->region_orig, s->region_len);
		want[0] = int3;
		if (!gilk_text_holds(s->site, want, s->region_len))
			goto raced;
		return 0;
	}
	for (i = 0; i < s->npatch; i++) {
		const struct gilk_patch_state *p = &s->patch[i];

		if (p->kind == GILK_PATCH_DEAD) {
			memcpy(want, p->bytes, p->len);
		} else {
			memcpy(want, p->orig, p->len);
			want[0] = int3;
		}
		if (!gilk_text_holds(p->addr, want, p->len))
			goto raced;
	}
	return 0;
raced:
	return gilk_refuse(why, GILK_REFUSED_RACED,
			   "a kprobe or another patcher came at %pS during the grace period",
			   (void *)s->site);
}

/*
 * Undoes step 1 after the wait: the int3s go (their diverts are disarmed
 * after), then the dead slots, which nothing could reach while the sites
 * held int3s. A task an int3 sent to a trampoline may still be there.
 */
static void back_out(struct gilk_splice_obj **objs, u32 n,
		     struct gilk_patch_state **p, unsigned int np, struct gilk_pokes *pk)
{
	unsigned int i;

	for (i = 0; i < np; i++)
		if (p[i]->kind == GILK_PATCH_LIVE)
			gilk_pokes_add(pk, p[i]->addr, p[i]->orig, 1);
	for (i = 0; i < n; i++)
		if (objs[i]->trap)
			gilk_pokes_add(pk, objs[i]->site, objs[i]->region_orig, 1);
	gilk_pokes_sync(pk);
	for (i = 0; i < np; i++)
		if (p[i]->kind == GILK_PATCH_DEAD)
			gilk_pokes_add(pk, p[i]->addr, p[i]->orig, p[i]->len);
	gilk_pokes_sync(pk);
}

/*
 * Step 4. The rest of a trap-mode region becomes int3: nothing reaches
 * those bytes any more (the trampoline goes back past the region), and
 * kprobes, which decode a foreign int3 as a one-byte instruction, would
 * otherwise take site+1 as an instruction boundary and put a probe (or an
 * optimized probe's jmp) in the middle of what the trampoline replays. On
 * an int3 it does not own, kprobes refuses.
 */
static void finish(struct gilk_splice_obj **objs, u32 n,
		   struct gilk_patch_state **p, unsigned int np, struct gilk_pokes *pk)
{
	static const u8 fill[GILK_PATCH_MAX_LEN] = {
		[0 ... GILK_PATCH_MAX_LEN - 1] = 0xcc
	};
	unsigned int i;

	for (i = 0; i < np; i++)
		if (p[i]->kind == GILK_PATCH_LIVE && p[i]->len > 1)
			gilk_pokes_add(pk, p[i]->addr + 1, p[i]->bytes + 1, p[i]->len - 1);
	gilk_pokes_sync(pk);
	for (i = 0; i < np; i++)
		if (p[i]->kind == GILK_PATCH_LIVE)
			gilk_pokes_add(pk, p[i]->addr, p[i]->bytes, 1);
	for (i = 0; i < n; i++)
		if (objs[i]->trap && objs[i]->region_len > 1)
			gilk_pokes_add(pk, objs[i]->site + 1, fill, objs[i]->region_len - 1);
	gilk_pokes_sync(pk);
}

static void disarm_all(struct gilk_splice_obj **objs, u32 n, struct gilk_traps *traps)
{
	u32 i;

	gilk_traps_disarm(traps);
	for (i = 0; i < n; i++)
		if (objs[i]->trap)
			gilk_traps_disarm(objs[i]->trap);
}

int gilk_patch_in(struct gilk_splice_obj **objs, u32 n, struct gilk_why *why, u32 *failed)
{
	struct gilk_patch_state **p;
	struct gilk_traps *traps;
	struct gilk_pokes pk;
	unsigned int np;
	u64 t_start = ktime_get_ns(), t_waited;
	bool wait;
	int ret;

	lockdep_assert_held(&gilk_lock);
	*failed = 0;
	p = collect(objs, n, GILK_ALL_LIVE, &np, &traps);
	if (!p)
		return gilk_refuse(why, GILK_REFUSED_NO_MEMORY,
				   "out of memory for the batch's patches");
	gilk_pokes_begin(&pk);
	gilk_text_lock();
	ret = check_each(unchanged, objs, n, why, failed);
	if (ret) {
		gilk_text_unlock();
		goto out;
	}

	gilk_traps_arm(traps);
	wait = begin(objs, n, p, np, &pk);

	/* kprobe_mutex stays held: the header says why */
	mutex_unlock(gilk_ks.text_mutex);
	mutex_unlock(&gilk_lock);
	if (wait)
		synchronize_rcu_tasks();
	t_waited = ktime_get_ns();

	mutex_lock(gilk_ks.text_mutex);
	ret = check_each(begun, objs, n, why, failed);
	if (ret) {
		back_out(objs, n, p, np, &pk);
		gilk_text_unlock();
		disarm_all(objs, n, traps);
		/* Tasks the int3s sent to a trampoline have left it after this. */
		synchronize_rcu_tasks();
		mutex_lock(&gilk_lock);
		goto out;
	}

	finish(objs, n, p, np, &pk);
	gilk_text_unlock();
	gilk_traps_disarm(traps);
	mutex_lock(&gilk_lock);
	/* where a big batch's time goes (dyndbg="+p" at insmod shows it) */
	pr_debug("gilk: patched %u: int3s held %llu ms, finished in %llu ms\n", n,
		 (t_waited - t_start) / NSEC_PER_MSEC,
		 (ktime_get_ns() - t_waited) / NSEC_PER_MSEC);
out:
	gilk_pokes_end(&pk);
	gilk_traps_free(traps);
	kvfree(p);
	return ret;
}

void gilk_patch_rewrite(const struct gilk_rewrite *w, unsigned int n)
{
	struct gilk_traps *traps;
	struct gilk_pokes pk;
	unsigned int i;

	if (!n)
		return;
	traps = gilk_traps_alloc(n);
	if (!traps) {	/* one at a time: a few diverts are always there */
		for (i = 0; i < n; i++)
			gilk_patch_rewrite(w + i, 1);
		return;
	}
	for (i = 0; i < n; i++)
		gilk_traps_add(traps, w[i].addr, w[i].divert);
	gilk_pokes_begin(&pk);
	gilk_traps_arm(traps);
	for (i = 0; i < n; i++)
		gilk_pokes_add(&pk, w[i].addr, &int3, 1);
	gilk_pokes_sync(&pk);
	for (i = 0; i < n; i++)
		gilk_pokes_add(&pk, w[i].addr + 1, w[i].bytes + 1, GILK_JMP32_LEN - 1);
	gilk_pokes_sync(&pk);
	for (i = 0; i < n; i++)
		gilk_pokes_add(&pk, w[i].addr, w[i].bytes, 1);
	gilk_pokes_sync(&pk);
	gilk_pokes_end(&pk);
	gilk_traps_disarm(traps);
	gilk_traps_free(traps);
}

/*
 * Reverts the live patches of objs that sel selects, with their diverts
 * armed meanwhile; false when there is no memory for them (nothing was
 * done). Until the old bytes are whole, a CPU hitting a site goes to the
 * trampoline, which is still there.
 */
static bool revert(struct gilk_splice_obj **objs, u32 n, enum gilk_which sel)
{
	struct gilk_traps *traps;
	struct gilk_pokes pk;
	unsigned int i, np;
	struct gilk_patch_state **p = collect(objs, n, sel, &np, &traps);

	if (!p)
		return false;
	gilk_pokes_begin(&pk);
	gilk_traps_arm(traps);
	for (i = 0; i < np; i++)
		gilk_pokes_add(&pk, p[i]->addr, &int3, 1);
	gilk_pokes_sync(&pk);
	for (i = 0; i < np; i++)
		if (p[i]->len > 1)
			gilk_pokes_add(&pk, p[i]->addr + 1, p[i]->orig + 1, p[i]->len - 1);
	gilk_pokes_sync(&pk);
	for (i = 0; i < np; i++)
		gilk_pokes_add(&pk, p[i]->addr, p[i]->orig, 1);
	gilk_pokes_sync(&pk);
	gilk_pokes_end(&pk);
	gilk_traps_disarm(traps);
	gilk_traps_free(traps);
	kvfree(p);
	return true;
}

/*
 * All n at once; where memory for that is short, one at a time, whose few
 * diverts are always there.
 */
static void revert_each(struct gilk_splice_obj **objs, u32 n, enum gilk_which sel)
{
	u32 i;

	if (!revert(objs, n, sel))
		for (i = 0; i < n; i++)
			revert(objs + i, 1, sel);
}

static bool has_host(struct gilk_splice_obj **objs, u32 n)
{
	u32 i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < objs[i]->npatch; k++)
			if (objs[i]->patch[k].kind == GILK_PATCH_LIVE &&
			    objs[i]->patch[k].addr != objs[i]->site)
				return true;
	return false;
}

/*
 * A kprobe may have come on an evicted neighbour's jmp while the first
 * grace period passed (kprobe_mutex is not held across it): that neighbour
 * is left as it is, and its trampoline lives on, as an abandoned splice's
 * does.
 */
static void keep_taken_hosts(struct gilk_splice_obj **objs, u32 n)
{
	u32 i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < objs[i]->npatch; k++) {
			struct gilk_patch_state *p = &objs[i]->patch[k];

			if (p->kind != GILK_PATCH_LIVE || p->addr == objs[i]->site ||
			    gilk_text_holds(p->addr, p->bytes, p->len))
				continue;
			pr_warn("gilk: splice %u: a kprobe came on the neighbour it evicted at %pS; left there\n",
				objs[i]->id, (void *)p->addr);
			objs[i]->host_kept = true;
			objs[i]->evict_tramp = 0;	/* lives on */
		}
}

void gilk_patch_out(struct gilk_splice_obj **objs, u32 n)
{
	u64 t_start = ktime_get_ns(), t_sites;
	struct gilk_pokes pk;
	u32 i, k;

	lockdep_assert_held(&gilk_lock);
	if (!n) {
		gilk_text_unlock();
		return;
	}
	revert_each(objs, n, GILK_SITES);
	gilk_pokes_begin(&pk);
	/* a trap region's int3 stays until the bytes behind it are back */
	for (i = 0; i < n; i++)
		if (objs[i]->flags & GILK_SPLICE_TRAP && objs[i]->region_len > 1)
			gilk_pokes_add(&pk, objs[i]->site + 1, objs[i]->region_orig + 1,
				       objs[i]->region_len - 1);
	gilk_pokes_sync(&pk);
	for (i = 0; i < n; i++)
		if (objs[i]->flags & GILK_SPLICE_TRAP)
			gilk_pokes_add(&pk, objs[i]->site, objs[i]->region_orig, 1);
	gilk_pokes_sync(&pk);
	gilk_text_unlock();
	mutex_unlock(&gilk_lock);
	t_sites = ktime_get_ns();

	for (i = 0; i < n; i++)
		if (objs[i]->trap)
			gilk_traps_disarm(objs[i]->trap);
	/* No task is in a trampoline, or on its way to one, after this. */
	synchronize_rcu_tasks();

	if (has_host(objs, n)) {
		gilk_text_lock();
		keep_taken_hosts(objs, n);
		revert_each(objs, n, GILK_HOSTS);
		gilk_text_unlock();
		synchronize_rcu_tasks();
	}

	mutex_lock(&gilk_lock);
	gilk_text_lock();
	for (i = 0; i < n; i++)
		for (k = 0; k < objs[i]->npatch && !objs[i]->host_kept; k++)
			if (objs[i]->patch[k].kind == GILK_PATCH_DEAD)
				gilk_pokes_add(&pk, objs[i]->patch[k].addr, objs[i]->patch[k].orig,
					       objs[i]->patch[k].len);
	gilk_pokes_sync(&pk);
	gilk_text_unlock();
	gilk_pokes_end(&pk);
	pr_debug("gilk: reverted %u: sites in %llu ms, the rest in %llu ms\n", n,
		 (t_sites - t_start) / NSEC_PER_MSEC,
		 (ktime_get_ns() - t_sites) / NSEC_PER_MSEC);
}
