// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers gilk.ko needs that the kernel does not export, resolved once at
 * load through kallsyms_lookup_name, which is itself found with a kprobe
 * (registering one on a symbol name resolves its address). A missing helper
 * fails the load with a message naming it.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/stddef.h>
#include <linux/printk.h>

#include "gilk_internal.h"
#include "compat.h"

struct gilk_ksyms gilk_ks;

static unsigned long (*lookup)(const char *name);

static int find_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret = register_kprobe(&kp);

	if (ret < 0) {
		pr_err("gilk: cannot find kallsyms_lookup_name through a kprobe (%d)\n", ret);
		return ret;
	}
	lookup = (void *)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

#define KSYM(field, name) { offsetof(struct gilk_ksyms, field), name, false }
/* Where a kernel may not have it: left 0, and what needs it does without. */
#define KSYM_OPTIONAL(field, name) { offsetof(struct gilk_ksyms, field), name, true }

static const struct {
	size_t offset;
	const char *name;
	bool optional;
} wanted[] = {
	KSYM(text_poke, "text_poke"),
	KSYM(text_poke_sync, "text_poke_sync"),
	KSYM(text_mutex, "text_mutex"),
	KSYM(module_alloc, GILK_EXEC_ALLOC),
	KSYM(module_memfree, GILK_EXEC_FREE),
	KSYM(set_memory_ro, "set_memory_ro"),
	KSYM(set_memory_x, "set_memory_x"),
	KSYM(kprobe_blacklist, "kprobe_blacklist"),
	KSYM(kprobes_text_start, "__kprobes_text_start"),
	KSYM(kprobes_text_end, "__kprobes_text_end"),
	KSYM(start_ex_table, "__start___ex_table"),
	KSYM(stop_ex_table, "__stop___ex_table"),
	KSYM(jump_label_text_reserved, "jump_label_text_reserved"),
	KSYM(static_call_text_reserved, "static_call_text_reserved"),
	KSYM(ftrace_text_reserved, "ftrace_text_reserved"),
	KSYM(alternatives_text_reserved, "alternatives_text_reserved"),
	KSYM(core_kernel_text, "core_kernel_text"),
	KSYM(is_module_text_address, "is_module_text_address"),
	KSYM(get_kprobe, "get_kprobe"),
	KSYM(start_jump_table, "__start___jump_table"),
	KSYM(stop_jump_table, "__stop___jump_table"),
	KSYM(start_static_call_sites, "__start_static_call_sites"),
	KSYM(stop_static_call_sites, "__stop_static_call_sites"),
	KSYM(module_address, "__module_address"),
	KSYM(find_bug, "find_bug"),
	KSYM(bug_get_file_line, "bug_get_file_line"),
	KSYM(warn, "__warn"),
	KSYM(disable_trace_on_warning, "disable_trace_on_warning"),
	KSYM(die, "die"),
	KSYM(start_bug_table, "__start___bug_table"),
	KSYM(stop_bug_table, "__stop___bug_table"),
	KSYM(static_call_text_start, "__static_call_text_start"),
	KSYM(static_call_text_end, "__static_call_text_end"),
	KSYM(insn_decode, "insn_decode"),
	KSYM(kallsyms_lookup_size_offset, "kallsyms_lookup_size_offset"),
	KSYM(text_poke_set, "text_poke_set"),
	KSYM(cpuidle_text_start, "__cpuidle_text_start"),
	KSYM(cpuidle_text_end, "__cpuidle_text_end"),
	KSYM(stext, "_stext"),
	KSYM(end, "_end"),
	KSYM(text_poke_bp, "text_poke_bp"),
	KSYM_OPTIONAL(indirect_thunk_start, "__indirect_thunk_start"),
	KSYM_OPTIONAL(indirect_thunk_end, "__indirect_thunk_end"),
};

int gilk_resolve_ksyms(void)
{
	int i, ret = find_kallsyms_lookup_name();

	if (ret)
		return ret;
	gilk_ks.kallsyms_lookup_name = lookup;
	for (i = 0; i < ARRAY_SIZE(wanted); i++) {
		unsigned long a = lookup(wanted[i].name);

		if (!a && !wanted[i].optional) {
			pr_err("gilk: kernel symbol %s not found\n", wanted[i].name);
			return -ENOENT;
		}
		*(unsigned long *)((char *)&gilk_ks + wanted[i].offset) = a;
	}
	return 0;
}
