// SPDX-License-Identifier: GPL-2.0
/*
 * The patch protocol, in the order it happens:
 *  1. write int3 at each live patch's first byte, sync all CPUs; from now on
 *     the DIE_INT3 notifier sends any CPU that hits it to its divert address
 *     (the trampoline, which does what the original bytes did);
 *  2. synchronize_rcu_tasks(): no task is still inside the old bytes (a task
 *     preempted there has not yet made a voluntary context switch);
 *  3. write the rest of each patch, sync; write its first byte, sync. After
 *     that sync no CPU can still be in the int3 handler for it.
 * The text lock (kprobe_mutex, then text_mutex) is held from the check of
 * what is at an address to the last write there, never across a wait, and
 * neither is gilk_lock: splices made at the same time share grace periods.
 * Dead patches (bounce slots in padding nothing executes) are written
 * directly, first.
 *
 * Why kprobe_mutex: a kprobe copies the instruction it will replay under
 * text_mutex, but arms its int3 only after it dropped and took text_mutex
 * again. Between the two, gilk could find no kprobe, write, and then have
 * the int3 written into its jmp, with a copy of bytes that are gone. And
 * while gilk's int3 waits for its grace period, the kernel lets kprobes into
 * the rest of the region: its decoder steps over a foreign int3 as a
 * one-byte instruction. Holding kprobe_mutex keeps registrations out of
 * each check-and-write; the check before finishing catches those that came
 * during the wait.
 */
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

/*
 * Trap-mode splices hold a slot for good (at most one each); a splice going
 * in or out holds one per live patch (at most two) for a moment. Four per
 * splice can never run out, so revert never goes without its int3.
 */
#define GILK_MAX_TRAPS (4 * GILK_MAX_SPLICES)

struct gilk_trap {
	unsigned long addr;
	unsigned long divert;
};

/* Read locklessly from int3 context; written under gilk_lock. */
static struct gilk_trap traps[GILK_MAX_TRAPS];
static unsigned int ntraps_seen;	/* high-water mark of used slots */

static const u8 int3 = 0xcc;

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
	gilk_ks.text_poke((void *)addr, bytes, len);
	gilk_ks.text_poke_sync();
}

int gilk_trap_add(unsigned long addr, unsigned long divert)
{
	unsigned int i;

	for (i = 0; i < GILK_MAX_TRAPS; i++) {
		if (READ_ONCE(traps[i].addr))
			continue;
		WRITE_ONCE(traps[i].divert, divert);
		smp_wmb();	/* divert before addr: readers match on addr */
		WRITE_ONCE(traps[i].addr, addr);
		if (i >= ntraps_seen)
			WRITE_ONCE(ntraps_seen, i + 1);
		return 0;
	}
	return -ENOSPC;
}

unsigned int gilk_traps_free(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < GILK_MAX_TRAPS; i++)
		n += !READ_ONCE(traps[i].addr);
	return n;
}

void gilk_trap_del(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < ntraps_seen; i++)
		if (READ_ONCE(traps[i].addr) == addr)
			WRITE_ONCE(traps[i].addr, 0);
}

static int gilk_int3_notify(struct notifier_block *nb, unsigned long val,
			    void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long at;
	unsigned int i, n;

	if (val != DIE_INT3 || !regs || user_mode(regs))
		return NOTIFY_DONE;
	at = regs->ip - 1;	/* int3 traps after itself */
	n = READ_ONCE(ntraps_seen);
	for (i = 0; i < n; i++) {
		if (READ_ONCE(traps[i].addr) != at)
			continue;
		smp_rmb();	/* pairs with gilk_trap_add(): divert is set */
		regs->ip = READ_ONCE(traps[i].divert);
		return NOTIFY_STOP;
	}
	return NOTIFY_DONE;
}

NOKPROBE_SYMBOL(gilk_int3_notify);

static struct notifier_block gilk_int3_nb = {
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

int gilk_patch_begin(struct gilk_patch_state *p, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		if (p[i].kind == GILK_PATCH_DEAD)
			gilk_poke_locked(p[i].addr, p[i].bytes, p[i].len);
	for (i = 0; i < n; i++) {
		if (p[i].kind != GILK_PATCH_LIVE)
			continue;
		ret = gilk_trap_add(p[i].addr, p[i].divert);
		if (ret) {
			gilk_patch_abort(p, i);
			return ret;
		}
		gilk_poke_locked(p[i].addr, &int3, 1);
	}
	return 0;
}

/*
 * Undoes gilk_patch_begin() for the first n patches: each int3 goes (and its
 * divert only after every CPU has seen it go), then the dead slots, which
 * nothing could reach while the site held an int3. A task the int3 sent to
 * the trampoline may still be there: wait before freeing it.
 */
void gilk_patch_abort(struct gilk_patch_state *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i].kind == GILK_PATCH_LIVE) {
			gilk_poke_locked(p[i].addr, p[i].orig, 1);
			gilk_trap_del(p[i].addr);
		}
	for (i = 0; i < n; i++)
		if (p[i].kind == GILK_PATCH_DEAD)
			gilk_poke_locked(p[i].addr, p[i].orig, p[i].len);
}

/* Whether what gilk_patch_begin() wrote is still all there is. */
bool gilk_patch_begun(const struct gilk_patch_state *p, unsigned int n)
{
	u8 want[GILK_PATCH_MAX_LEN];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (p[i].kind == GILK_PATCH_DEAD) {
			memcpy(want, p[i].bytes, p[i].len);
		} else {
			memcpy(want, p[i].orig, p[i].len);
			want[0] = int3;
		}
		if (!gilk_text_holds(p[i].addr, want, p[i].len))
			return false;
	}
	return true;
}

void gilk_patch_finish(struct gilk_patch_state *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (p[i].kind != GILK_PATCH_LIVE)
			continue;
		if (p[i].len > 1)
			gilk_poke_locked(p[i].addr + 1, p[i].bytes + 1, p[i].len - 1);
		gilk_poke_locked(p[i].addr, p[i].bytes, 1);
		gilk_trap_del(p[i].addr);
	}
}

void gilk_patch_revert(struct gilk_patch_state *p, unsigned int n)
{
	unsigned int i;

	for (i = n; i-- > 0;) {
		if (p[i].kind != GILK_PATCH_LIVE)
			continue;
		/* Until the old bytes are whole, a CPU hitting the site goes
		 * to the trampoline, which is still there.
		 */
		if (gilk_trap_add(p[i].addr, p[i].divert) == 0)
			gilk_poke_locked(p[i].addr, &int3, 1);
		if (p[i].len > 1)
			gilk_poke_locked(p[i].addr + 1, p[i].orig + 1, p[i].len - 1);
		gilk_poke_locked(p[i].addr, p[i].orig, 1);
		gilk_trap_del(p[i].addr);
	}
}
