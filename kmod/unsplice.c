// SPDX-License-Identifier: GPL-2.0
/*
 * UNSPLICE: a batch's patches reverted by the patch protocol run back
 * (gilk_patch_out()), its grace periods shared by the lot, and only then
 * their trampolines freed and the instruments' modules let go. A splice whose
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

/*
 * Whether the bytes a splice wrote are still its own, with no kprobe on or
 * just before them: another patcher that came since saved gilk's bytes as
 * the original ones, and would put them back after gilk restored its own.
 */
bool gilk_still_own(struct gilk_splice_obj *s)
{
	u8 now[GILK_PATCH_MAX_LEN];
	u32 i;

	/* the splices of a site share its bytes, kept by the first */
	s = gilk_join_base(s);

	/*
	 * A trap-mode region is all int3 (patch.c's finish()), where kprobes
	 * refuse to go, and an optimized kprobe before it refuses a jmp
	 * over an int3: a kprobe just before it is no patcher of its
	 * bytes, and must not keep its int3 after gilk.ko is gone.
	 */
	if (s->flags & GILK_SPLICE_TRAP) {
		if (copy_from_kernel_nofault(now, (void *)s->site, s->region_len))
			return false;
		for (i = 0; i < s->region_len; i++)
			if (now[i] != GILK_ARCH_TRAP_BYTE)
				return false;
		return !gilk_kprobe_on(s->site, s->region_len);
	}
	for (i = 0; i < s->npatch; i++)
		if (!gilk_text_holds(s->patch[i].addr, s->patch[i].bytes, s->patch[i].len))
			return false;
	return true;
}

/*
 * A splice gone (or abandoned): what it held goes back (a husk let its
 * instrument go when it became one). gilk_lock held.
 */
void gilk_splice_drop(struct gilk_splice_obj *s)
{
	xa_erase(&gilk_splices, s->id);
	gilk_disown(s);
	if (s->ins)
		gilk_instrument_put(s->ins);
	module_put(s->text_mod);
	gilk_obj_free(s);
}

static void drop(struct gilk_splice_obj *s)
{
	gilk_splice_drop(s);
}

/* Once gilk_patch_out() is done with them; gilk_lock held. */
static void drop_all(struct gilk_splice_obj **objs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		drop(objs[i]);
		if (!(i & 255))
			cond_resched();
	}
}

int gilk_unsplice_batch(const u32 *ids, u32 n, u32 *failed)
{
	struct gilk_splice_obj **objs;
	u32 i;
	int ret = 0;

	*failed = 0;
	if (!n || n > GILK_BATCH_MAX)
		return -EINVAL;
	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	/* behind a batch of thousands, a wait a signal may end */
	if (mutex_lock_killable(&gilk_lock)) {
		kvfree(objs);
		return -EINTR;
	}
	gilk_text_lock();
	for (i = 0; i < n; i++) {
		struct gilk_splice_obj *s = ids[i] ? xa_load(&gilk_splices, ids[i]) : NULL;

		/* a husk is gone, as far as anyone asking knows */
		if (!s || s->state != GILK_ACTIVE) {
			ret = !s || s->state == GILK_RESERVED || s->state == GILK_HUSK ?
			      -ENOENT : -EBUSY;
			break;
		}
		/*
		 * Refused while another patcher holds the bytes (see
		 * still_own()), or while splices of its site are on their way
		 * in or out (looked at before this batch marks its own)
		 */
		if (!gilk_still_own(s) || gilk_join_busy(s)) {
			ret = -EBUSY;
			break;
		}
		objs[i] = s;
	}
	if (ret) {
		gilk_text_unlock();
		*failed = i;
		mutex_unlock(&gilk_lock);
		kvfree(objs);
		return ret;
	}
	for (i = 0; i < n; i++) {
		/* an id given twice */
		if (objs[i]->state != GILK_ACTIVE) {
			ret = -EBUSY;
			break;
		}
		objs[i]->state = GILK_UNSPLICING;
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
	n = gilk_join_take(objs, n);
	gilk_patch_out(objs, n);
	drop_all(objs, n);
	mutex_unlock(&gilk_lock);
	kvfree(objs);
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
 * call into gilk (arch/NAME/abandon.c says how), and is never freed. Inline
 * count, count_task and tsc call nothing and are left as they are, with
 * their counters and ring. The text lock held.
 */
void gilk_abandon(struct gilk_splice_obj *s)
{
	if (!gilk_arch_tramp_skip_call(s)) {
		/* count, count_task and tsc call nothing: they go on, into
		 * memory left to them (what the ring holds now still becomes
		 * events)
		 */
		if (!s->husk)	/* a husk's hits are no one's */
			gilk_tsc_ring_drain(s, false);
		s->counts = NULL;
		s->hits = NULL;
		s->filtered = NULL;
		s->tsc_ring = NULL;
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
		if ((s->state == GILK_SPLICING || s->state == GILK_UNSPLICING ||
		     (s->state == GILK_ACTIVE && gilk_join_busy(s))) &&
		    depends_on(s, mod, ins))
			return true;
	return false;
}

/*
 * Another patcher holds the bytes of a site several splices share: all of
 * them are abandoned, whatever they depend on (their trampolines stay,
 * chained as they are, each skipping gilk), and leave the chain's
 * bookkeeping; from objs[max - 1 - *k] down. Whether there was room.
 */
static bool abandon_chain(struct gilk_splice_obj *s, struct gilk_splice_obj **objs,
			  unsigned long max, unsigned int n, unsigned int *k)
{
	struct gilk_splice_obj *m, *next;
	unsigned int len = 0;

	for (m = gilk_join_base(s); m; m = m->above)
		len++;
	if (n + *k + len > max)
		return false;
	for (m = gilk_join_base(s); m; m = next) {
		next = m->above;
		m->base = NULL;
		m->below = NULL;
		m->above = NULL;
		m->state = GILK_UNSPLICING;
		gilk_abandon(m);
		objs[max - 1 - (*k)++] = m;
	}
	return true;
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
 * those to revert from objs[0] up (*n), those abandoned from objs[max - 1]
 * down (*k). At unload (both NULL) reservations are freed on the way.
 * Returns with gilk_lock and the text lock held, for gilk_patch_out(),
 * whether it stopped for want of room (there may be more).
 */
static bool take_dependents(const struct module *mod, const struct gilk_instrument *ins,
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
			return true;
		if (!depends_on(s, mod, ins) || s->state != GILK_ACTIVE)
			continue;
		if (gilk_joined(s) && !gilk_still_own(s)) {
			if (!abandon_chain(s, objs, max, *n, k))
				return true;
			continue;
		}
		s->state = GILK_UNSPLICING;
		if (gilk_still_own(s)) {
			objs[(*n)++] = s;
		} else {
			gilk_abandon(s);
			objs[max - 1 - (*k)++] = s;
		}
	}
	return false;
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
	bool more;

	mutex_lock(&gilk_lock);
	xa_for_each(&gilk_splices, i, s)
		max++;
	mutex_unlock(&gilk_lock);
	/* room for a whole site's splices more than were counted: a site
	 * abandoned goes whole, and others may have joined it since
	 */
	max += GILK_JOIN_MAX + 1;
	objs = kvmalloc_array(max, sizeof(*objs), GFP_KERNEL);
	if (!objs) {
		max = DEPENDENTS_SOME;
		objs = kmalloc_array(max, sizeof(*objs), GFP_KERNEL | __GFP_NOFAIL);
	}
	do {
		more = take_dependents(mod, ins, objs, max, &n, &k);
		total += n + k;
		n = gilk_join_take(objs, n);
		gilk_patch_out(objs, n);
		drop_all(objs, n);
		mutex_unlock(&gilk_lock);
		if (k)
			drop_abandoned(objs + max - k, k);
	} while (more);
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
