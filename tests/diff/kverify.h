/*
 * kverify: gilk.ko's code checker (kmod/arch/x86/verify.c) as the tests call it, with
 * plain C types and the neutral templates' names (gilk_tramp.h), so test
 * code need not see the kernel's headers. The glue
 * (kverify_glue.c) is built with them, beside the checker.
 */
#ifndef GILK_TEST_KVERIFY_H
#define GILK_TEST_KVERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gilk_tramp.h"
#include "uapi/gilk.h"

enum kv_bug { KV_NOT_BUG, KV_BUG, KV_WARN };


struct kv_env {
	uint64_t tramp, evict_tramp, handler, ctx;
	uint64_t join_to;               /* a joining request's: where it goes on to */
	bool clac;
	uint32_t needs;                 /* GILK_NEEDS_* */
	uint64_t counter;
	uint64_t ring;                  /* the tsc template's, or 0 */
	uint64_t cpu_number;            /* %gs-relative */
	uint64_t preempt_count;         /* %gs-relative */
	uint64_t current_task;          /* %gs-relative */
	uint64_t task_pid;              /* offsetof(struct task_struct, pid) */
	uint64_t task_tgid, task_comm;  /* and of tgid and comm */
	int (*read)(void *priv, uint64_t addr, void *buf, size_t len);
	uint64_t (*func_start)(void *priv, uint64_t addr);
	uint64_t (*func_end)(void *priv, uint64_t func);
	bool (*hidden_edge)(void *priv, uint64_t lo, uint64_t hi);
	enum kv_bug (*bug_kind)(void *priv, uint64_t addr);
	bool (*jump_label)(void *priv, uint64_t addr, uint32_t len);
	bool (*fixup)(void *priv, uint64_t addr, uint32_t len);
	/* where a computed goto's table may be, and what is text (both NULL:
	 * no table is read) */
	bool (*table_data)(void *priv, uint64_t t, uint64_t func);
	bool (*is_text)(void *priv, uint64_t addr);
	void *priv;
	void *memo;     /* from kv_memo_new(): walks resume, as in a batch; or NULL */
};

/* The checker's walk memory of one batch (struct gilk_walk_memo): valid
 * while the text read stays the same; kv_memo_reset() when it changes. */
void *kv_memo_new(void);
void kv_memo_reset(void *memo);
void kv_memo_free(void *memo);
void kv_memo_copy(void *to, const void *from);

/* gilk_verify(): 0 with the template accepted in *tmpl (may be NULL), or
 * -EBADMSG with the reason. */
int kv_verify(const struct gilk_splice *req, const struct kv_env *env,
	      char *reason, size_t rlen, enum gilk_tramp_kind *tmpl);

/* The checker's own answer: whether the flags are dead at site (flags.h). */
bool kv_flags_dead(const struct kv_env *env, uint64_t site);

#endif
