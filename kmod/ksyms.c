// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers gilk.ko needs that the kernel does not export, resolved once at
 * load through kallsyms_lookup_name, which is itself found with a kprobe
 * (registering one on a symbol name resolves its address). A missing helper
 * fails the load with a message naming it.
 */
#include <linux/kprobes.h>
#include <linux/printk.h>

#include "gilk_internal.h"

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

#define RESOLVE(field, name)						\
	do {								\
		unsigned long a = lookup(name);				\
		if (!a) {						\
			pr_err("gilk: kernel symbol %s not found\n", name); \
			return -ENOENT;					\
		}							\
		*(unsigned long *)&gilk_ks.field = a;			\
	} while (0)

int gilk_resolve_ksyms(void)
{
	int ret = find_kallsyms_lookup_name();

	if (ret)
		return ret;
	RESOLVE(text_poke, "text_poke");
	RESOLVE(text_poke_sync, "text_poke_sync");
	RESOLVE(text_mutex, "text_mutex");
	RESOLVE(module_alloc, "module_alloc");
	RESOLVE(module_memfree, "module_memfree");
	RESOLVE(set_memory_ro, "set_memory_ro");
	RESOLVE(set_memory_x, "set_memory_x");
	RESOLVE(within_kprobe_blacklist, "within_kprobe_blacklist");
	RESOLVE(search_exception_tables, "search_exception_tables");
	RESOLVE(jump_label_text_reserved, "jump_label_text_reserved");
	RESOLVE(static_call_text_reserved, "static_call_text_reserved");
	RESOLVE(ftrace_text_reserved, "ftrace_text_reserved");
	RESOLVE(alternatives_text_reserved, "alternatives_text_reserved");
	RESOLVE(core_kernel_text, "core_kernel_text");
	RESOLVE(is_module_text_address, "is_module_text_address");
	RESOLVE(get_kprobe, "get_kprobe");
	return 0;
}
