/* kverify: the checker's environment for the tests (see kverify.h). Built
 * with the kernel's tools headers, like kmod/verify.c itself. */
#include "kverify.h"
#include "tramp.h"
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

static enum gilk_bug_kind bug(const struct gilk_verify_env *env, unsigned long addr)
{
	return (enum gilk_bug_kind)kv(env)->bug_kind(kv(env)->priv, addr);
}

static bool jl(const struct gilk_verify_env *env, unsigned long addr, u32 len)
{
	return kv(env)->jump_label(kv(env)->priv, addr, len);
}

int kv_verify(const struct gilk_splice *req, const struct kv_env *e,
	      char *reason, size_t rlen)
{
	struct gilk_verify_env env = {
		.tramp = e->tramp, .evict_tramp = e->evict_tramp,
		.handler = e->handler, .ctx = e->ctx, .clac = e->clac,
		.decode = insn_decode, .read = rd, .func_start = start,
		.bug_kind = bug, .jump_label = jl, .priv = (void *)e,
	};

	return gilk_verify(req, &env, reason, rlen);
}

size_t kv_header_len(const struct kv_env *e, uint64_t site)
{
	struct gilk_tramp_params p = { e->tramp, site, e->ctx, e->handler, e->clac };
	u8 buf[GILK_TRAMP_HEADER_MAX];

	return gilk_tramp_header(buf, &p);
}
