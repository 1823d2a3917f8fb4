// SPDX-License-Identifier: GPL-2.0
/*
 * The code checker (verify.c) in the kernel: its environment is the
 * kernel's own decoder, its symbols, its bug table and jump labels, and the
 * text as it was before gilk and kprobes (textread.c). gilk_lock held, but
 * for gilk_text_env, which FACTS and the load read .cold parts, their
 * namesakes and tables through (coldparts.c).
 */
#include <asm/cpufeature.h>
#include <asm/segment.h>

#include "compat.h"
#include "gilk_internal.h"
#include "verify.h"

/* the templates, built in user space too, push the kernel's selectors */
static_assert(GILK_KERNEL_CS == __KERNEL_CS && GILK_KERNEL_DS == __KERNEL_DS);

static int read_text(const struct gilk_verify_env *env, unsigned long addr,
		     void *buf, size_t len)
{
	return gilk_text_read(addr, buf, len);
}

static unsigned long func_start(const struct gilk_verify_env *env,
				unsigned long addr)
{
	unsigned long size, off;

	if (!gilk_ks.kallsyms_lookup_size_offset(addr, &size, &off))
		return 0;
	return addr - off;
}

static unsigned long func_end(const struct gilk_verify_env *env,
			      unsigned long func)
{
	unsigned long size, off;

	if (!gilk_ks.kallsyms_lookup_size_offset(func, &size, &off) || off)
		return 0;
	return func + size;
}

static bool hidden_edge(const struct gilk_verify_env *env, unsigned long lo,
			unsigned long hi)
{
	return gilk_hidden_edge(lo, hi);
}

/*
 * A computed goto's table: a core kernel function's in .rodata (const, as
 * GCC places `static const void *table[]`), a module function's in its
 * module, outside its text. Nothing of the module is kept past the answer.
 */
static bool table_data(const struct gilk_verify_env *env, unsigned long t,
		       unsigned long func)
{
	struct module *mod;
	bool ok;
	int kind;

	if (gilk_ks.core_kernel_text(func))
		return t >= (unsigned long)gilk_ks.start_rodata &&
		       t < (unsigned long)gilk_ks.end_rodata;
	preempt_disable();
	mod = gilk_ks.module_address(func);
	ok = mod && gilk_ks.module_address(t) == mod && !gilk_is_text(t, &kind);
	preempt_enable();
	return ok;
}

static bool is_text(const struct gilk_verify_env *env, unsigned long addr)
{
	int kind;

	return gilk_is_text(addr, &kind);
}

const struct gilk_verify_env gilk_text_env = {
	.read = read_text,
	.table_data = table_data,
	.is_text = is_text,
};

static enum gilk_bug_kind bug_kind(const struct gilk_verify_env *env,
				   unsigned long addr)
{
	return gilk_bug_kind(addr);
}

static bool jump_label(const struct gilk_verify_env *env, unsigned long addr,
		       u32 len)
{
	return gilk_jump_label_reserved(addr, len);
}

static bool fixup(const struct gilk_verify_env *env, unsigned long addr,
		  u32 len)
{
	struct gilk_facts q = { .max = 1 };
	struct gilk_fact found;

	gilk_extable_facts(&q, &found, addr, addr + len);
	return q.count;
}

int gilk_verify_request(struct gilk_splice_obj *s, struct gilk_splice *req,
			u32 needs, struct gilk_walk_memo *memo, unsigned long join_to)
{
	struct gilk_verify_env env = {
		.tramp = s->tramp,
		.join_to = join_to,
		.evict_tramp = s->evict_tramp,
		.handler = (unsigned long)gilk_entry,
		.ctx = (unsigned long)s,
		.clac = boot_cpu_has(X86_FEATURE_SMAP),
		.needs = needs,
		.counter = (unsigned long)s->hits,
		.ring = (unsigned long)s->tsc_ring,
		.cpu_number = gilk_cpu_number_addr(),
		.preempt_count = gilk_preempt_count_addr(),
		.current_task = gilk_current_task_addr(),
		.task_pid = gilk_task_pid_offset(),
		.task_tgid = offsetof(struct task_struct, tgid),
		.task_comm = offsetof(struct task_struct, comm),
		.decode = gilk_ks.insn_decode,
		.read = read_text,
		.func_start = func_start,
		.func_end = func_end,
		.hidden_edge = hidden_edge,
		.table_data = table_data,
		.is_text = is_text,
		.bug_kind = bug_kind,
		.jump_label = jump_label,
		.fixup = fixup,
		.memo = memo,
	};
	enum gilk_tramp_kind kind;
	int ret;

	/* no text_poke_bp() half done under the decoder, as kprobes'
	 * can_probe() holds it too
	 */
	mutex_lock(gilk_ks.text_mutex);
	ret = gilk_verify(req, &env, &GILK_WHY(req), &kind);
	mutex_unlock(gilk_ks.text_mutex);
	if (!ret)
		s->tramp_kind = kind;
	return ret;
}
