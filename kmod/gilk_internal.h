/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between gilk.ko's files; nothing here is ABI. */
#ifndef _GILK_INTERNAL_H
#define _GILK_INTERNAL_H

#include "arch_defs.h"
#include <linux/bug.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "compat.h"
#include "gilk.h"
#include "uapi/gilk.h"
#include "refusal.h"

/* ksyms.c: helpers the kernel does not export, resolved at load. */
struct gilk_ksyms {
	void *(*text_poke)(void *addr, const void *opcode, size_t len);
	void (*text_poke_sync)(void);
	struct mutex *text_mutex;
	struct mutex *kprobe_mutex;
	void *(*module_alloc)(unsigned long size);
	void (*module_memfree)(void *region);
	int (*set_memory_ro)(unsigned long addr, int numpages);
	int (*set_memory_x)(unsigned long addr, int numpages);
	unsigned long (*kallsyms_lookup_name)(const char *name);
	struct list_head *kprobe_blacklist;	/* of kprobe_blacklist_entry */
	char *kprobes_text_start, *kprobes_text_end;
	const struct exception_table_entry *start_ex_table, *stop_ex_table;
	int (*ftrace_text_reserved)(const void *start, const void *end);
	int (*alternatives_text_reserved)(void *start, void *end);
	int (*core_kernel_text)(unsigned long addr);
	bool (*is_module_text_address)(unsigned long addr);
	struct kprobe *(*get_kprobe)(void *addr);
	struct jump_entry *start_jump_table, *stop_jump_table;
	struct static_call_site *start_static_call_sites, *stop_static_call_sites;
	struct module *(*module_address)(unsigned long addr);
	struct bug_entry *(*find_bug)(unsigned long addr);
	void (*bug_get_file_line)(struct bug_entry *bug, const char **file,
				  unsigned int *line);
	void (*warn)(const char *file, int line, void *caller, unsigned int taint,
		     struct pt_regs *regs, struct warn_args *args);
	void (*disable_trace_on_warning)(void);
	void (*die)(const char *str, struct pt_regs *regs, long err);
	struct bug_entry *start_bug_table, *stop_bug_table;
	char *static_call_text_start, *static_call_text_end;
	int (*insn_decode)(struct insn *insn, const void *kaddr, int buf_len,
			   enum insn_mode m);
	int (*kallsyms_lookup_size_offset)(unsigned long addr,
					   unsigned long *size,
					   unsigned long *offset);
	void *(*text_poke_set)(void *addr, int c, size_t len);
	char *cpuidle_text_start, *cpuidle_text_end;
	char *stext, *end;	/* the kernel image: _stext to _end */
	char *etext;		/* the end of its text */
	char *start_rodata, *end_rodata;
	gilk_each_symbol_t kallsyms_on_each_symbol;
	void (*text_poke_bp)(void *addr, const void *opcode, size_t len,
			     const void *emulate);
	char *indirect_thunk_start, *indirect_thunk_end;	/* may be 0 */
};

extern struct gilk_ksyms gilk_ks;
int gilk_resolve_ksyms(void);

/* patch.c: the patch protocol. */
struct gilk_patch_state {
	unsigned long addr, divert;
	u32 len, kind;
	u8 bytes[GILK_PATCH_MAX_LEN];
	u8 orig[GILK_PATCH_MAX_LEN];
};

/* int3 diverts: where a CPU that hits an int3 gilk wrote goes. */
struct gilk_trap {
	unsigned long addr, divert;
};

struct gilk_traps {
	struct list_head list;
	struct rcu_head rcu;
	unsigned int n;
	struct gilk_trap trap[];	/* sorted once armed */
};

/* Up to this many, gilk_traps_alloc() does not fail. */
#define GILK_TRAPS_NOFAIL 8


/* splice.c: splice objects. */
/* A splice's life; the lock is not held while a grace period passes, so
 * SPLICING and UNSPLICING own their bytes without being ACTIVE.
 */
/*
 * GILK_HUSK: a site's first splice removed while others joined it (joined.c):
 * unlisted, its trampoline runs no instrument and still replays the site's
 * code for theirs, until the last of them goes.
 */
enum gilk_state { GILK_RESERVED, GILK_SPLICING, GILK_ACTIVE, GILK_UNSPLICING, GILK_HUSK };

struct gilk_splice_obj {
	u32 id;
	u32 flags;
	enum gilk_state state;
	const void *owner;	/* the open file that reserved it */
	struct module *text_mod;	/* the module whose text is spliced */
	unsigned long site;
	u32 region_len;
	u8 region_orig[GILK_PATCH_MAX_LEN];
	unsigned long tramp, evict_tramp;	/* 0: none, or abandoned */
	u32 tramp_size, evict_size;	/* reserved there */
	u32 tramp_len, evict_len;	/* bytes written there */
	struct gilk_traps *trap;	/* trap mode: its int3's divert */
	u32 npatch;
	struct gilk_patch_state patch[GILK_MAX_PATCHES];
	bool host_kept;		/* a kprobe came on its evicted neighbour */
	struct gilk_instrument *ins;
	/* kept apart, short as they are (gilk_text_keep()): "" costs nothing */
	const char *arg;
	const char *site_name;	/* text only: never looked up */
	/* one per-CPU allocation: hits and filtered point into it */
	struct gilk_counts __percpu *counts;
	u64 __percpu *hits;	/* the count template increments it inline */
	u64 __percpu *filtered;	/* hits the filter turned away */
	struct gilk_filter_prog *filter;	/* NULL: every hit runs the instrument */
	struct gilk_fetch *fetch;	/* NULL: its events fetch nothing */
	struct gilk_agg_map *agg;	/* NULL: it aggregates nothing */
	struct gilk_tsc_ring *tsc_ring;	/* the tsc template writes it inline */
	u64 tsc_tail;		/* the ring's next sequence to drain */
	atomic64_t lost, missed;
	u8 tramp_kind;		/* enum gilk_tramp_kind, once verified */
	u8 bug_kind;		/* enum gilk_bug_kind of the site, at claim */
	/*
	 * Several splices at one site (joined.c), under gilk_lock: a chain of
	 * trampolines from the top, which the jmp at the base's join_at leads
	 * to, down to the base's, which replays the site's code
	 */
	struct gilk_splice_obj *base;	/* joined: the site's first; else NULL */
	struct gilk_splice_obj *below, *above;
	struct gilk_splice_obj *joining;	/* base: one on its way in */
	unsigned long join_at;	/* base: its jmp into the chain; 0: trap mode */
	bool husk;		/* base: removed, its trampoline kept for the others */
	bool chain_seen;	/* base: met by the removal in hand */
	/* base: a removal is rewriting its chain (from its plan to its end,
	 * a grace period between): no other change of the site meanwhile
	 */
	bool taking;
	/* freed after a grace period: FACTS reads gilk_owned without gilk_lock */
	struct rcu_head rcu;
};

/* A splice's per-CPU counters. */
struct gilk_counts {
	u64 hits, filtered;
};

/* count_task increments hits or the u64 after it, indexed by its test */
static_assert(offsetof(struct gilk_counts, filtered) ==
	      offsetof(struct gilk_counts, hits) + sizeof(u64));

/*
 * A request's filter as gilk.ko keeps it (filter.c): only its tests, the
 * strings and the text, about a third of struct gilk_filter for a short one.
 */
struct gilk_filter_prog {
	char str[GILK_FILTER_STRS][GILK_FILTER_STR_LEN];
	char text[GILK_FILTER_TEXT_MAX];
	/* GILK_FF_SELF's process (a tgid): the one that made the splice, 0
	 * once its /dev/gilk is closed with the splice kept (READ_ONCE)
	 */
	pid_t self;
	u32 len;
	struct gilk_filter_test test[];
};

/* What an instrument's ctx points into: gilk_emit finds the splice. */
struct gilk_hit {
	struct gilk_ctx ctx;
	struct gilk_splice_obj *s;
	const void *fetched;	/* the fetch's values, every event appends; NULL: none */
	u16 fetched_len;
};

extern struct mutex gilk_lock;
/* filter.c: a request's filter, checked whole, kept, and run at a hit. */
/*
 * Refuses a request for reason code (GILK_REFUSED_*): the sentence from fmt
 * goes to why; returns the table's errno, negative.
 */
__printf(3, 4) int gilk_refuse(struct gilk_why *why, u32 code, const char *fmt, ...);

int gilk_filter_check(const struct gilk_filter *f, struct gilk_why *why);
struct gilk_filter_prog *gilk_filter_keep(const struct gilk_filter *f);
/* fetch.c: a request's fetch, checked whole, kept, and run at a hit. */
int gilk_fetch_init(void);
void gilk_fetch_exit(void);
/* agg: the request's aggregation, which may fetch for its key alone */
int gilk_fetch_check(const struct gilk_fetch *f, const struct gilk_instrument *ins,
		     const struct gilk_agg *agg, struct gilk_why *why);
struct gilk_fetch *gilk_fetch_keep(const struct gilk_fetch *f);
/* Into the CPU's buffer, inside the recursion guard: its len bytes. */
const void *gilk_fetch_run(const struct gilk_fetch *f, const struct pt_regs *regs, u16 *len);
u64 gilk_hit_field(u8 f, const struct pt_regs *regs);
/*
 * agg.c: a request's aggregation, checked, kept in per-CPU maps, added to
 * at a hit inside the recursion guard, and read.
 */
struct gilk_agg_map;
/* fetch: the request's, whose values a key may be */
int gilk_agg_check(const struct gilk_agg *a, const struct gilk_instrument *ins,
		   const struct gilk_fetch *fetch, struct gilk_why *why);
struct gilk_agg_map *gilk_agg_keep(const struct gilk_agg *a, const struct gilk_fetch *fetch);
void gilk_agg_free(struct gilk_agg_map *m);
/* fetched: the hit's fetched values (gilk_fetch_run()), or NULL */
void gilk_agg_add(struct gilk_agg_map *m, const struct pt_regs *regs, const u8 *fetched);
int gilk_agg_read(struct gilk_agg_read *r);
void gilk_agg_spec(const struct gilk_agg_map *m, struct gilk_agg *out);
bool gilk_filter_pass(const struct gilk_filter_prog *f, const struct pt_regs *regs);
/* hitpath.c: what every trampoline but the inline ones calls. */
void gilk_entry(struct gilk_splice_obj *s, struct pt_regs *regs);
/* patch.c: the DIE_INT3 notifier that sends a CPU on to its divert. */
struct notifier_block;
int gilk_int3_notify(struct notifier_block *nb, unsigned long val, void *data);
extern struct notifier_block gilk_int3_nb;
/* Splice objects by id; and by the start of each range of bytes they own. */
extern struct xarray gilk_splices, gilk_owned;
/* A splice with a tsc ring to drain (XA_MARK_0 tracks free ids). */
#define GILK_MARK_TSC_RING XA_MARK_1
int gilk_reserve(struct gilk_reserve *r, const void *owner);
/* A reservation is released, and spliced, only by the file that made it. */
int gilk_release(u32 id, const void *owner);
void gilk_release_owner(const void *owner);
int gilk_splice(struct gilk_splice *req);
int gilk_unsplice(u32 id);
/*
 * All of them or none; one grace period for the lot. *failed: the index
 * of the request refused, whose reason goes back to it.
 */
int gilk_splice_batch(struct gilk_splice __user *items, u32 n, u32 *failed,
		      const void *owner);
int gilk_unsplice_batch(const u32 *ids, u32 n, u32 *failed);
int gilk_stats(struct gilk_stats *st);
void gilk_unsplice_all(void);
/* Makes an unrevertible splice's trampoline skip gilk; it is never freed. */
void gilk_abandon(struct gilk_splice_obj *s);
/*
 * Removes every splice that depends on a module (its text, or one of its
 * instruments) or on one instrument: reverted, or abandoned where another
 * patcher holds the bytes. For modules and instruments going away.
 */
void gilk_unsplice_dependents(const struct module *mod,
			      const struct gilk_instrument *ins);
void gilk_splice_info(const struct gilk_splice_obj *s, struct gilk_splice_info *out);
/* Its hits on every CPU, and those its tsc ring holds. */
u64 gilk_splice_hits(const struct gilk_splice_obj *s);
/* What splice.c (objects, ownership, SPLICE) and unsplice.c (UNSPLICE, dependents) share. */
void gilk_obj_free(struct gilk_splice_obj *s);
/* Its filter, fetch and aggregation freed: nothing runs them any more. */
void gilk_obj_drop_program(struct gilk_splice_obj *s);
/* A splice's text (its argument, the name it was asked by): "" or a copy; NULL: no memory. */
const char *gilk_text_keep(const char *text, size_t max);
void gilk_text_free(const char *text);
void gilk_disown(struct gilk_splice_obj *s);

/*
 * joined.c: several splices at one site, a chain of trampolines (see
 * there), under gilk_lock.
 */
/* The site's first splice, which replays its code. */
struct gilk_splice_obj *gilk_join_base(struct gilk_splice_obj *s);
/* It shares its site with others (it joined, or others joined it). */
bool gilk_joined(const struct gilk_splice_obj *s);
/*
 * Its site's splices are on their way in or out (one joining, one leaving,
 * a removal rewriting the chain): no other change now. False for a lone
 * active splice.
 */
bool gilk_join_busy(struct gilk_splice_obj *s);
/* A GILK_SPLICE_JOIN request checked against base, the owner of its site. */
struct gilk_walk_memo;
int gilk_join_check(struct gilk_splice_obj *s, struct gilk_splice *req,
		    struct gilk_splice_obj *base, u32 needs, struct gilk_walk_memo *memo);
void gilk_join_claim(struct gilk_splice_obj *s, struct gilk_splice_obj *base);
void gilk_join_unclaim(struct gilk_splice_obj *s);
/* Spliced: it is the top of its site's chain. */
void gilk_join_done(struct gilk_splice_obj *s);
void gilk_join_info(const struct gilk_splice_obj *s, struct gilk_splice_info *out);
/*
 * Of objs[0..n), marked UNSPLICING with their bytes their own (gilk_lock
 * and the text lock held, let go across a grace period): those that share
 * a site with splices that stay are taken out of its chain and dropped (a
 * base becomes a husk); the rest, with husks whose last joined splice went,
 * are moved to the front for gilk_patch_out(), and their number returned.
 */
u32 gilk_join_take(struct gilk_splice_obj **objs, u32 n);
/* unsplice.c: a splice gone, what it held let go. */
void gilk_splice_drop(struct gilk_splice_obj *s);
/*
 * Whether the bytes a splice (its site's splices) wrote are still its own,
 * with no kprobe on them: the text lock held.
 */
bool gilk_still_own(struct gilk_splice_obj *s);

/* modules.c: splices of a module force-unloaded go first. */
int gilk_modules_init(void);
void gilk_modules_exit(void);

/*
 * checks.c: re-validation before any write. Place: text, of a live module
 * if a module's, neither gilk's nor the instrument's own code.
 */
int gilk_check_place(unsigned long addr, u32 len, const struct gilk_instrument *ins,
		     struct gilk_why *why);
int gilk_check_range(unsigned long addr, u32 len, const u8 *expect,
		     const struct gilk_instrument *ins, struct gilk_why *why);

/* textkind.c: what an address is. */
bool gilk_is_text(unsigned long addr, int *kind);
/*
 * Whether a module's text may be read by its symbols and spliced: it is
 * LIVE and its symbols are its core ones. do_init_module() sets LIVE, runs
 * the module notifiers, and only then switches mod->kallsyms away from the
 * init symbols it frees (after a grace period no preemptible walker is in).
 */
bool gilk_module_settled(const struct module *mod);

/* reserved.c: what the kernel reserves in a range. */
bool gilk_kprobe_near(unsigned long a, u32 len);
/* A kprobe at one of the bytes [a, a + len). */
bool gilk_kprobe_on(unsigned long a, u32 len);
/* The static call trampolines (__SCT__*), the core kernel's and a module's. */
bool gilk_in_static_call_tramps(unsigned long lo, unsigned long hi);
bool gilk_in_module_static_call_tramp(unsigned long lo, unsigned long hi);
bool gilk_in_idle_text(unsigned long a);
/* The jump label sites in [lo, hi) of text of kind text, as facts of kind. */
void gilk_jump_facts(int text, unsigned long lo, unsigned long hi, u32 kind,
		     struct gilk_facts *f, struct gilk_fact *out);
/* The static call sites in [lo, hi) of text of kind text, as facts of kind. */
void gilk_static_facts(int text, unsigned long lo, unsigned long hi, u32 kind,
		       struct gilk_facts *f, struct gilk_fact *out);
bool gilk_static_reserved(int text, unsigned long lo, unsigned long hi);
/* Whether [addr, addr + len) holds a jump label site. */
bool gilk_jump_label_reserved(unsigned long addr, u32 len);

/*
 * facts.c: the FACTS answer, from every provider; and an edge into
 * [lo, hi) that decoding code near it does not find: a jump label's
 * target, an exception fixup's landing, a branch between a function and
 * its .cold part.
 */
bool gilk_hidden_edge(unsigned long lo, unsigned long hi);
int gilk_facts(struct gilk_facts *f, struct gilk_fact *out);

/*
 * A range of kind added to a FACTS answer, merged with the last one where
 * they touch; counted past max, so the caller learns the room it needs.
 */
static inline void gilk_add_fact(struct gilk_facts *f, struct gilk_fact *out,
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
 * siteindex.c: the core kernel's jump label and static call sites, sorted,
 * each with the bytes it reserves (at most GILK_SITE_SPAN).
 */
#define GILK_SITE_SPAN 8
struct gilk_site {
	unsigned long addr;
	u32 len;
};

struct gilk_site_index {
	struct gilk_site *site;
	size_t n;
};

extern struct gilk_site_index gilk_jump_sites, gilk_static_sites, gilk_jump_targets;
extern struct gilk_site_index gilk_fixup_targets;
int gilk_site_index_init(void);
void gilk_site_index_exit(void);
/* The reserved bytes of idx's sites in [lo, hi), as facts of kind. */
void gilk_site_facts(const struct gilk_site_index *idx, unsigned long lo,
		     unsigned long hi, u32 kind, struct gilk_facts *f,
		     struct gilk_fact *out);

/*
 * coldparts.c: where the compiler's .cold parts branch to, the core kernel's
 * indexed at load (targets, a byte each), and where their functions branch
 * into them.
 */
extern struct gilk_site_index gilk_cold_targets;
int gilk_cold_index_init(void);
void gilk_cold_index_exit(void);
/*
 * verify_kernel.c: the checker's environment as far as it reads text and
 * tables, for decoding outside a request (coldparts.c).
 */
struct gilk_verify_env;
extern const struct gilk_verify_env gilk_text_env;
/* Both kinds of landing in [lo, hi), as GILK_FACT_TARGET. */
void gilk_cold_facts(struct gilk_facts *f, struct gilk_fact *out,
		     unsigned long lo, unsigned long hi);

/* rangefacts.c: blacklist, exception tables and kprobes, by range. */
void gilk_blacklist_facts(struct gilk_facts *f, struct gilk_fact *out,
			  unsigned long lo, unsigned long hi);
/* The instructions of exception-table entries in [lo, hi). */
void gilk_extable_facts(struct gilk_facts *f, struct gilk_fact *out,
			unsigned long lo, unsigned long hi);
/* The fixup landings in [lo, hi), as GILK_FACT_TARGET. */
void gilk_fixup_facts(struct gilk_facts *f, struct gilk_fact *out,
		      unsigned long lo, unsigned long hi);
void gilk_kprobe_facts(struct gilk_facts *f, struct gilk_fact *out,
		       unsigned long lo, unsigned long hi);

/*
 * ownpath.c: the kernel functions gilk's own int3 divert and hit path run
 * through, found at load; a splice there is refused (ELOOP, gilk-path).
 */

int gilk_own_path_init(void);
void gilk_own_path_exit(void);
void gilk_own_path_facts(struct gilk_facts *f, struct gilk_fact *out,
			 unsigned long lo, unsigned long hi);

/* trampmem.c: trampolines packed in module-area chunks. gilk_lock held. */
unsigned long gilk_tramp_alloc(size_t size);
void gilk_tramp_free(unsigned long addr, size_t size);
void gilk_tramp_stats(u64 *used, u64 *mapped);
void gilk_trampmem_exit(void);

/* textread.c: kernel text as it was before gilk's splices and kprobes. */
int gilk_text_read(unsigned long addr, void *buf, size_t len);
/* buf holds [addr, addr + len): what of it [at, at + n) covers becomes orig's. */
static inline void gilk_text_overlay(unsigned long addr, u8 *buf, size_t len,
				     unsigned long at, const u8 *orig, u32 n)
{
	unsigned long lo = max(addr, at), hi = min(addr + len, at + n);

	if (lo < hi)
		memcpy(buf + (lo - addr), orig + (lo - at), hi - lo);
}


/* bug.c: BUG()/WARN() sites, and their replay (GILK_SPLICE_BUG). */
void gilk_bug_replay(unsigned long addr, struct pt_regs *regs);
/* -EPROTO when [addr, addr + len) holds a bug site other than replayed. */
int gilk_bug_check(unsigned long addr, u32 len, unsigned long replayed,
		   struct gilk_why *why);
/* -EINVAL unless site is a bug site's ud2. */
int gilk_bug_check_replayed(unsigned long site, struct gilk_why *why);
/* GILK_BUG, GILK_WARN or GILK_NOT_BUG (verify_env.h) for a ud2 at addr. */
int gilk_bug_kind(unsigned long addr);
void gilk_bug_facts(struct gilk_facts *f, struct gilk_fact *out,
		    unsigned long lo, unsigned long hi);

/*
 * instrument.c: the registry. gilk_unregister_instrument() is unsplice.c's:
 * the instrument's splices go with it.
 */
struct gilk_instrument *gilk_instrument_get(const char *name);
/* Off the registry's list: no new splice finds it. */
void gilk_instrument_unlist(struct gilk_instrument *ins);
u32 gilk_instrument_needs(const struct gilk_instrument *ins);
void gilk_instrument_put(struct gilk_instrument *ins);
int gilk_instruments_list(struct gilk_instrument_info *out, u32 max, u32 *count);
int gilk_builtin_init(void);
void gilk_builtin_exit(void);

/* events.c */
int gilk_events_init(void);
void gilk_events_exit(void);
ssize_t gilk_events_read(char __user *buf, size_t len);
/* What ran a site: struct gilk_event's task fields. */
struct gilk_who {
	u32 tid, pid;
	u8 context;		/* GILK_CTX_* */
	u8 gone;		/* the task had exited: pid and comm unknown */
	char comm[GILK_COMM_LEN];
};

/* An event of the hit running now, on cpu. */
struct trace_buffer;
extern struct trace_buffer *gilk_events_rb;	/* events.c makes it */
/* An event that happened at ns (ktime_get_mono_fast_ns()'s clock), run by who. */
int gilk_event_write_at(struct gilk_splice_obj *s, int cpu, u64 ns,
			const struct gilk_who *who, const void *p, u16 len);

/* The tsc instrument's event payload, from its C function or a ring. */
struct gilk_tsc_event {
	u64 tsc;
};

/* tasknames.c: an exited task's thread group and name, while known */
int gilk_task_names_init(void);
void gilk_task_names_exit(void);
bool gilk_exited_task(u32 tid, u32 *pid, char *comm);

/* tscring.c */
/* A ring, or ERR_PTR(-EDQUOT) past the rings' memory budget, -ENOMEM. */
struct gilk_tsc_ring *gilk_tsc_ring_alloc(void);
void gilk_tsc_ring_free(struct gilk_tsc_ring *r);
u64 gilk_tsc_rings_bytes(void);
void gilk_tsc_ring_drain(struct gilk_splice_obj *s, bool final);
void gilk_tsc_rings_drain(void);
u64 gilk_tsc_ring_hits(const struct gilk_splice_obj *s);
struct gilk_splice_obj *gilk_hit_splice(const struct gilk_ctx *ctx);

#include "arch.h"

#endif
