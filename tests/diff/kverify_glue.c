/* kverify: the checker's environment for the tests (see kverify.h). Built
 * with the kernel's tools headers, like kmod/arch/x86/verify.c itself. */
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "kverify.h"
#include "verify.h"

static const struct kv_env *kv(const struct gilk_verify_env *env)
{
	return env->priv;
}

static int rd(const struct gilk_verify_env *env, unsigned long addr, void *buf, size_t len)
{
	return kv(env)->read(kv(env)->priv, addr, buf, len) ? -EFAULT : 0;
}

static unsigned long start(const struct gilk_verify_env *env, unsigned long addr)
{
	return kv(env)->func_start(kv(env)->priv, addr);
}

static unsigned long end(const struct gilk_verify_env *env, unsigned long func)
{
	return kv(env)->func_end(kv(env)->priv, func);
}

static bool hidden(const struct gilk_verify_env *env, unsigned long lo, unsigned long hi)
{
	return kv(env)->hidden_edge(kv(env)->priv, lo, hi);
}

static enum gilk_bug_kind bug(const struct gilk_verify_env *env, unsigned long addr)
{
	return (enum gilk_bug_kind)kv(env)->bug_kind(kv(env)->priv, addr);
}

static bool jl(const struct gilk_verify_env *env, unsigned long addr, u32 len)
{
	return kv(env)->jump_label(kv(env)->priv, addr, len);
}

static bool fx(const struct gilk_verify_env *env, unsigned long addr, u32 len)
{
	return kv(env)->fixup(kv(env)->priv, addr, len);
}

static bool tdata(const struct gilk_verify_env *env, unsigned long t, unsigned long func)
{
	return kv(env)->table_data(kv(env)->priv, t, func);
}

static bool text(const struct gilk_verify_env *env, unsigned long addr)
{
	return kv(env)->is_text(kv(env)->priv, addr);
}

static void env_of(const struct kv_env *e, struct gilk_verify_env *env)
{
	*env = (struct gilk_verify_env){
		.tramp = e->tramp, .evict_tramp = e->evict_tramp, .join_to = e->join_to,
		.handler = e->handler, .ctx = e->ctx, .clac = e->clac,
		.needs = e->needs, .counter = e->counter, .ring = e->ring, .cpu_number = e->cpu_number,
		.preempt_count = e->preempt_count, .current_task = e->current_task,
		.task_pid = e->task_pid, .task_tgid = e->task_tgid, .task_comm = e->task_comm,
		.decode = insn_decode, .read = rd, .func_start = start, .func_end = end, .hidden_edge = hidden,
		.bug_kind = bug, .jump_label = jl, .fixup = fx, .priv = (void *)e,
		.memo = e->memo,
		.table_data = e->table_data ? tdata : NULL,
		.is_text = e->is_text ? text : NULL,
	};
}

void *kv_memo_new(void)
{
	return calloc(1, sizeof(struct gilk_walk_memo));
}

void kv_memo_reset(void *memo)
{
	memset(memo, 0, sizeof(struct gilk_walk_memo));
}

void kv_memo_free(void *memo)
{
	free(memo);
}

void kv_memo_copy(void *to, const void *from)
{
	memcpy(to, from, sizeof(struct gilk_walk_memo));
}

int kv_verify(const struct gilk_splice *req, const struct kv_env *e,
	      char *reason, size_t rlen, enum gilk_tramp_kind *tmpl)
{
	struct gilk_verify_env env;
	enum gilk_tramp_kind kind;
	int ret;

	env_of(e, &env);
	{
		__u32 code;
		struct gilk_why why = { &code, reason, rlen };

		ret = gilk_verify(req, &env, &why, &kind);
	}
	if (!ret && tmpl)
		*tmpl = kind;
	return ret;
}

bool kv_flags_dead(const struct kv_env *e, uint64_t site)
{
	struct gilk_verify_env env;

	env_of(e, &env);
	return gilk_flags_dead(&env, site);
}
