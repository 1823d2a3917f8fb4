// SPDX-License-Identifier: GPL-2.0
/*
 * The window in which a loading module is LIVE but still has its init
 * symbols: do_init_module() sets MODULE_STATE_LIVE, calls the module
 * notifiers, and only then switches mod->kallsyms to the core symbols and
 * frees the init ones. "holdlive MS" (target.c) makes the next module to
 * go live wait MS milliseconds in this notifier, in that window, for a
 * test to act in; the parameter holdlive=MS makes gilk_target itself wait.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/notifier.h>

#include "target.h"

static atomic_t hold_ms = ATOMIC_INIT(0);

/*
 * holdlive=MS at load: gilk_target holds itself, its own notifier being
 * registered by then (the torture loads it so, again and again)
 */
static int holdlive;
module_param(holdlive, int, 0);
MODULE_PARM_DESC(holdlive, "ms gilk_target stays live with its init symbols when it loads");

static int on_module(struct notifier_block *nb, unsigned long state, void *data)
{
	int ms;

	if (state != MODULE_STATE_LIVE)
		return NOTIFY_DONE;
	ms = atomic_xchg(&hold_ms, 0);
	if (ms > 0)
		msleep(ms);
	return NOTIFY_DONE;
}

static struct notifier_block holdlive_nb = { .notifier_call = on_module };

long gilk_target_holdlive(long ms)
{
	atomic_set(&hold_ms, clamp_t(long, ms, 0, 10000));
	return 0;
}

int holdlive_init(void)
{
	gilk_target_holdlive(holdlive);
	return register_module_notifier(&holdlive_nb);
}

void holdlive_exit(void)
{
	unregister_module_notifier(&holdlive_nb);
}
