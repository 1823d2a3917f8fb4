// SPDX-License-Identifier: GPL-2.0
/*
 * x86's SMP alternatives: the lock prefixes the kernel rewrites when CPUs
 * come and go, which gilk must leave alone (reserved.c's other predicates
 * are every architecture's).
 */
#include <linux/mutex.h>

#include "gilk_internal.h"

/*
 * alternatives_text_reserved() walks lists text_mutex guards, and unlike
 * the other reservation predicates takes its end as exclusive.
 */
int gilk_alt_reserved(unsigned long lo, unsigned long hi)
{
	int ret;

	mutex_lock(gilk_ks.text_mutex);
	ret = gilk_ks.alternatives_text_reserved((void *)lo, (void *)hi);
	mutex_unlock(gilk_ks.text_mutex);
	return ret;
}
