// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64's thunks: the retpolines, return thunks and mitigations' code
 * that gilk's own path runs through.
 */
#include <linux/kallsyms.h>
#include <linux/string.h>

#include "gilk_internal.h"

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
