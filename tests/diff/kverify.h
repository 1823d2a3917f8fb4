/*
 * kverify: gilk.ko's code checker (kmod/verify.c) as the tests call it, with
 * plain C types, so test code need not see the kernel's headers. The glue
 * (kverify_glue.c) is built with them, beside the checker.
 */
#ifndef GILK_TEST_KVERIFY_H
#define GILK_TEST_KVERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kmod/include/uapi/gilk.h"

enum kv_bug { KV_NOT_BUG, KV_BUG, KV_WARN };

struct kv_env {
	uint64_t tramp, evict_tramp, handler, ctx;
	bool clac;
	int (*read)(void *priv, uint64_t addr, void *buf, size_t len);
	uint64_t (*func_start)(void *priv, uint64_t addr);
	enum kv_bug (*bug_kind)(void *priv, uint64_t addr);
	bool (*jump_label)(void *priv, uint64_t addr, uint32_t len);
	void *priv;
};

/* gilk_verify(): 0, or -EBADMSG with the reason. */
int kv_verify(const struct gilk_splice *req, const struct kv_env *env,
	      char *reason, size_t rlen);

/* The header gilk.ko's template writes (tramp.c); returns its length. */
size_t kv_header_len(const struct kv_env *env, uint64_t site);

#endif
