// SPDX-License-Identifier: GPL-2.0
/*
 * The patch protocol, for a whole batch at once (as the kernel's own
 * text_poke_bp_batch() does for its sites), in the order it happens:
 *  1. the batch's int3 diverts are armed, int3 is written at each live
 *     patch's first byte, and all CPUs are synced once; from then on the
 *     DIE_INT3 notifier sends any CPU that hits one to its divert address
 *     (the trampoline, which does what the original bytes did);
 *  2. synchronize_rcu_tasks() (the caller waits, holding no lock): no task
 *     is still inside the old bytes (a task preempted there has not yet
 *     made a voluntary context switch);
 *  3. the rest of each patch is written, one sync; each first byte, one
 *     sync. After that sync no CPU can still be in the int3 handler for
 *     them, and the diverts are disarmed.
 * Reverting is the same without the wait: int3, the original rest, the
 * original first byte, a sync after each step. The text lock (kprobe_mutex,
 * then text_mutex) is held from the check of what is at an address to the
 * last write there; text_mutex never across a wait, and neither is
 * gilk_lock: splices made at the same time claim while one waits. Dead
 * patches (bounce slots in padding nothing executes) are written directly,
 * first.
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
 * wait; the check before finishing (gilk_patches_begun) still catches any
 * other patcher.
 *
 * The diverts are sorted arrays, one per batch (or per trap-mode splice,
 * whose int3 stays), on a list the notifier reads under RCU: its cost per
 * int3 is a binary search per armed array, whatever the batch's size.
 */
#include <linux/kdebug.h>
#include <linux/kprobes.h>
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

void gilk_poke_locked(unsigned long addr, const void *bytes, size_t len)
{
	static unsigned int pokes;	/* text_mutex guards it */

	gilk_ks.text_poke((void *)addr, bytes, len);
	/* a batch may be 10^5 writes: not all without a reschedule point */
	if (!(++pokes % 256))
		cond_resched();
}

void gilk_poke_sync(void)
{
	gilk_ks.text_poke_sync();
}

/* The text lock held; the caller syncs. */
void gilk_patches_begin(struct gilk_patch_state **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i]->kind == GILK_PATCH_DEAD)
			gilk_poke_locked(p[i]->addr, p[i]->bytes, p[i]->len);
	for (i = 0; i < n; i++)
		if (p[i]->kind == GILK_PATCH_LIVE)
			gilk_poke_locked(p[i]->addr, &int3, 1);
}

/* Whether what gilk_patches_begin() wrote is still all there is. */
bool gilk_patches_begun(struct gilk_patch_state **p, unsigned int n)
{
	u8 want[GILK_PATCH_MAX_LEN];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (p[i]->kind == GILK_PATCH_DEAD) {
			memcpy(want, p[i]->bytes, p[i]->len);
		} else {
			memcpy(want, p[i]->orig, p[i]->len);
			want[0] = int3;
		}
		if (!gilk_text_holds(p[i]->addr, want, p[i]->len))
			return false;
	}
	return true;
}

/*
 * Undoes gilk_patches_begin(): the int3s go (the caller disarms their
 * diverts after), then the dead slots, which nothing could reach while the
 * sites held int3s. A task an int3 sent to a trampoline may still be there:
 * the caller waits before freeing it.
 */
void gilk_patches_abort(struct gilk_patch_state **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i]->kind == GILK_PATCH_LIVE)
			gilk_poke_locked(p[i]->addr, p[i]->orig, 1);
	gilk_poke_sync();
	for (i = 0; i < n; i++)
		if (p[i]->kind == GILK_PATCH_DEAD)
			gilk_poke_locked(p[i]->addr, p[i]->orig, p[i]->len);
	gilk_poke_sync();
}

/* The text lock held, from gilk_patches_begun() on. */
void gilk_patches_finish(struct gilk_patch_state **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i]->kind == GILK_PATCH_LIVE && p[i]->len > 1)
			gilk_poke_locked(p[i]->addr + 1, p[i]->bytes + 1, p[i]->len - 1);
	gilk_poke_sync();
	for (i = 0; i < n; i++)
		if (p[i]->kind == GILK_PATCH_LIVE)
			gilk_poke_locked(p[i]->addr, p[i]->bytes, 1);
	gilk_poke_sync();
}

/* The live ones in p, with their diverts armed by the caller; the text lock held. */
void gilk_patches_revert(struct gilk_patch_state **p, unsigned int n)
{
	unsigned int i;

	/* Until the old bytes are whole, a CPU hitting a site goes to the
	 * trampoline, which is still there.
	 */
	for (i = 0; i < n; i++)
		gilk_poke_locked(p[i]->addr, &int3, 1);
	gilk_poke_sync();
	for (i = 0; i < n; i++)
		if (p[i]->len > 1)
			gilk_poke_locked(p[i]->addr + 1, p[i]->orig + 1, p[i]->len - 1);
	gilk_poke_sync();
	for (i = 0; i < n; i++)
		gilk_poke_locked(p[i]->addr, p[i]->orig, 1);
	gilk_poke_sync();
}
