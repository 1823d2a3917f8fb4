// SPDX-License-Identifier: GPL-2.0
/*
 * Splice objects. RESERVE takes a trampoline page from the module area
 * (module_alloc: within rel32 reach of all kernel text), made read-only and
 * executable at once, so trampolines are only ever written with text_poke.
 * Pages freed by unsplice go back to a small pool after the grace period.
 * SPLICE checks every range, writes the trampolines, and runs the patch
 * protocol. UNSPLICE reverts, waits for synchronize_rcu_tasks(), and only
 * then frees the trampoline and drops the instrument's module reference.
 */
#include <asm/cpufeature.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "gilk_internal.h"
#include "compat.h"
#include "tramp.h"
#include "verify_env.h"

#define EVICT_OFFSET (PAGE_SIZE / 2)
#define POOL_MAX 32

DEFINE_MUTEX(gilk_lock);
struct gilk_splice_obj *gilk_splices[GILK_MAX_SPLICES];

static void *pool[POOL_MAX];
static unsigned int npool;
static DEFINE_PER_CPU(int, gilk_depth);

/*
 * Called by every trampoline but count's, with the splice and the site's
 * registers (NULL from the scratch template: the instrument needs none).
 */
notrace void gilk_entry(struct gilk_splice_obj *s, struct pt_regs *regs)
{
	struct gilk_hit hit;
	int cpu;

	preempt_disable_notrace();
	cpu = smp_processor_id();
	this_cpu_inc(*s->hits);
	if (this_cpu_inc_return(gilk_depth) == 1) {
		hit.ctx.splice = s->id;
		hit.ctx.cpu = cpu;
		hit.ctx.site = s->site;
		hit.ctx.regs = regs;
		hit.ctx.arg = s->arg;
		hit.s = s;
		s->ins->fn(&hit.ctx);
	} else {
		atomic64_inc(&s->missed);
	}
	this_cpu_dec(gilk_depth);
	/*
	 * No reschedule from here: preempt_schedule_notrace() would run
	 * outside the guard, and a splice on it would be hit again from
	 * here, without end (preempt=full). A pending reschedule waits for
	 * the next preemption point, at worst the next interrupt. (This is
	 * preempt_enable_no_resched_notrace(), which modules do not get.)
	 */
	barrier();
	__preempt_count_dec();
	/* Outside the guard and with preemption as the site had it: a BUG
	 * does not come back from here.
	 */
	if (unlikely(s->flags & GILK_SPLICE_BUG))
		gilk_bug_replay(s->site, regs);
}
NOKPROBE_SYMBOL(gilk_entry);

static void *page_get(void)
{
	void *p;

	if (npool)
		return pool[--npool];
	p = gilk_exec_alloc(PAGE_SIZE);
	if (!p)
		return NULL;
	/* Filled with int3 first, so a stray jump into unused bytes traps. */
	memset(p, 0xcc, PAGE_SIZE);
	gilk_ks.set_memory_ro((unsigned long)p, 1);
	gilk_ks.set_memory_x((unsigned long)p, 1);
	return p;
}

static void page_put(void *p)
{
	if (npool < POOL_MAX) {
		/* int3 again, as a new page is: the next splice's unused
		 * bytes must not be an old trampoline (text_mutex is taken
		 * inside)
		 */
		gilk_ks.text_poke_set(p, 0xcc, PAGE_SIZE);
		pool[npool++] = p;
	} else {
		gilk_ks.module_memfree(p);
	}
}

static void obj_free(struct gilk_splice_obj *s)
{
	if (s->page)
		page_put(s->page);
	free_percpu(s->hits);
	kfree(s);
}

int gilk_reserve(struct gilk_reserve *r, const void *owner)
{
	struct gilk_splice_obj *s;
	u32 id;
	int ret = -ENOSPC;

	if (!r->tramp_size || r->tramp_size > EVICT_OFFSET ||
	    r->evict_size > EVICT_OFFSET)
		return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->hits = alloc_percpu(u64);
	mutex_lock(&gilk_lock);
	s->page = page_get();
	if (!s->hits || !s->page) {
		ret = -ENOMEM;
		goto fail;
	}
	for (id = 1; id < GILK_MAX_SPLICES; id++)
		if (!gilk_splices[id])
			break;
	if (id == GILK_MAX_SPLICES)
		goto fail;
	s->id = id;
	s->owner = owner;
	s->tramp = (unsigned long)s->page;
	s->evict_tramp = (unsigned long)s->page + EVICT_OFFSET;
	gilk_splices[id] = s;
	mutex_unlock(&gilk_lock);
	r->id = id;
	r->tramp = s->tramp;
	r->evict_tramp = r->evict_size ? s->evict_tramp : 0;
	r->handler = (unsigned long)gilk_entry;
	r->ctx = (unsigned long)s;
	r->counter = (unsigned long)s->hits;
	return 0;
fail:
	obj_free(s);	/* its page goes back to the pool: under the lock */
	mutex_unlock(&gilk_lock);
	return ret;
}

int gilk_release(u32 id)
{
	struct gilk_splice_obj *s;

	if (!id || id >= GILK_MAX_SPLICES)
		return -EINVAL;
	mutex_lock(&gilk_lock);
	s = gilk_splices[id];
	if (!s || s->state != GILK_RESERVED) {
		mutex_unlock(&gilk_lock);
		return s ? -EBUSY : -ENOENT;
	}
	gilk_splices[id] = NULL;
	obj_free(s);
	mutex_unlock(&gilk_lock);
	return 0;
}

/*
 * A file closed (its process may have died) between RESERVE and SPLICE:
 * its reservations go. Its splices stay: they outlive their maker.
 */
void gilk_release_owner(const void *owner)
{
	unsigned int i;

	mutex_lock(&gilk_lock);
	for (i = 1; i < GILK_MAX_SPLICES; i++) {
		struct gilk_splice_obj *s = gilk_splices[i];

		if (s && s->owner == owner && s->state == GILK_RESERVED) {
			gilk_splices[i] = NULL;
			obj_free(s);
		}
	}
	mutex_unlock(&gilk_lock);
}

static bool overlaps(unsigned long a, u32 alen, unsigned long b, u32 blen)
{
	return a < b + blen && b < a + alen;
}

/* Bytes another active splice owns. */
static bool owned(unsigned long addr, u32 len)
{
	unsigned int i, k;

	for (i = 1; i < GILK_MAX_SPLICES; i++) {
		struct gilk_splice_obj *o = gilk_splices[i];

		if (!o || o->state == GILK_RESERVED)
			continue;
		if (overlaps(addr, len, o->site, o->region_len))
			return true;
		for (k = 0; k < o->npatch; k++)
			if (overlaps(addr, len, o->patch[k].addr, o->patch[k].len))
				return true;
	}
	return false;
}

static int check_request(struct gilk_splice_obj *s, struct gilk_splice *req,
			 struct gilk_instrument *ins)
{
	unsigned long replayed;
	u32 i;
	int ret;

	if ((req->flags & ~(GILK_SPLICE_TRAP | GILK_SPLICE_BUG | GILK_SPLICE_FULL)) ||
	    req->npatch > GILK_MAX_PATCHES || req->tramp_len > GILK_TRAMP_MAX ||
	    req->evict_len > GILK_TRAMP_MAX || !req->tramp_len ||
	    !req->region_len || req->region_len > GILK_PATCH_MAX_LEN ||
	    ((req->flags & GILK_SPLICE_TRAP) ? req->npatch != 0 : req->npatch == 0)) {
		snprintf(req->reason, sizeof(req->reason), "malformed splice request");
		return -EINVAL;
	}
	replayed = (req->flags & GILK_SPLICE_BUG) ? req->site : 0;
	ret = gilk_check_range(req->site, req->region_len, req->region_orig, ins,
			       req->reason, sizeof(req->reason));
	if (!ret && replayed)
		ret = gilk_bug_check_replayed(replayed, req->reason, sizeof(req->reason));
	if (!ret)
		ret = gilk_bug_check(req->site, req->region_len, replayed,
				     req->reason, sizeof(req->reason));
	if (ret)
		return ret;
	if (owned(req->site, req->region_len)) {
		snprintf(req->reason, sizeof(req->reason), "another splice owns bytes at %pS", (void *)req->site);
		return -EADDRNOTAVAIL;
	}
	for (i = 0; i < req->npatch; i++) {
		struct gilk_patch *p = &req->patch[i];

		/* where a live patch's divert goes, the checker decides */
		if (p->kind != GILK_PATCH_LIVE && p->kind != GILK_PATCH_DEAD) {
			snprintf(req->reason, sizeof(req->reason), "patch %u: unknown kind %u", i, p->kind);
			return -EINVAL;
		}
		ret = gilk_check_range(p->addr, p->len, p->orig, ins, req->reason,
				       sizeof(req->reason));
		if (!ret)
			ret = gilk_bug_check(p->addr, p->len, replayed, req->reason,
					     sizeof(req->reason));
		if (ret)
			return ret;
		if (owned(p->addr, p->len)) {
			snprintf(req->reason, sizeof(req->reason), "another splice owns bytes at %pS", (void *)p->addr);
			return -EADDRNOTAVAIL;
		}
	}
	/* Last, with every byte known to be what the plan was made from. */
	return gilk_verify_request(s, req, gilk_instrument_needs(ins));
}

/* int3 slots a splice needs while it goes in (trap mode: for good). */
static unsigned int traps_needed(const struct gilk_splice_obj *s)
{
	unsigned int i, n = 0;

	if (s->flags & GILK_SPLICE_TRAP)
		return 1;
	for (i = 0; i < s->npatch; i++)
		n += s->patch[i].kind == GILK_PATCH_LIVE;
	return n;
}

/*
 * Takes a reference on the module whose text the request patches (NULL for
 * the core kernel), before anything is checked there, and makes sure every
 * patch lies in that same module's core text: not its init text, which is
 * freed after init, nor another module's.
 */
static int pin_text_module(struct gilk_splice *req, struct module **out)
{
	struct module *mod;
	int ret = 0;
	u32 i;

	preempt_disable();
	mod = gilk_ks.module_address(req->site);
	if (mod && !try_module_get(mod)) {
		snprintf(req->reason, sizeof(req->reason), "the module at %pS is going away",
			 (void *)req->site);
		ret = -ENOENT;
	}
	preempt_enable();
	if (ret)
		return ret;
	*out = mod;
	if (mod && within_module_init(req->site, mod)) {
		snprintf(req->reason, sizeof(req->reason), "%pS is module init text, freed after init",
			 (void *)req->site);
		return -EFAULT;
	}
	for (i = 0; i < req->npatch && i < GILK_MAX_PATCHES; i++) {
		unsigned long a = req->patch[i].addr;
		struct module *m;

		preempt_disable();
		m = gilk_ks.module_address(a);
		if (m == mod && req->patch[i].len)
			m = gilk_ks.module_address(a + req->patch[i].len - 1);
		preempt_enable();
		if (m != mod || (mod && within_module_init(a, mod))) {
			snprintf(req->reason, sizeof(req->reason), "patch %u at 0x%lx is outside the spliced %s",
				 i, a, mod ? "module's text" : "kernel text");
			return -EXDEV;
		}
	}
	return 0;
}

/*
 * Checks req against its reservation and takes what the splice holds (the
 * instrument, the spliced module); on success the splice owns its bytes
 * (SPLICING) but nothing is written yet. gilk_lock held.
 */
static int claim(struct gilk_splice *req, struct gilk_splice_obj **out)
{
	struct gilk_instrument *ins;
	struct gilk_splice_obj *s;
	u32 i;
	int ret;

	req->instrument[GILK_NAME_MAX - 1] = 0;
	req->arg[GILK_ARG_MAX - 1] = 0;
	if (!req->id || req->id >= GILK_MAX_SPLICES) {
		snprintf(req->reason, sizeof(req->reason), "no reservation %u", req->id);
		return -EINVAL;
	}
	s = gilk_splices[req->id];
	ret = !s ? -ENOENT : s->state != GILK_RESERVED ? -EBUSY : 0;
	if (ret) {
		snprintf(req->reason, sizeof(req->reason), "reservation %u %s", req->id,
			 ret == -ENOENT ? "does not exist" : "is already spliced");
		return ret;
	}
	ins = gilk_instrument_get(req->instrument);
	if (!ins) {
		snprintf(req->reason, sizeof(req->reason), "no instrument '%s'", req->instrument);
		return -ENOENT;
	}
	/* The spliced module first: it must not go away while it is checked. */
	ret = pin_text_module(req, &s->text_mod);
	if (!ret)
		ret = check_request(s, req, ins);
	if (ret)
		goto fail;
	s->site = req->site;
	s->flags = req->flags;
	s->region_len = req->region_len;
	s->tramp_len = req->tramp_len;
	s->evict_len = req->evict_len;
	memcpy(s->region_orig, req->region_orig, sizeof(s->region_orig));
	s->ins = ins;
	strscpy(s->arg, req->arg, sizeof(s->arg));
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
	s->state = GILK_SPLICING;
	*out = s;
	return 0;
fail:
	module_put(s->text_mod);
	s->text_mod = NULL;
	gilk_instrument_put(ins);
	return ret;
}

static void unclaim(struct gilk_splice_obj *s)
{
	s->state = GILK_RESERVED;
	module_put(s->text_mod);
	s->text_mod = NULL;
	gilk_instrument_put(s->ins);
	s->ins = NULL;
}

/* Trampolines, dead slots, then int3s: all that goes before the wait. */
static void begin(struct gilk_splice_obj *s, const struct gilk_splice *req)
{
	static const u8 int3 = 0xcc;

	gilk_poke_locked(s->tramp, req->tramp, req->tramp_len);
	if (req->evict_len)
		gilk_poke_locked(s->evict_tramp, req->evict, req->evict_len);
	if (s->flags & GILK_SPLICE_TRAP) {
		gilk_trap_add(s->site, s->tramp);
		gilk_poke_locked(s->site, &int3, 1);
	} else {
		gilk_patch_begin(s->patch, s->npatch);
	}
}

/* Whether the live bytes at addr are want, with no kprobe on or just before. */
static bool holds(unsigned long addr, const u8 *want, u32 len)
{
	u8 now[GILK_PATCH_MAX_LEN];

	return !copy_from_kernel_nofault(now, (void *)addr, len) &&
	       !memcmp(now, want, len) && !gilk_kprobe_near(addr, len);
}

/*
 * Whether the bytes a claimed splice will write over are still the ones it
 * was checked against, with no kprobe come since: the checks ran without
 * text_mutex, and another patcher may have written in between. text_mutex
 * held from here until the int3s are in.
 */
static bool unchanged(const struct gilk_splice_obj *s, char *reason, size_t rlen)
{
	u32 i;

	if (!holds(s->site, s->region_orig, s->region_len))
		goto changed;
	for (i = 0; i < s->npatch; i++)
		if (!holds(s->patch[i].addr, s->patch[i].orig, s->patch[i].len))
			goto changed;
	return true;
changed:
	snprintf(reason, rlen, "another patcher changed the bytes at %pS after they were checked",
		 (void *)s->site);
	return false;
}

int gilk_splice_batch(struct gilk_splice *reqs, u32 n, u32 *failed)
{
	struct gilk_splice_obj **objs;
	unsigned int need = 0;
	bool wait = false;
	u32 i;
	int ret = 0;

	if (!n || n > GILK_BATCH_MAX)
		return -EINVAL;
	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	mutex_lock(&gilk_lock);
	/*
	 * All or nothing: every request is checked (and sees the bytes the
	 * earlier ones claimed) before any byte is written.
	 */
	for (i = 0; i < n && !ret; i++) {
		ret = claim(&reqs[i], &objs[i]);
		if (!ret)
			need += traps_needed(objs[i]);
	}
	if (!ret && need > gilk_traps_free()) {
		ret = -ENOSPC;
		i = n;
		snprintf(reqs[0].reason, sizeof(reqs[0].reason), "no room for %u more int3 diverts", need);
	}
	if (ret) {
		*failed = i - 1;
		while (i-- > 0)
			if (objs[i])
				unclaim(objs[i]);
		mutex_unlock(&gilk_lock);
		kfree(objs);
		return ret;
	}
	mutex_lock(gilk_ks.text_mutex);
	for (i = 0; i < n && !ret; i++)
		if (!unchanged(objs[i], reqs[i].reason, sizeof(reqs[i].reason)))
			ret = -EBUSY;
	if (ret) {
		mutex_unlock(gilk_ks.text_mutex);
		*failed = i - 1;
		for (i = 0; i < n; i++)
			unclaim(objs[i]);
		mutex_unlock(&gilk_lock);
		kfree(objs);
		return ret;
	}
	for (i = 0; i < n; i++) {
		begin(objs[i], &reqs[i]);
		wait |= !(objs[i]->flags & GILK_SPLICE_TRAP);
	}
	mutex_unlock(gilk_ks.text_mutex);
	/* Others may splice while the grace period passes, and share it. */
	mutex_unlock(&gilk_lock);
	if (wait)
		synchronize_rcu_tasks();
	mutex_lock(&gilk_lock);
	for (i = 0; i < n; i++) {
		if (!(objs[i]->flags & GILK_SPLICE_TRAP))
			gilk_patch_finish(objs[i]->patch, objs[i]->npatch);
		WRITE_ONCE(objs[i]->state, GILK_ACTIVE);
	}
	mutex_unlock(&gilk_lock);
	kfree(objs);
	return 0;
}

int gilk_splice(struct gilk_splice *req)
{
	u32 failed;

	return gilk_splice_batch(req, 1, &failed);
}

/*
 * Whether the bytes a splice wrote are still its own, with no kprobe on or
 * just before them: another patcher that came since saved gilk's bytes as
 * the original ones, and would put them back after gilk restored its own.
 */
static bool still_own(const struct gilk_splice_obj *s)
{
	u8 now[GILK_PATCH_MAX_LEN];
	u32 i;

	/* no kprobe can sit on gilk's int3 (kprobes refuse another's int3) */
	if (s->flags & GILK_SPLICE_TRAP)
		return !copy_from_kernel_nofault(now, (void *)s->site, 1) &&
		       now[0] == 0xcc;
	for (i = 0; i < s->npatch; i++)
		if (!holds(s->patch[i].addr, s->patch[i].bytes, s->patch[i].len))
			return false;
	return true;
}

/* The live patch at the site: the first to go. */
static struct gilk_patch_state *site_patch(struct gilk_splice_obj *s)
{
	u32 i;

	for (i = 0; i < s->npatch; i++)
		if (s->patch[i].addr == s->site)
			return &s->patch[i];
	return NULL;
}

/*
 * Unsplicing happens in two steps, each followed by a grace period. First
 * the site: after it, nothing new enters the splice. Then an evicted
 * neighbour that holds the bounce slot: a task may sit between the site's
 * jmp rel8 and the slot's jmp (interrupted or preempted there) until the
 * first grace period has passed, and must find the slot still there.
 */
static void revert_site(struct gilk_splice_obj *s)
{
	if (s->flags & GILK_SPLICE_TRAP) {
		gilk_poke(s->site, s->region_orig, 1);
		gilk_trap_del(s->site);
	} else {
		gilk_patch_revert(site_patch(s), 1);
	}
}

/* Returns whether a live host (an evicted neighbour) was reverted. */
static bool revert_host(struct gilk_splice_obj *s)
{
	u32 i;
	bool any = false;

	for (i = 0; i < s->npatch; i++) {
		if (s->patch[i].addr == s->site || s->patch[i].kind != GILK_PATCH_LIVE)
			continue;
		gilk_patch_revert(&s->patch[i], 1);
		any = true;
	}
	return any;
}

/* After the grace periods: dead slots back, then the memory and the module. */
static void finish(struct gilk_splice_obj *s)
{
	u32 i;

	for (i = 0; i < s->npatch; i++)
		if (s->patch[i].kind == GILK_PATCH_DEAD)
			gilk_poke(s->patch[i].addr, s->patch[i].orig, s->patch[i].len);
	gilk_instrument_put(s->ins);
	module_put(s->text_mod);
	obj_free(s);
}

/* Reverts n splices (UNSPLICING) in the two steps; gilk_lock not held. */
static void unsplice_objs(struct gilk_splice_obj **objs, u32 n)
{
	bool hosts = false;
	u32 i;

	mutex_lock(&gilk_lock);
	for (i = 0; i < n; i++)
		revert_site(objs[i]);
	mutex_unlock(&gilk_lock);
	/* No task is in a trampoline, or on its way to one, after this. */
	synchronize_rcu_tasks();
	mutex_lock(&gilk_lock);
	for (i = 0; i < n; i++)
		hosts |= revert_host(objs[i]);
	mutex_unlock(&gilk_lock);
	if (hosts)
		synchronize_rcu_tasks();
	mutex_lock(&gilk_lock);
	for (i = 0; i < n; i++) {
		gilk_splices[objs[i]->id] = NULL;
		finish(objs[i]);
	}
	mutex_unlock(&gilk_lock);
}

int gilk_unsplice_batch(const u32 *ids, u32 n, u32 *failed)
{
	struct gilk_splice_obj **objs;
	u32 i;
	int ret = 0;

	if (!n || n > GILK_BATCH_MAX)
		return -EINVAL;
	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	mutex_lock(&gilk_lock);
	for (i = 0; i < n; i++) {
		struct gilk_splice_obj *s = ids[i] && ids[i] < GILK_MAX_SPLICES ?
					    gilk_splices[ids[i]] : NULL;

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
		*failed = i;
		while (i-- > 0)
			objs[i]->state = GILK_ACTIVE;
		mutex_unlock(&gilk_lock);
		kfree(objs);
		return ret;
	}
	mutex_unlock(&gilk_lock);
	unsplice_objs(objs, n);
	kfree(objs);
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
 * call into gilk (a jmp over the header to the relocated code, written with
 * the kernel's own int3-protected text_poke_bp()), and is never freed. A
 * BUG site's goes to the int3 after the trampoline instead: a BUG must still
 * stop the kernel. Never a trap-mode splice: its int3 is always its own.
 */
void gilk_abandon(struct gilk_splice_obj *s)
{
	struct gilk_tramp_params tp = {
		s->tramp_kind, s->tramp, s->site, (unsigned long)s,
		(unsigned long)gilk_entry, boot_cpu_has(X86_FEATURE_SMAP),
		(unsigned long)s->hits
	};
	u8 hdr[GILK_TRAMP_HEADER_MAX], jmp[5] = { 0xe9 };
	unsigned long to = s->tramp + gilk_tramp_header(hdr, &tp);
	s32 rel;

	if (s->flags & GILK_SPLICE_BUG && gilk_bug_kind(s->site) == GILK_BUG)
		to = s->tramp + s->tramp_len;
	rel = (s32)(to - (s->tramp + sizeof(jmp)));
	memcpy(jmp + 1, &rel, 4);
	mutex_lock(gilk_ks.text_mutex);
	gilk_ks.text_poke_bp((void *)s->tramp, jmp, sizeof(jmp), NULL);
	mutex_unlock(gilk_ks.text_mutex);
	pr_warn("gilk: splice %u at %pS left in place without its instrument: another patcher changed its bytes\n",
		s->id, (void *)s->site);
	s->page = NULL;		/* its trampoline lives on */
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
	unsigned int i;

	for (i = 1; i < GILK_MAX_SPLICES; i++) {
		const struct gilk_splice_obj *s = gilk_splices[i];

		if (s && (s->state == GILK_SPLICING || s->state == GILK_UNSPLICING) &&
		    depends_on(s, mod, ins))
			return true;
	}
	return false;
}

/*
 * Removes the active splices that depend on mod or ins (all of them when
 * both are NULL, at unload, which also frees reservations): reverted where
 * their bytes are their own, abandoned where another patcher holds them.
 * One pair of grace periods for the lot.
 */
static void unsplice_dependents(const struct module *mod,
				const struct gilk_instrument *ins)
{
	struct gilk_splice_obj **objs;
	unsigned int i, n = 0, k = 0;

	objs = kcalloc(GILK_MAX_SPLICES, sizeof(*objs), GFP_KERNEL | __GFP_NOFAIL);
	for (;;) {
		mutex_lock(&gilk_lock);
		if (!settling(mod, ins))
			break;
		mutex_unlock(&gilk_lock);
		msleep(20);
	}
	for (i = 1; i < GILK_MAX_SPLICES; i++) {
		struct gilk_splice_obj *s = gilk_splices[i];

		if (!s || !depends_on(s, mod, ins))
			continue;
		if (s->state != GILK_ACTIVE) {
			if (!mod && !ins) {
				gilk_splices[i] = NULL;
				obj_free(s);
			}
			continue;
		}
		s->state = GILK_UNSPLICING;
		if (still_own(s)) {
			objs[n++] = s;
		} else {
			gilk_abandon(s);
			objs[GILK_MAX_SPLICES - 1 - k++] = s;
		}
	}
	mutex_unlock(&gilk_lock);
	if (n)
		unsplice_objs(objs, n);
	if (k) {
		synchronize_rcu_tasks();	/* no task still in a header */
		mutex_lock(&gilk_lock);
		for (i = 0; i < k; i++) {
			struct gilk_splice_obj *s = objs[GILK_MAX_SPLICES - 1 - i];

			gilk_splices[s->id] = NULL;
			gilk_instrument_put(s->ins);
			module_put(s->text_mod);
			obj_free(s);
		}
		mutex_unlock(&gilk_lock);
	}
	if (n + k && (mod || ins))
		pr_info("gilk: %s %s is going: %u splices removed\n", mod ? "module" : "instrument",
			mod ? mod->name : ins->name, n + k);
	kfree(objs);
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
	while (npool)
		gilk_ks.module_memfree(pool[--npool]);
	mutex_unlock(&gilk_lock);
}

void gilk_splice_info(const struct gilk_splice_obj *s, struct gilk_splice_info *out)
{
	u32 i;
	int cpu;

	memset(out, 0, sizeof(*out));
	out->id = s->id;
	out->flags = s->flags;
	out->site = s->site;
	for_each_possible_cpu(cpu)
		out->hits += *per_cpu_ptr(s->hits, cpu);
	out->lost = atomic64_read(&s->lost);
	out->missed = atomic64_read(&s->missed);
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
}
