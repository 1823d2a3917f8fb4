// SPDX-License-Identifier: GPL-2.0
/*
 * What an address is: core kernel or module text, or a thunk gilk's own
 * path runs through. Below the reservation predicates, the fact providers,
 * the checks and FACTS, which all ask it.
 */
#include <linux/kallsyms.h>
#include <linux/string.h>

#include "gilk_internal.h"

bool gilk_is_text(unsigned long addr, int *kind)
{
	if (gilk_ks.core_kernel_text(addr)) {
		*kind = GILK_TEXT_KERNEL;
		return true;
	}
	if (gilk_ks.is_module_text_address(addr)) {
		*kind = GILK_TEXT_MODULE;
		return true;
	}
	*kind = GILK_TEXT_NONE;
	return false;
}

/*
 * gilk_entry() returns through the return thunk and the trampoline may
 * call through a retpoline: a splice there would be hit from inside gilk,
 * outside its recursion guard. Known by their section where the kernel
 * bounds it, and by name (the SRSO aliases live elsewhere; 6.12 moves them).
 */
bool gilk_thunk_name(const char *name)
{
	static const char *const thunks[] = {
		"__x86_indirect_", "__x86_return_", "srso_", "zen_untrain_ret",
		"retbleed_", "entry_untrain_ret", "entry_ibpb", "call_depth_",
		"its_return_thunk", "__indirect_thunk_",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(thunks); i++)
		if (!strncmp(name, thunks[i], strlen(thunks[i])))
			return true;
	return false;
}

bool gilk_is_thunk(unsigned long a)
{
	char name[KSYM_SYMBOL_LEN];

	if (a >= (unsigned long)gilk_ks.indirect_thunk_start &&
	    a < (unsigned long)gilk_ks.indirect_thunk_end)
		return true;
	sprint_symbol_no_offset(name, a);
	return gilk_thunk_name(name);
}

bool gilk_module_settled(const struct module *mod)
{
	return mod->state == MODULE_STATE_LIVE &&
	       rcu_access_pointer(mod->kallsyms) == &mod->core_kallsyms;
}
