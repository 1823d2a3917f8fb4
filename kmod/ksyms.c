// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers gilk.ko needs that the kernel does not export, resolved once at
 * load through kallsyms_lookup_name, which is itself found with a kprobe
 * (registering one on a symbol name resolves its address). A missing helper
 * fails the load with a message naming it. Functions are called through
 * gilk's stubs (ksym_stubs.h says why), pointed at them here.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/printk.h>

#include "gilk_internal.h"
#include "compat.h"
#include "ksym_stubs.h"

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
	unregister_kprobe(&kp);
	/* Where the entry has ENDBR, the kprobe sits past it: direct jmps may too. */
	ret = gilk_arch_point_stub(gilk_stub_kallsyms_lookup_name, (unsigned long)kp.addr,
				   "kallsyms_lookup_name");
	if (ret)
		return ret;
	gilk_arch_stubs_sync();
	lookup = (void *)gilk_stub_kallsyms_lookup_name;
	return 0;
}

/* Data: its address. A function: the stub, pointed at it. */
#define KSYM(field, name) { offsetof(struct gilk_ksyms, field), name, false, NULL }
#define KSYM_FN(field, name) \
	{ offsetof(struct gilk_ksyms, field), name, false, gilk_stub_##field }
/* Where a kernel may not have it: left 0, and what needs it does without. */
#define KSYM_OPTIONAL(field, name) { offsetof(struct gilk_ksyms, field), name, true, NULL }

static const struct {
	size_t offset;
	const char *name;
	bool optional;
	char *stub;
} wanted[] = {
	KSYM_FN(text_poke, "text_poke"),
	KSYM_FN(text_poke_sync, "text_poke_sync"),
	KSYM(text_mutex, "text_mutex"),
	KSYM(kprobe_mutex, "kprobe_mutex"),
	KSYM_FN(module_alloc, GILK_EXEC_ALLOC),
	KSYM_FN(module_memfree, GILK_EXEC_FREE),
	KSYM_FN(set_memory_ro, "set_memory_ro"),
	KSYM_FN(set_memory_x, "set_memory_x"),
	KSYM(kprobe_blacklist, "kprobe_blacklist"),
	KSYM(kprobes_text_start, "__kprobes_text_start"),
	KSYM(kprobes_text_end, "__kprobes_text_end"),
	KSYM(start_ex_table, "__start___ex_table"),
	KSYM(stop_ex_table, "__stop___ex_table"),
	KSYM_FN(ftrace_text_reserved, "ftrace_text_reserved"),
	KSYM_FN(alternatives_text_reserved, "alternatives_text_reserved"),
	KSYM_FN(core_kernel_text, "core_kernel_text"),
	KSYM_FN(is_module_text_address, "is_module_text_address"),
	KSYM_FN(get_kprobe, "get_kprobe"),
	KSYM(start_jump_table, "__start___jump_table"),
	KSYM(stop_jump_table, "__stop___jump_table"),
	KSYM(start_static_call_sites, "__start_static_call_sites"),
	KSYM(stop_static_call_sites, "__stop_static_call_sites"),
	KSYM_FN(module_address, "__module_address"),
	KSYM_FN(find_bug, "find_bug"),
	KSYM_FN(bug_get_file_line, "bug_get_file_line"),
	KSYM_FN(warn, "__warn"),
	KSYM_FN(disable_trace_on_warning, "disable_trace_on_warning"),
	KSYM_FN(die, "die"),
	KSYM(start_bug_table, "__start___bug_table"),
	KSYM(stop_bug_table, "__stop___bug_table"),
	KSYM(static_call_text_start, "__static_call_text_start"),
	KSYM(static_call_text_end, "__static_call_text_end"),
	KSYM_FN(insn_decode, "insn_decode"),
	KSYM_FN(kallsyms_lookup_size_offset, "kallsyms_lookup_size_offset"),
	KSYM_FN(text_poke_set, "text_poke_set"),
	KSYM(cpuidle_text_start, "__cpuidle_text_start"),
	KSYM(cpuidle_text_end, "__cpuidle_text_end"),
	KSYM(stext, "_stext"),
	KSYM(etext, "_etext"),
	KSYM(start_rodata, "__start_rodata"),
	KSYM(end_rodata, "__end_rodata"),
	KSYM_FN(kallsyms_on_each_symbol, "kallsyms_on_each_symbol"),
	KSYM(end, "_end"),
	KSYM_FN(text_poke_bp, "text_poke_bp"),
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
		if (wanted[i].stub) {
			ret = gilk_arch_point_stub(wanted[i].stub, a, wanted[i].name);
			if (ret)
				return ret;
			a = (unsigned long)wanted[i].stub;
		}
		*(unsigned long *)((char *)&gilk_ks + wanted[i].offset) = a;
	}
	gilk_arch_stubs_sync();
	return 0;
}
