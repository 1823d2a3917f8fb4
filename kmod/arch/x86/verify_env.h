/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What gilk.ko's code checker (verify.c) needs from its surroundings
 * beyond the types every neutral file has (gilk_neutral.h). It is built into
 * gilk.ko and, unchanged, into the user-space tests with the kernel's own
 * instruction decoder from its tools tree (arch/x86/lib/insn.c there is the same decoder), so the checker that
 * runs in the kernel is the one the tests feed every plan and mutation to.
 */
#ifndef _GILK_VERIFY_ENV_H
#define _GILK_VERIFY_ENV_H

#include "gilk_neutral.h"
#ifndef __KERNEL__
#include <stdio.h>
#include <linux/compiler.h>
#endif
#include <asm/insn.h>

#include "refusal.h"

/*
 * Where the checker's decoding of a function may resume (verify.c): kept by
 * the caller across the requests of one batch, which would each decode
 * their function from its start otherwise. Marks are instruction starts
 * where control falls in, at least step bytes apart; when they fill up,
 * every other one goes and step doubles. Only valid while the text read
 * stays the same: one batch, its modules pinned.
 */
#define GILK_WALK_FUNCS 4
#define GILK_WALK_MARKS 128
#define GILK_WALK_STEP 32
#define GILK_WALK_TARGETS 16384

/*
 * And the targets of the function's direct branches into itself (offsets
 * from its start, ascending), once the checker has decoded it whole: a
 * jump label's jmp, the one branch whose presence changes, is an edge
 * the checker asks the kernel about anyway (hidden_edge). A function with
 * more targets than fit is decoded whole for each request: a batch over its
 * blocks costs the square of its length (the debug kernel's
 * intel_atomic_check, 2556 blocks, took minutes with room for 1024). 16384
 * holds the biggest functions of the kernels we test; the memo, 4 of them
 * and the neighbours below (about 330 KiB), is one allocation per batch.
 */
struct gilk_walk_fn {
	unsigned long func;	/* its start; 0: unused */
	unsigned long used;	/* for eviction, the least recent first */
	u32 n, step;
	unsigned long at[GILK_WALK_MARKS];	/* ascending */
	bool targets_known;
	u32 ntargets;
	u32 target[GILK_WALK_TARGETS];
};

/*
 * And the neighbours the batch's walks decoded (verify_walk.c): each
 * symbol [start, end) and the targets of its direct branches outside what
 * was decoded of it, kept in a pool of GILK_WALK_NB_POOL; where the pool
 * runs low, every neighbour is forgotten. A batch decodes each neighbour
 * once, not once for every function within GILK_NEIGHBOUR_REACH of it
 * (some 30 of them), nor looks its symbol up again.
 */
#define GILK_WALK_NBS 64
#define GILK_WALK_NB_POOL 8192

struct gilk_walk_nb {
	unsigned long start, end;	/* start 0: unused */
	unsigned long used;		/* for eviction, the least recent first */
	u32 first, n;			/* its targets: pool[first..first + n) */
};

struct gilk_walk_memo {
	struct gilk_walk_fn fn[GILK_WALK_FUNCS];
	unsigned long clock;
	struct gilk_walk_nb nb[GILK_WALK_NBS];
	u32 pool_used;
	unsigned long pool[GILK_WALK_NB_POOL];
};

/* A ud2 at an address: not a bug site, a BUG() (does not return), a WARN(). */
enum gilk_bug_kind { GILK_NOT_BUG, GILK_BUG, GILK_WARN };

struct gilk_verify_env {
	unsigned long tramp, evict_tramp;	/* reserved for this splice */
	/* GILK_SPLICE_JOIN: the trampoline the site led to until now */
	unsigned long join_to;
	unsigned long handler, ctx;	/* what the header calls, with what */
	bool clac;		/* SMAP is on: the header clears AC */
	/* the instrument's GILK_NEEDS_* (the filter's come with the request) */
	u32 needs;
	unsigned long counter;	/* the splice's __percpu hit counter */
	unsigned long ring;	/* its struct gilk_tsc_ring, or 0 */
	unsigned long cpu_number;	/* %gs-relative: the CPU's number */
	unsigned long preempt_count;	/* %gs-relative: its preempt count */
	unsigned long current_task;	/* %gs-relative: the task it runs */
	unsigned long task_pid;		/* offsetof(struct task_struct, pid) */
	unsigned long task_tgid, task_comm;	/* and of tgid, comm */
	/* The kernel's insn_decode(). */
	int (*decode)(struct insn *insn, const void *kaddr, int buf_len,
		      enum insn_mode m);
	/* Copies kernel text: 0, or -EFAULT. */
	int (*read)(const struct gilk_verify_env *env, unsigned long addr,
		    void *buf, size_t len);
	/* The start of the function (symbol) holding addr, or 0. */
	unsigned long (*func_start)(const struct gilk_verify_env *env,
				    unsigned long addr);
	/* The end of the function starting at func (the next symbol), or 0. */
	unsigned long (*func_end)(const struct gilk_verify_env *env,
				  unsigned long func);
	enum gilk_bug_kind (*bug_kind)(const struct gilk_verify_env *env,
				       unsigned long addr);
	/* A jump label site in [addr, addr + len): a jmp there may fall through. */
	bool (*jump_label)(const struct gilk_verify_env *env, unsigned long addr,
			   u32 len);
	/* An exception-table entry in [addr, addr + len). */
	bool (*fixup)(const struct gilk_verify_env *env, unsigned long addr,
		      u32 len);
	/*
	 * An edge lands in [lo, hi) that decoding the function and its
	 * neighbours does not find: a jump label's target, an exception
	 * fixup's landing, a branch of a compiler's .cold part or of its
	 * function into it, wherever their instructions are.
	 */
	bool (*hidden_edge)(const struct gilk_verify_env *env, unsigned long lo,
			    unsigned long hi);
	/*
	 * Whether a table of a computed goto's targets, loaded by the
	 * function at func, may be at t: the core kernel's read-only data
	 * for its functions, a module's own data for the module's. And
	 * whether an address is text, kernel or module: the table's words
	 * are read while they are. Either NULL: no table is looked for.
	 */
	bool (*table_data)(const struct gilk_verify_env *env, unsigned long t,
			   unsigned long func);
	bool (*is_text)(const struct gilk_verify_env *env, unsigned long addr);
	struct gilk_walk_memo *memo;	/* NULL: every walk from the start */
	void *priv;
};

#endif
