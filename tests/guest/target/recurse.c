// SPDX-License-Identifier: GPL-2.0
/*
 * A function that calls itself n deep, one real call per level (the value
 * added after the call is hidden from the optimizer, so the recursion cannot
 * become a loop): for latency's depth stack and its overflow.
 */
#include <linux/compiler.h>

#include "target.h"

noinline long gilk_target_recurse(long n)
{
	long r, here = n;

	if (n <= 0)
		return 0;
	r = gilk_target_recurse(n - 1);
	OPTIMIZER_HIDE_VAR(here);
	return r + here;
}
