// SPDX-License-Identifier: GPL-2.0
/*
 * Splice objects, in an xarray by id (they grow without a fixed limit), and
 * in another by the start of every range of bytes they own, so whether
 * bytes are owned is a lookup whatever the number of splices. RESERVE takes
 * trampoline memory sized to what the plan holds (trampmem.c). SPLICE
 * checks every request of a batch (any number), writes the trampolines,
 * and runs the patch protocol for all of them with one grace period, all or
 * none. UNSPLICE is unsplice.c's; the hit path, hitpath.c's.
 */
#include <asm/cpufeature.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"
#include "compat.h"
#include "gilk_tramp.h"
#include "verify_env.h"

/*
 * A splice object fits kmalloc-512: the whole kernel's coverage is half a
 * million of them, which a 1 GiB machine holds in 512-byte slots and not
 * in 1 KiB ones (its argument and name, mostly "coverage" and a
 * function's, are kept apart).
 */
static_assert(sizeof(struct gilk_splice_obj) <= 512);

static const char no_text[] = "";

const char *gilk_text_keep(const char *text, size_t max)
{
	return text[0] ? kstrndup(text, max - 1, GFP_KERNEL_ACCOUNT) : no_text;
}

void gilk_text_free(const char *text)
{
	if (text != no_text)
		kfree(text);
}

void gilk_obj_drop_program(struct gilk_splice_obj *s)
{
	kfree(s->filter);
	s->filter = NULL;
	kfree(s->fetch);
	s->fetch = NULL;
	gilk_agg_free(s->agg);
	s->agg = NULL;
}

DEFINE_MUTEX(gilk_lock);
DEFINE_XARRAY_ALLOC1(gilk_splices);
static u32 gilk_next_id;	/* under gilk_lock */
DEFINE_XARRAY(gilk_owned);

void gilk_obj_free(struct gilk_splice_obj *s)
{
	if (s->tramp)
		gilk_tramp_free(s->tramp, s->tramp_size);
	if (s->evict_tramp)
		gilk_tramp_free(s->evict_tramp, s->evict_size);
	gilk_traps_free(s->trap);
	free_percpu(s->counts);
	gilk_text_free(s->arg);
	gilk_text_free(s->site_name);
	kfree(s->filter);
	kfree(s->fetch);
	gilk_agg_free(s->agg);
	/* no trampoline writes it any more: what it holds becomes events
	 * (a husk's hits since it was removed are no one's)
	 */
	if (!s->husk)
		gilk_tsc_ring_drain(s, true);
	gilk_tsc_ring_free(s->tsc_ring);
	/* textread.c may still be reading its original bytes, unlocked */
	kfree_rcu(s, rcu);
}

int gilk_reserve(struct gilk_reserve *r, const void *owner)
{
	struct gilk_splice_obj *s;
	u32 id;
	int ret;

	if (!r->tramp_size || r->tramp_size > GILK_TRAMP_MAX ||
	    r->evict_size > GILK_TRAMP_MAX || r->flags & ~GILK_RESERVE_TSC_RING)
		return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->counts = alloc_percpu(struct gilk_counts);
	if (s->counts) {
		s->hits = &s->counts->hits;
		s->filtered = &s->counts->filtered;
	}
	if (r->flags & GILK_RESERVE_TSC_RING) {
		struct gilk_tsc_ring *ring = gilk_tsc_ring_alloc();

		if (IS_ERR(ring)) {
			gilk_obj_free(s);
			return PTR_ERR(ring);
		}
		s->tsc_ring = ring;
	}
	s->owner = owner;
	s->tramp_size = r->tramp_size;
	s->evict_size = r->evict_size;
	/* behind a batch of thousands, a wait a signal may end */
	if (mutex_lock_killable(&gilk_lock)) {
		gilk_obj_free(s);
		return -EINTR;
	}
	s->tramp = gilk_tramp_alloc(s->tramp_size);
	if (s->evict_size)
		s->evict_tramp = gilk_tramp_alloc(s->evict_size);
	/*
	 * Ids count up, as gdb's breakpoint numbers do, and are not given
	 * again while gilk.ko is loaded (until 2^31 wrap): events a removed
	 * splice left in the buffer must not be read as a later splice's,
	 * with its instrument's layout. 1: the ids wrapped, not an error.
	 */
	ret = !s->counts || !s->tramp || (s->evict_size && !s->evict_tramp) ? -ENOMEM :
	      xa_alloc_cyclic(&gilk_splices, &id, s, xa_limit_31b, &gilk_next_id,
			      GFP_KERNEL);
	if (ret == 1)
		ret = 0;
	if (ret) {
		gilk_obj_free(s);	/* its trampolines go back: under the lock */
		mutex_unlock(&gilk_lock);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	s->id = id;
	if (s->tsc_ring)
		xa_set_mark(&gilk_splices, id, GILK_MARK_TSC_RING);
	mutex_unlock(&gilk_lock);
	r->id = id;
	r->tramp = s->tramp;
	r->evict_tramp = s->evict_tramp;
	r->handler = (unsigned long)gilk_entry;
	r->ctx = (unsigned long)s;
	r->counter = (unsigned long)s->hits;
	r->tsc_ring = (unsigned long)s->tsc_ring;
	r->cpu_number = gilk_cpu_number_addr();
	r->preempt_count = gilk_preempt_count_addr();
	r->current_task = gilk_current_task_addr();
	r->task_pid = gilk_task_pid_offset();
	r->task_tgid = offsetof(struct task_struct, tgid);
	r->task_comm = offsetof(struct task_struct, comm);
	r->filtered = (unsigned long)s->filtered;
	return 0;
}

int gilk_release(u32 id, const void *owner)
{
	struct gilk_splice_obj *s;

	if (!id)
		return -EINVAL;
	if (mutex_lock_killable(&gilk_lock))
		return -EINTR;
	s = xa_load(&gilk_splices, id);
	if (!s || s->state != GILK_RESERVED || s->owner != owner) {
		mutex_unlock(&gilk_lock);
		return !s ? -ENOENT : s->state != GILK_RESERVED ? -EBUSY : -EPERM;
	}
	xa_erase(&gilk_splices, id);
	gilk_obj_free(s);
	mutex_unlock(&gilk_lock);
	return 0;
}

/*
 * A file closed (its process may have died) between RESERVE and SPLICE:
 * its reservations go. Its splices stay: they outlive their maker, whose
 * process their filters' GILK_FF_SELF no longer names.
 */
void gilk_release_owner(const void *owner)
{
	struct gilk_splice_obj *s;
	unsigned long i;

	mutex_lock(&gilk_lock);
	xa_for_each(&gilk_splices, i, s) {
		if (s->owner != owner)
			continue;
		if (s->state == GILK_RESERVED) {
			xa_erase(&gilk_splices, i);
			gilk_obj_free(s);
		} else if (s->filter) {
			/* kept past its session: its self is gone, and its
			 * pid may be anyone's next
			 */
			WRITE_ONCE(s->filter->self, 0);
		}
	}
	mutex_unlock(&gilk_lock);
}

int gilk_stats(struct gilk_stats *st)
{
	struct gilk_splice_obj *s;
	unsigned long i;

	memset(st, 0, sizeof(*st));
	if (mutex_lock_killable(&gilk_lock))
		return -EINTR;
	xa_for_each(&gilk_splices, i, s) {
		if (s->state == GILK_RESERVED)
			st->reserved++;
		else if (s->state != GILK_HUSK)
			st->splices++;
	}
	gilk_tramp_stats(&st->tramp_bytes, &st->tramp_mapped);
	st->tsc_ring_bytes = gilk_tsc_rings_bytes();
	mutex_unlock(&gilk_lock);
	gilk_lifecycle_counts(&st->early_cpu_fns, &st->rcu_idle_fns);
	return 0;
}

static bool overlaps(unsigned long a, u32 alen, unsigned long b, u32 blen)
{
	return a < b + blen && b < a + alen;
}

static bool obj_overlaps(const struct gilk_splice_obj *o, unsigned long addr, u32 len)
{
	u32 k;

	if (overlaps(addr, len, o->site, o->region_len))
		return true;
	for (k = 0; k < o->npatch; k++)
		if (overlaps(addr, len, o->patch[k].addr, o->patch[k].len))
			return true;
	return false;
}

/*
 * Bytes another splice owns (one on its way in or out too). Every range a
 * splice owns is at most GILK_PATCH_MAX_LEN long, so one that overlaps
 * [addr, addr + len) starts no lower than that before addr.
 */
/* The splice that owns a byte of [addr, addr + len), or NULL. */
static struct gilk_splice_obj *owned(unsigned long addr, u32 len)
{
	struct gilk_splice_obj *o;
	unsigned long i;

	xa_for_each_range(&gilk_owned, i, o, addr - GILK_PATCH_MAX_LEN, addr + len - 1)
		if (obj_overlaps(o, addr, len))
			return o;
	return NULL;
}

void gilk_disown(struct gilk_splice_obj *s)
{
	u32 k;

	xa_cmpxchg(&gilk_owned, s->site, s, NULL, 0);
	for (k = 0; k < s->npatch; k++)
		xa_cmpxchg(&gilk_owned, s->patch[k].addr, s, NULL, 0);
}

/* Fails only for want of memory; nothing stays owned then. */
static int own(struct gilk_splice_obj *s)
{
	int ret = xa_err(xa_store(&gilk_owned, s->site, s, GFP_KERNEL));
	u32 k;

	for (k = 0; k < s->npatch && !ret; k++)
		ret = xa_err(xa_store(&gilk_owned, s->patch[k].addr, s, GFP_KERNEL));
	if (ret)
		gilk_disown(s);
	return ret;
}

static int check_request(struct gilk_splice_obj *s, struct gilk_splice *req,
			 struct gilk_instrument *ins, struct gilk_walk_memo *memo)
{
	struct gilk_why *why = &GILK_WHY(req);
	struct gilk_splice_obj *owner;
	unsigned long replayed;
	u32 i;
	int ret;

	if ((req->flags & ~(GILK_SPLICE_TRAP | GILK_SPLICE_BUG | GILK_SPLICE_FULL |
			    GILK_SPLICE_JOIN)) ||
	    req->npatch > GILK_MAX_PATCHES || req->tramp_len > GILK_TRAMP_MAX ||
	    req->evict_len > GILK_TRAMP_MAX || !req->tramp_len ||
	    !req->region_len || req->region_len > GILK_PATCH_MAX_LEN ||
	    ((req->flags & GILK_SPLICE_TRAP) ? req->npatch != 0 : req->npatch == 0) || req->pad)
		return gilk_refuse(why, GILK_REFUSED_MALFORMED, "malformed splice request");
	ret = gilk_filter_check(&req->filter, why);
	if (!ret)
		ret = gilk_fetch_check(&req->fetch, ins, &req->agg, why);
	if (!ret)
		ret = gilk_agg_check(&req->agg, ins, &req->fetch, why);
	if (ret)
		return ret;
	if (req->tramp_len > s->tramp_size || req->evict_len > s->evict_size)
		return gilk_refuse(why, GILK_REFUSED_MALFORMED,
				   "trampolines of %u and %u bytes where %u and %u were reserved",
				   req->tramp_len, req->evict_len, s->tramp_size, s->evict_size);
	/*
	 * The site's bytes are its splices' own, their facts checked: what a
	 * joining one adds is its instrument, which must not be the code it
	 * runs at, nor in a module going away
	 */
	if (req->flags & GILK_SPLICE_JOIN) {
		ret = gilk_check_place(req->site, req->region_len, ins, why);
		return ret ? ret : gilk_join_check(s, req, owned(req->site, req->region_len),
						   gilk_instrument_needs(ins), memo);
	}
	replayed = (req->flags & GILK_SPLICE_BUG) ? req->site : 0;
	ret = gilk_check_range(req->site, req->region_len, req->region_orig, ins, why);
	if (!ret && replayed)
		ret = gilk_bug_check_replayed(replayed, why);
	if (!ret)
		ret = gilk_bug_check(req->site, req->region_len, replayed, why);
	if (ret)
		return ret;
	owner = owned(req->site, req->region_len);
	if (owner)
		return gilk_refuse(why, GILK_REFUSED_OCCUPIED,
				   "splice %u owns bytes at %pS", owner->id, (void *)req->site);
	for (i = 0; i < req->npatch; i++) {
		struct gilk_patch *p = &req->patch[i];

		/* where a live patch's divert goes, the checker decides */
		if (p->kind != GILK_PATCH_LIVE && p->kind != GILK_PATCH_DEAD)
			return gilk_refuse(why, GILK_REFUSED_MALFORMED, "patch %u: unknown kind %u",
					   i, p->kind);
		ret = gilk_check_range(p->addr, p->len, p->orig, ins, why);
		if (!ret)
			ret = gilk_bug_check(p->addr, p->len, replayed, why);
		if (ret)
			return ret;
		owner = owned(p->addr, p->len);
		if (owner)
			return gilk_refuse(why, GILK_REFUSED_OCCUPIED,
					   "splice %u owns bytes at %pS", owner->id, (void *)p->addr);
	}
	/* Last, with every byte known to be what the plan was made from. */
	return gilk_verify_request(s, req, gilk_instrument_needs(ins), memo, 0);
}

/*
 * Takes a reference on the module whose text the request patches (NULL for
 * the core kernel), before anything is checked there, and makes sure every
 * patch lies in that same module's core text: not its init text, which is
 * freed after init, nor another module's.
 */
static int pin_text_module(struct gilk_splice *req, struct module **out)
{
	struct gilk_why *why = &GILK_WHY(req);
	struct module *mod;
	int ret = 0;
	u32 i;

	preempt_disable();
	mod = gilk_ks.module_address(req->site);
	if (mod && !try_module_get(mod))
		ret = gilk_refuse(why, GILK_REFUSED_MODULE_GOING, "the module at %pS is going away",
				  (void *)req->site);
	preempt_enable();
	if (ret)
		return ret;
	*out = mod;
	if (mod && within_module_init(req->site, mod))
		return gilk_refuse(why, GILK_REFUSED_INIT_TEXT, "%pS is module init text, freed after init",
				   (void *)req->site);
	for (i = 0; i < req->npatch && i < GILK_MAX_PATCHES; i++) {
		unsigned long a = req->patch[i].addr;
		struct module *m;

		preempt_disable();
		m = gilk_ks.module_address(a);
		if (m == mod && req->patch[i].len)
			m = gilk_ks.module_address(a + req->patch[i].len - 1);
		preempt_enable();
		if (m != mod || (mod && within_module_init(a, mod)))
			return gilk_refuse(why, GILK_REFUSED_OTHER_TEXT,
					   "patch %u at 0x%lx is outside the spliced %s", i, a,
					   mod ? "module's text" : "kernel text");
	}
	return 0;
}

/*
 * Checks req against its reservation and takes what the splice holds (the
 * instrument, the spliced module, its bytes: SPLICING), and puts its
 * trampolines in tramps, to be written with the batch's others; nothing
 * reaches them yet (the sync after the int3s makes them visible to every
 * CPU). gilk_lock held.
 */
static int claim(struct gilk_splice *req, struct gilk_splice_obj **out,
		 struct gilk_walk_memo *memo, struct gilk_poke_log *tramps, const void *owner)
{
	struct gilk_why *why = &GILK_WHY(req);
	struct gilk_instrument *ins;
	struct gilk_splice_obj *s;
	u32 i;
	int ret;

	req->instrument[GILK_NAME_MAX - 1] = 0;
	req->arg[GILK_ARG_MAX - 1] = 0;
	s = req->id ? xa_load(&gilk_splices, req->id) : NULL;
	if (!req->id)
		return gilk_refuse(why, GILK_REFUSED_MALFORMED, "reservation 0 does not exist");
	if (!s)
		return gilk_refuse(why, GILK_REFUSED_NO_RESERVATION, "reservation %u does not exist",
				   req->id);
	if (s->state != GILK_RESERVED)
		return gilk_refuse(why, GILK_REFUSED_SPLICED_ALREADY,
				   "reservation %u is already spliced", req->id);
	/* another file's reservation is not this one's to splice */
	if (s->owner != owner)
		return gilk_refuse(why, GILK_REFUSED_NOT_YOURS,
				   "reservation %u belongs to another open /dev/gilk", req->id);
	ins = gilk_instrument_get(req->instrument);
	if (!ins)
		return gilk_refuse(why, GILK_REFUSED_NO_INSTRUMENT, "no instrument '%s'",
				   req->instrument);
	/* The spliced module first: it must not go away while it is checked. */
	ret = pin_text_module(req, &s->text_mod);
	if (!ret)
		ret = check_request(s, req, ins, memo);
	if (ret)
		goto fail;
	s->site = req->site;
	s->flags = req->flags;
	/* known now, while the site holds the original bytes */
	s->bug_kind = s->flags & GILK_SPLICE_BUG ? gilk_bug_kind(s->site) : GILK_NOT_BUG;
	s->region_len = req->region_len;
	s->tramp_len = req->tramp_len;
	s->evict_len = req->evict_len;
	memcpy(s->region_orig, req->region_orig, sizeof(s->region_orig));
	s->npatch = req->npatch;
	for (i = 0; i < req->npatch; i++) {
		struct gilk_patch_state *p = &s->patch[i];

		p->addr = req->patch[i].addr;
		p->divert = req->patch[i].divert;
		p->len = req->patch[i].len;
		p->kind = req->patch[i].kind;
		memcpy(p->bytes, req->patch[i].bytes, sizeof(p->bytes));
		memcpy(p->orig, req->patch[i].orig, sizeof(p->orig));
	}
	if (s->flags & GILK_SPLICE_TRAP) {
		s->trap = gilk_traps_alloc(1);
		gilk_traps_add(s->trap, s->site, s->tramp);
	}
	s->join_at = s->flags & GILK_SPLICE_JOIN ? 0 : gilk_join_at_of(s);
	if (req->filter.len) {
		s->filter = gilk_filter_keep(&req->filter);
		if (!s->filter) {
			ret = gilk_refuse(why, GILK_REFUSED_NO_MEMORY, "out of memory for the filter");
			goto fail;
		}
	}
	if (req->fetch.len) {
		s->fetch = gilk_fetch_keep(&req->fetch);
		if (!s->fetch) {
			ret = gilk_refuse(why, GILK_REFUSED_NO_MEMORY, "out of memory for the fetch");
			goto fail;
		}
	}
	s->arg = gilk_text_keep(req->arg, sizeof(req->arg));
	s->site_name = gilk_text_keep(req->site_name, sizeof(req->site_name));
	if (!s->arg || !s->site_name) {
		ret = gilk_refuse(why, GILK_REFUSED_NO_MEMORY, "out of memory for the splice's argument");
		goto fail;
	}
	if (req->agg.kind) {
		s->agg = gilk_agg_keep(&req->agg, &req->fetch);
		if (!s->agg) {
			ret = gilk_refuse(why, GILK_REFUSED_NO_MEMORY,
					  "out of memory for the aggregation's maps");
			goto fail;
		}
	}
	/* a joining splice owns no bytes: its site's first splice does */
	if (s->flags & GILK_SPLICE_JOIN) {
		gilk_join_claim(s, owned(s->site, s->region_len));
	} else if (own(s)) {
		ret = gilk_refuse(why, GILK_REFUSED_NO_MEMORY, "out of memory for the ownership index");
		goto fail;
	}
	s->ins = ins;
	gilk_poke_log_add(tramps, s->tramp, req->tramp, req->tramp_len);
	gilk_poke_log_add(tramps, s->evict_tramp, req->evict, req->evict_len);
	s->state = GILK_SPLICING;
	*out = s;
	return 0;
fail:
	gilk_text_free(s->arg);
	s->arg = NULL;
	gilk_text_free(s->site_name);
	s->site_name = NULL;
	gilk_obj_drop_program(s);
	gilk_traps_free(s->trap);
	s->trap = NULL;
	s->npatch = 0;
	module_put(s->text_mod);
	s->text_mod = NULL;
	gilk_instrument_put(ins);
	return ret;
}

static void unclaim(struct gilk_splice_obj *s)
{
	gilk_text_free(s->arg);
	s->arg = NULL;
	gilk_text_free(s->site_name);
	s->site_name = NULL;
	gilk_join_unclaim(s);
	gilk_disown(s);
	s->state = GILK_RESERVED;
	s->npatch = 0;
	gilk_traps_free(s->trap);
	s->trap = NULL;
	module_put(s->text_mod);
	s->text_mod = NULL;
	gilk_instrument_put(s->ins);
	s->ins = NULL;
	/*
	 * No CPU is in its trampoline: none was reached, or the abort waited
	 * for the tasks its int3s sent there
	 */
	gilk_obj_drop_program(s);
}

/* Undoes the claims of objs[0..n): none of their bytes was written. */
static void unclaim_all(struct gilk_splice_obj **objs, u32 n)
{
	while (n-- > 0)
		unclaim(objs[n]);
}

/*
 * Claims every request, copied in one at a time (a batch may be large),
 * and writes their trampolines (packed side by side: a few pages, written
 * a page at a time once all are claimed, or once the log is full); *failed
 * and the reason on failure. What a refused batch's trampolines hold does
 * not matter: nothing reaches reserved memory.
 */
static int claim_all(struct gilk_splice __user *items, u32 n,
		     struct gilk_splice_obj **objs, struct gilk_splice *req,
		     struct gilk_walk_memo *memo, u32 *failed, const void *owner)
{
	struct gilk_poke_log tramps;
	u32 i;
	int ret = 0;

	if (memo)	/* the text may have changed since the last try */
		memset(memo, 0, sizeof(*memo));
	gilk_poke_log_begin(&tramps);

	for (i = 0; i < n; i++) {
		pagefault_disable();
		ret = copy_from_user(req, &items[i], sizeof(*req)) ? -EAGAIN : 0;
		pagefault_enable();
		if (ret)
			break;
		req->reason[0] = 0;
		req->refusal = GILK_REFUSED_NONE;
		ret = claim(req, &objs[i], memo, &tramps, owner);
		if (ret)
			break;
		if (!(i & 63))
			cond_resched();
	}
	/* a claim refused: what the others would have run is wanted no more */
	gilk_poke_log_end(&tramps, ret != 0);
	if (ret) {
		*failed = i;
		unclaim_all(objs, i);
	}
	return ret;
}

int gilk_splice_batch(struct gilk_splice __user *items, u32 n, u32 *failed,
		      const void *owner)
{
	struct gilk_splice_obj **objs;
	struct gilk_walk_memo *memo = NULL;
	struct gilk_splice *req;
	struct gilk_why why;
	u64 t_start = ktime_get_ns();
	u32 i;
	int ret, tries;

	*failed = 0;
	if (!n || n > GILK_BATCH_MAX)
		return -EINVAL;
	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (!objs || !req) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * Where the checker may resume decoding a function: from its start
	 * for every site, a batch over a whole function costs the square of
	 * its length. Without it (no memory), each walk is from the start.
	 */
	if (n > 1)
		memo = kvmalloc(sizeof(*memo), GFP_KERNEL | __GFP_NOWARN);
	/*
	 * The requests are read under gilk_lock, without faulting there: a
	 * page that waits on userfaultfd (or FUSE) would hold every gilk
	 * operation, and every module unload, with it. Faulted in first; if
	 * a page went away meanwhile, again.
	 */
	for (tries = 0;; tries++) {
		if (fault_in_readable((const char __user *)items, (size_t)n * sizeof(*items))) {
			ret = -EFAULT;
			goto out;
		}
		if (mutex_lock_killable(&gilk_lock)) {
			ret = -EINTR;
			goto out;
		}
		/*
		 * All or nothing: every request is checked (and sees the bytes
		 * the earlier ones claimed) before any byte of the kernel's is
		 * written.
		 */
		ret = claim_all(items, n, objs, req, memo, failed, owner);
		if (ret != -EAGAIN)
			break;
		mutex_unlock(&gilk_lock);
		if (tries == 3) {
			ret = -EFAULT;
			goto out;
		}
	}
	if (ret)
		goto unlock;
	/* where a big batch's time goes (dyndbg="+p" at insmod shows it) */
	pr_debug("gilk: checked %u in %llu ms\n", n, (ktime_get_ns() - t_start) / NSEC_PER_MSEC);
	why = GILK_WHY(req);
	ret = gilk_patch_in(objs, n, &why, failed);
	if (ret) {
		unclaim_all(objs, n);
		goto unlock;
	}
	for (i = 0; i < n; i++) {
		WRITE_ONCE(objs[i]->state, GILK_ACTIVE);
		gilk_join_done(objs[i]);
	}
unlock:
	mutex_unlock(&gilk_lock);
	/* The reason goes back to the request refused, with no lock held. */
	if (ret && *failed < n &&
	    (copy_to_user(items[*failed].reason, req->reason, sizeof(req->reason)) ||
	     put_user(req->refusal, &items[*failed].refusal)))
		ret = -EFAULT;
out:
	kvfree(memo);
	kfree(req);
	kvfree(objs);
	return ret;
}

u64 gilk_splice_hits(const struct gilk_splice_obj *s)
{
	u64 hits = gilk_tsc_ring_hits(s);
	int cpu;

	for_each_possible_cpu(cpu)
		hits += *per_cpu_ptr(s->hits, cpu);
	return hits;
}

void gilk_splice_info(const struct gilk_splice_obj *s, struct gilk_splice_info *out)
{
	u32 i;
	int cpu;

	memset(out, 0, sizeof(*out));
	out->id = s->id;
	out->flags = s->flags;
	out->site = s->site;
	out->hits = gilk_splice_hits(s);
	out->lost = atomic64_read(&s->lost);
	out->missed = atomic64_read(&s->missed);
	for_each_possible_cpu(cpu)
		out->filtered += *per_cpu_ptr(s->filtered, cpu);
	out->region_len = s->region_len;
	memcpy(out->region_orig, s->region_orig, sizeof(out->region_orig));
	out->tramp = s->tramp;
	out->tramp_len = s->tramp_len;
	out->evict_tramp = s->evict_len ? s->evict_tramp : 0;
	out->evict_len = s->evict_len;
	out->npatch = s->npatch;
	for (i = 0; i < s->npatch; i++) {
		out->patch[i].addr = s->patch[i].addr;
		out->patch[i].len = s->patch[i].len;
		memcpy(out->patch[i].orig, s->patch[i].orig, sizeof(out->patch[i].orig));
	}
	strscpy(out->instrument, s->ins->name, sizeof(out->instrument));
	strscpy(out->arg, s->arg, sizeof(out->arg));
	strscpy(out->site_name, s->site_name, sizeof(out->site_name));
	if (s->filter)
		strscpy(out->filter, s->filter->text, sizeof(out->filter));
	if (s->fetch)
		out->fetch = *s->fetch;
	if (s->agg)
		gilk_agg_spec(s->agg, &out->agg);
	gilk_join_info(s, out);
}
