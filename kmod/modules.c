// SPDX-License-Identifier: GPL-2.0
/*
 * Modules that go away under splices. A splice holds a reference on the
 * module whose text it patches and on its instrument's module, so rmmod
 * refuses; but `rmmod -f` (MODULE_FORCE_UNLOAD) unloads a module whatever
 * its references. As kprobes does, gilk then removes what depends on the
 * module while its text and data are still there (MODULE_STATE_GOING):
 * every splice in its text or using one of its instruments. (Its exit
 * function has run by then, and unregistered its instruments: that is
 * where their splices went, instrument.c.)
 */
#include <linux/module.h>
#include <linux/notifier.h>

#include "gilk_internal.h"

static int gilk_module_notify(struct notifier_block *nb, unsigned long val,
			      void *data)
{
	if (val == MODULE_STATE_GOING)
		gilk_unsplice_dependents(data, NULL);
	return NOTIFY_DONE;
}

static struct notifier_block gilk_module_nb = {
	.notifier_call = gilk_module_notify,
};

int gilk_modules_init(void)
{
	return register_module_notifier(&gilk_module_nb);
}

void gilk_modules_exit(void)
{
	unregister_module_notifier(&gilk_module_nb);
}
