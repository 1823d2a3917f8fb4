// SPDX-License-Identifier: GPL-2.0
/*
 * What an address is: core kernel or module text, and whether a module's
 * symbols are settled (the thunks gilk's own path runs through are each
 * architecture's: arch/NAME/thunks.c). Below the reservation predicates,
 * the fact providers, the checks and FACTS, which all ask it.
 */
#include <linux/module.h>

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

bool gilk_module_settled(const struct module *mod)
{
	return mod->state == MODULE_STATE_LIVE &&
	       rcu_access_pointer(mod->kallsyms) == &mod->core_kallsyms;
}
