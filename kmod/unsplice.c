// SPDX-License-Identifier: GPL-2.0
/*
 * UNSPLICE: a batch's patches reverted with their int3 diverts armed, one
 * grace period (synchronize_rcu_tasks()) for the lot, and only then their
 * trampolines freed and the instruments' modules let go. A splice whose
 * bytes another patcher holds now is abandoned instead: its trampoline is
 * made to skip gilk and is never freed. Splices that depend on a module (its
 * text, its instruments) or on an instrument go when it goes.
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"
#include "compat.h"
#include "include/gilk_tramp.h"
#include "verify_env.h"

/*
 * Whether the bytes a splice wrote are still its own, with no kprobe on or
 * just before them: another patcher that came since saved gilk's bytes as
 * the original ones, and would put them back after gilk restored its own.
 */
static bool still_own(const struct gilk_splice_obj *s)
{
	u8 now[GILK_PATCH_MAX_LEN];
	u32 i;

	/*
	 * A trap-mode region is all int3 (gilk_fill_traps()), where kprobes
	 * refuse to go, and an optimized kprobe before it refuses a jmp
	 * over an int3: a kprobe just before it is no patcher of its
	 * bytes, and must not keep its int3 after gilk.ko is gone.
	 */
	if (s->flags & GILK_SPLICE_TRAP) {
		if (copy_from_kernel_nofault(now, (void *)s->site, s->region_len))
			return false;
		for (i = 0; i < s->region_len; i++)
			if (now[i] != 0xcc)
				return false;
		return !gilk_kprobe_on(s->site, s->region_len);
	}
	for (i = 0; i < s->npatch; i++)
		if (!gilk_text_holds(s->patch[i].addr, s->patch[i].bytes, s->patch[i].len))
			return false;
	return true;
}

/* A splice gone (or abandoned): what it held goes back. gilk_lock held. */
static void drop(struct gilk_splice_obj *s)
{
	xa_erase(&gilk_splices, s->id);
	gilk_disown(s);
	gilk_instrument_put(s->ins);
	module_put(s->text_mod);
	gilk_obj_free(s);
}

/*
 * Reverts the live patches sel selects, with their diverts armed meanwhile;
 * false when there is no memory for them (nothing was done). The text lock
 * held.
 */
static bool revert(struct gilk_splice_obj **objs, u32 n, enum gilk_which sel)
{
	struct gilk_traps *traps;
	unsigned int np;
	struct gilk_patch_state **p = gilk_collect_patches(objs, n, sel, &np, &traps);

	if (!p)
		return false;
	gilk_traps_arm(traps);
	gilk_patches_revert(p, np);
	gilk_traps_disarm(traps);
	gilk_traps_free(traps);
	kvfree(p);
	return true;
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
 * Unsplicing happens in two steps, each followed by a grace period. First
 * the sites: after them, nothing new enters the splices. Then evicted
 * neighbours that hold bounce slots: a task may sit between a site's
 * jmp rel8 and the slot's jmp (interrupted or preempted there) until the
 * first grace period has passed, and must find the slot still there. Then
 * the dead slots get their bytes back, and the memory and the modules go.
 * Each step is one protocol run for all n (UNSPLICING); where memory for
 * that is short, one splice at a time, whose few diverts are always there.
 *
 * The first step, with the text lock held since the callers' last look at
 * the bytes (still_own()).
 */
static void revert_sites(struct gilk_splice_obj **objs, u32 n)
{
	u32 i;

	if (!n)
		return;
	if (!revert(objs, n, GILK_SITES))
		for (i = 0; i < n; i++)
			revert(objs + i, 1, GILK_SITES);
	/* a trap region's int3 stays until the bytes behind it are back */
	for (i = 0; i < n; i++)
		if (objs[i]->flags & GILK_SPLICE_TRAP && objs[i]->region_len > 1)
			gilk_poke_locked(objs[i]->site + 1, objs[i]->region_orig + 1,
					 objs[i]->region_len - 1);
	gilk_poke_sync();
	for (i = 0; i < n; i++)
		if (objs[i]->flags & GILK_SPLICE_TRAP)
			gilk_poke_locked(objs[i]->site, objs[i]->region_orig, 1);
	gilk_poke_sync();
}

/*
 * A kprobe may have come on an evicted neighbour's jmp while the first
 * grace period passed (kprobe_mutex is not held across it): that neighbour
 * is left as it is, and its trampoline lives on, as an abandoned splice's
 * does. The text lock held.
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

/* The rest, once revert_sites() is done; gilk_lock not held. */
static void unsplice_rest(struct gilk_splice_obj **objs, u32 n)
{
	u32 i, k;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		if (objs[i]->trap)
			gilk_traps_disarm(objs[i]->trap);
	/* No task is in a trampoline, or on its way to one, after this. */
	synchronize_rcu_tasks();
	if (has_host(objs, n)) {
		gilk_text_lock();
		keep_taken_hosts(objs, n);
		if (!revert(objs, n, GILK_HOSTS))
			for (i = 0; i < n; i++)
				revert(objs + i, 1, GILK_HOSTS);
		gilk_text_unlock();
		synchronize_rcu_tasks();
	}
	mutex_lock(&gilk_lock);
	gilk_text_lock();
	for (i = 0; i < n; i++)
		for (k = 0; k < objs[i]->npatch && !objs[i]->host_kept; k++)
			if (objs[i]->patch[k].kind == GILK_PATCH_DEAD)
				gilk_poke_locked(objs[i]->patch[k].addr, objs[i]->patch[k].orig,
						 objs[i]->patch[k].len);
	gilk_poke_sync();
	gilk_text_unlock();
	for (i = 0; i < n; i++) {
		drop(objs[i]);
		if (!(i & 255))
			cond_resched();
	}
	mutex_unlock(&gilk_lock);
}

int gilk_unsplice_batch(const u32 *ids, u32 n, u32 *failed)
{
	struct gilk_splice_obj **objs;
	u64 t_start = ktime_get_ns(), t_reverted;
	u32 i;
	int ret = 0;

	*failed = 0;
	if (!n || n > GILK_BATCH_MAX)
		return -EINVAL;
	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	mutex_lock(&gilk_lock);
	gilk_text_lock();
	for (i = 0; i < n; i++) {
		struct gilk_splice_obj *s = ids[i] ? xa_load(&gilk_splices, ids[i]) : NULL;

		if (!s || s->state != GILK_ACTIVE) {
			ret = !s || s->state == GILK_RESERVED ? -ENOENT : -EBUSY;
			break;
		}
		/* Refused while another patcher holds the bytes: see still_own() */
		if (!still_own(s)) {
			ret = -EBUSY;
			break;
		}
		/* marked now, so an id given twice is caught */
		s->state = GILK_UNSPLICING;
		objs[i] = s;
	}
	if (ret) {
		gilk_text_unlock();
		*failed = i;
		while (i-- > 0)
			objs[i]->state = GILK_ACTIVE;
		mutex_unlock(&gilk_lock);
		kvfree(objs);
		return ret;
	}
	revert_sites(objs, n);
	gilk_text_unlock();
	mutex_unlock(&gilk_lock);
	t_reverted = ktime_get_ns();
	unsplice_rest(objs, n);
	kvfree(objs);
	pr_debug("gilk: unspliced %u: reverted in %llu ms, freed in %llu ms\n", n,
		 (t_reverted - t_start) / NSEC_PER_MSEC,
		 (ktime_get_ns() - t_reverted) / NSEC_PER_MSEC);
	return 0;
}

int gilk_unsplice(u32 id)
{
	u32 failed;

	return gilk_unsplice_batch(&id, 1, &failed);
}

/*
 * A splice whose bytes another patcher holds cannot be reverted, and gilk.ko
 * (or its instrument) is going away: its trampoline stays, made to skip the
 * call into gilk, and is never freed. The jmp over the call is written with
 * the kernel's int3-protected text_poke_bp() over the 10-byte movabs that
 * loads the call's first argument, the one instruction before the call:
 * the header's first bytes may be 1-byte pushes, and a task preempted
 * between them would resume inside the jmp. A BUG site's gets an int3 there
 * instead: a BUG must still stop the kernel. Inline count, count_task and
 * tsc call nothing and are left as they are, with their counters and ring. The text
 * lock held.
 */
void gilk_abandon(struct gilk_splice_obj *s)
{
	/* enough of the header's inputs to find its call (inline: none) */
	struct gilk_tramp_params tp = {
		.kind = s->tramp_kind, .tramp = s->tramp, .site = s->site,
		.ctx = (unsigned long)s, .handler = (unsigned long)gilk_entry,
		.clac = boot_cpu_has(X86_FEATURE_SMAP), .counter = (unsigned long)s->hits,
		.ring = (unsigned long)s->tsc_ring, .cpu_number = gilk_cpu_number_addr(),
		.preempt_count = gilk_preempt_count_addr(),
		.current_task = gilk_current_task_addr(), .task_pid = gilk_task_pid_offset(),
	};
	static const u8 int3 = 0xcc;
	u8 jmp[5] = { 0xe9 };
	size_t ctx_at, after;
	s32 rel;

	if (!gilk_tramp_call(&tp, &ctx_at, &after)) {
		/* count, count_task and tsc call nothing: they go on, into
		 * memory left to them (what the ring holds now still becomes
		 * events)
		 */
		gilk_tsc_ring_drain(s, false);
		s->counts = NULL;
		s->hits = NULL;
		s->filtered = NULL;
		s->tsc_ring = NULL;
	} else if (s->bug_kind == GILK_BUG) {
		/* an int3 nothing handles once gilk.ko is gone: an oops */
		gilk_poke_locked(s->tramp + ctx_at, &int3, 1);
		gilk_poke_sync();
	} else {
		rel = (s32)(after - (ctx_at + sizeof(jmp)));
		memcpy(jmp + 1, &rel, 4);
		gilk_ks.text_poke_bp((void *)(s->tramp + ctx_at), jmp, sizeof(jmp), NULL);
	}
	pr_warn("gilk: splice %u at %pS left in place without its instrument: another patcher changed its bytes\n",
		s->id, (void *)s->site);
	s->tramp = s->evict_tramp = 0;	/* its trampolines live on */
	s->trap = NULL;			/* and a trap-mode splice's divert, armed */
}

static bool depends_on(const struct gilk_splice_obj *s, const struct module *mod,
		       const struct gilk_instrument *ins)
{
	if (!mod && !ins)
		return true;
	return (mod && (s->text_mod == mod || (s->ins && s->ins->owner == mod))) ||
	       (ins && s->ins == ins);
}

/* Splices of theirs still on their way in or out: they settle first. */
static bool settling(const struct module *mod, const struct gilk_instrument *ins)
{
	struct gilk_splice_obj *s;
	unsigned long i;

	xa_for_each(&gilk_splices, i, s)
		if ((s->state == GILK_SPLICING || s->state == GILK_UNSPLICING) &&
		    depends_on(s, mod, ins))
			return true;
	return false;
}

/* Where memory for all of them at once is short: this many at a time. */
#define DEPENDENTS_SOME 512

static void drop_abandoned(struct gilk_splice_obj **objs, unsigned int k)
{
	unsigned int i;

	synchronize_rcu_tasks();	/* no task still in a header */
	mutex_lock(&gilk_lock);
	for (i = 0; i < k; i++)
		drop(objs[i]);
	mutex_unlock(&gilk_lock);
}

/*
 * Up to max of the splices that depend on mod or ins, marked UNSPLICING:
 * those to revert from objs[0] up (*n), those to abandon from objs[max - 1]
 * down (*k). At unload (both NULL) reservations are freed on the way.
 */
static void take_dependents(const struct module *mod, const struct gilk_instrument *ins,
			    struct gilk_splice_obj **objs, unsigned long max,
			    unsigned int *n, unsigned int *k)
{
	struct gilk_splice_obj *s;
	unsigned long i;

	*n = *k = 0;
	/*
	 * Splices of theirs on their way in or out settle first, and nothing
	 * new can start between that and marking the rest: one hold of the
	 * lock (an unsplice not waited for could write into a module freed
	 * after its notifier returned).
	 */
	mutex_lock(&gilk_lock);
	while (settling(mod, ins)) {
		mutex_unlock(&gilk_lock);
		msleep(20);
		mutex_lock(&gilk_lock);
	}
	/* Reservations first: freeing a trampoline pokes it, under text_mutex. */
	xa_for_each(&gilk_splices, i, s)
		if (!mod && !ins && s->state == GILK_RESERVED) {
			xa_erase(&gilk_splices, i);
			gilk_obj_free(s);
		}
	gilk_text_lock();
	xa_for_each(&gilk_splices, i, s) {
		if (*n + *k == max)
			break;
		if (!depends_on(s, mod, ins) || s->state != GILK_ACTIVE)
			continue;
		s->state = GILK_UNSPLICING;
		if (still_own(s)) {
			objs[(*n)++] = s;
		} else {
			gilk_abandon(s);
			objs[max - 1 - (*k)++] = s;
		}
	}
	revert_sites(objs, *n);
	gilk_text_unlock();
	mutex_unlock(&gilk_lock);
}

/*
 * Removes the active splices that depend on mod or ins (all of them when
 * both are NULL, at unload, which also frees reservations): reverted where
 * their bytes are their own, abandoned where another patcher holds them.
 * One pair of grace periods for the lot (or for each DEPENDENTS_SOME of
 * them when memory for all at once is short).
 */
static void unsplice_dependents(const struct module *mod,
				const struct gilk_instrument *ins)
{
	struct gilk_splice_obj **objs, *s;
	unsigned long i, max = 0, total = 0;
	unsigned int n, k;

	mutex_lock(&gilk_lock);
	xa_for_each(&gilk_splices, i, s)
		max++;
	mutex_unlock(&gilk_lock);
	objs = kvmalloc_array(max + 1, sizeof(*objs), GFP_KERNEL);
	if (!objs) {
		max = DEPENDENTS_SOME;
		objs = kmalloc_array(max, sizeof(*objs), GFP_KERNEL | __GFP_NOFAIL);
	}
	max = max ? max : 1;
	do {
		take_dependents(mod, ins, objs, max, &n, &k);
		unsplice_rest(objs, n);
		if (k)
			drop_abandoned(objs + max - k, k);
		total += n + k;
	} while (n + k == max);
	if (total && (mod || ins))
		pr_info("gilk: %s %s is going: %lu splices removed\n", mod ? "module" : "instrument",
			mod ? mod->name : ins->name, total);
	kvfree(objs);
}

void gilk_unsplice_dependents(const struct module *mod,
			      const struct gilk_instrument *ins)
{
	unsplice_dependents(mod, ins);
}

void gilk_unsplice_all(void)
{
	unsplice_dependents(NULL, NULL);
	mutex_lock(&gilk_lock);
	gilk_trampmem_exit();
	mutex_unlock(&gilk_lock);
}

void gilk_unregister_instrument(struct gilk_instrument *ins)
{
	int waited = 0;

	/* off the list first: no new splice finds it */
	gilk_instrument_unlist(ins);
	/*
	 * A splice using it holds its module, so none is left here, unless
	 * the module is force-unloaded (rmmod -f), whose exit runs before
	 * anything else hears of it: its splices go now, while its code is
	 * still there. One being made with it now becomes active (or fails)
	 * within a grace period or two, and goes then.
	 */
	while (atomic_read(&ins->users)) {
		gilk_unsplice_dependents(NULL, ins);
		if (!atomic_read(&ins->users))
			break;
		if (waited++ == 500) {
			pr_warn("gilk: instrument %s still has %d users\n", ins->name,
				atomic_read(&ins->users));
			break;
		}
		msleep(20);
	}
}
EXPORT_SYMBOL_GPL(gilk_unregister_instrument);
