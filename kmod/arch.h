/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files every architecture shares call in arch/NAME/: patching
 * the text, checking a request, finding the code a CPU's bring-up and idle
 * run. kmod/Kbuild builds one architecture's folder; its arch_defs.h
 * (included first, by gilk_internal.h) holds what must stay inline.
 */
#ifndef _GILK_ARCH_H
#define _GILK_ARCH_H

#include <linux/types.h>

struct gilk_splice_obj;
struct gilk_splice;
struct gilk_why;
struct gilk_facts;
struct gilk_fact;
struct gilk_traps;

/* patch.c and pokes.c: the patch protocol. */
int gilk_patch_init(void);
void gilk_patch_exit(void);
/* kprobe_mutex then text_mutex: patch.c says why both. */
void gilk_text_lock(void);
void gilk_text_unlock(void);
/* The rest of these need the text lock held (or text_mutex, to write
 * gilk's own trampolines).
 */
void gilk_poke_locked(unsigned long addr, const void *bytes, size_t len);
void gilk_poke_sync(void);
/* gilk's own executable memory [addr, addr + len) filled with c; takes text_mutex itself. */
void gilk_text_fill(unsigned long addr, u8 c, size_t len);
/*
 * Writes queued and written a page at a time (pokes.c), each queue flushed
 * before text_mutex is dropped; gilk_pokes_sync() flushes, then syncs.
 */
struct gilk_pokes {
	u8 *page;		/* the run's page as it will be; NULL: no runs */
	unsigned long lo, hi;	/* the run, in one page; lo == hi: none */
};

void gilk_pokes_begin(struct gilk_pokes *pk);
void gilk_pokes_add(struct gilk_pokes *pk, unsigned long addr, const void *bytes, size_t len);
void gilk_pokes_flush(struct gilk_pokes *pk);
void gilk_pokes_sync(struct gilk_pokes *pk);
void gilk_pokes_end(struct gilk_pokes *pk);
/* Writes kept with their bytes, to be written under one text_mutex hold. */
struct gilk_poke_log {
	u8 *buf;		/* NULL: each write at once */
	size_t used;
};

void gilk_poke_log_begin(struct gilk_poke_log *log);
void gilk_poke_log_add(struct gilk_poke_log *log, unsigned long addr, const void *bytes,
		       size_t len);
void gilk_poke_log_write(struct gilk_poke_log *log);
void gilk_poke_log_end(struct gilk_poke_log *log, bool drop);
/* Whether the live bytes at addr are want, with no kprobe on or just before. */
bool gilk_text_holds(unsigned long addr, const u8 *want, u32 len);
struct gilk_traps *gilk_traps_alloc(unsigned int n);
void gilk_traps_add(struct gilk_traps *t, unsigned long addr, unsigned long divert);
void gilk_traps_arm(struct gilk_traps *t);
void gilk_traps_disarm(struct gilk_traps *t);
void gilk_traps_free(struct gilk_traps *t);

/*
 * patch.c: the patch protocol for a batch of splices. In: claimed, their
 * trampolines written, gilk_lock held (dropped across the grace period,
 * held again on return); on failure nothing of theirs is left in the text
 * or in their trampolines, *failed is the index of the one refused, and
 * the caller unclaims. Out: for splices whose bytes are still their own,
 * with gilk_lock and the text lock held since that was seen; returns with
 * gilk_lock held alone, everything reverted, no task in their trampolines.
 */
int gilk_patch_in(struct gilk_splice_obj **objs, u32 n, struct gilk_why *why, u32 *failed);
void gilk_patch_out(struct gilk_splice_obj **objs, u32 n);
/* A jmp rel32 rewritten in place, and where its int3 sends a CPU meanwhile. */
struct gilk_rewrite {
	unsigned long addr, divert;
	u8 bytes[GILK_JMP32_LEN];
};
/* The text lock held: int3s, the rest, the first bytes, a sync after each. */
void gilk_patch_rewrite(const struct gilk_rewrite *w, unsigned int n);

/* verify_kernel.c: the code checker (verify.c) on a request, in the kernel. */
/* On success, s->tramp_kind is the template accepted. */
struct gilk_walk_memo;
/*
 * memo: kept across the requests of one batch (or NULL), see verify_env.h;
 * join_to: a GILK_SPLICE_JOIN request's trampoline jumps on to it (else 0)
 */
int gilk_verify_request(struct gilk_splice_obj *s, struct gilk_splice *req,
			u32 needs, struct gilk_walk_memo *memo, unsigned long join_to);

/*
 * lifecycle.c: the code that runs before a CPU's per-CPU base is set
 * (early-cpu) or while RCU does not watch it (rcu-idle), found at load.
 */
int gilk_lifecycle_init(void);
void gilk_lifecycle_exit(void);
void gilk_lifecycle_facts(struct gilk_facts *f, struct gilk_fact *out,
			  unsigned long lo, unsigned long hi);
void gilk_lifecycle_counts(u32 *early_cpu, u32 *rcu_idle);

/*
 * leaving.c: calls add(ctx, target) for each direct branch of [lo, hi) that leaves it
 * (calls and tail jumps too), and each label of a computed goto's table it
 * loads that does, decoded from the text as it was before gilk and kprobes;
 * a byte that does not decode is stepped over. 0, or add()'s error.
 */
int gilk_leaving_targets(unsigned long lo, unsigned long hi,
			 int (*add)(void *ctx, unsigned long t), void *ctx);

/* counter.c: whether the tsc template can read the counter inline (GILK_NEEDS_TSC). */
bool gilk_arch_counter_inline(void);

/*
 * thunks.c: a retpoline, return thunk or other thunk gilk's path runs
 * through (by address, or by its symbol's name).
 */
bool gilk_is_thunk(unsigned long a);
bool gilk_thunk_name(const char *name);

/* kprobe_overlay.c: the bytes kprobes in [addr, addr + len) hide, put back in buf. */
void gilk_arch_overlay_kprobes(unsigned long addr, u8 *buf, size_t len);

/*
 * abandon.c: an abandoned splice's trampoline made to skip its call into
 * gilk (a BUG site's to trap there); false where its template calls
 * nothing (inline count, count_task, tsc). The text lock held.
 */
bool gilk_arch_tramp_skip_call(struct gilk_splice_obj *s);

/* alternatives.c: nonzero where [lo, hi) holds an SMP alternatives site. */
int gilk_alt_reserved(unsigned long lo, unsigned long hi);

/*
 * stubs.c: the stub gilk calls a kernel helper through, pointed at target
 * (0, or an error said with the helper's name); then, once all are, every
 * CPU made to see them.
 */
int gilk_arch_point_stub(char *stub, unsigned long target, const char *name);
void gilk_arch_stubs_sync(void);

/* join_at.c: the jmp a splice's chain is entered by (0: trap mode, none). */
unsigned long gilk_join_at_of(const struct gilk_splice_obj *s);

/* sites.c: the bytes the jump label site at code holds now (GILK_JUMP_SITE_MAX at most). */
u32 gilk_jump_site_len(unsigned long code);

#endif
