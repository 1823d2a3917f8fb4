// SPDX-License-Identifier: GPL-2.0
/*
 * Modules that go away under splices. A splice holds a reference on the
 * module whose text it patches and on its instrument's module, so rmmod
 * refuses; but `rmmod -f` (MODULE_FORCE_UNLOAD) unloads a module whatever
 * its references. As kprobes does, gilk then removes what depends on the
 * module while its text and data are still there (MODULE_STATE_GOING):
 * every splice in its text or using one of its instruments.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/slab.h>

#include "gilk_internal.h"

static bool depends_on(const struct gilk_splice_obj *s, const struct module *mod)
{
	return s->text_mod == mod || (s->ins && s->ins->owner == mod);
}

/* Splices of mod still on their way in or out: they settle first. */
static bool settling(const struct module *mod)
{
	unsigned int i;

	for (i = 1; i < GILK_MAX_SPLICES; i++) {
		const struct gilk_splice_obj *s = gilk_splices[i];

		if (s && depends_on(s, mod) &&
		    (s->state == GILK_SPLICING || s->state == GILK_UNSPLICING))
			return true;
	}
	return false;
}

static void unsplice_module(struct module *mod)
{
	u32 *ids, n = 0, failed, i;

	ids = kcalloc(GILK_MAX_SPLICES, sizeof(*ids), GFP_KERNEL | __GFP_NOFAIL);
	for (;;) {
		mutex_lock(&gilk_lock);
		if (!settling(mod))
			break;
		mutex_unlock(&gilk_lock);
		msleep(20);
	}
	for (i = 1; i < GILK_MAX_SPLICES; i++) {
		const struct gilk_splice_obj *s = gilk_splices[i];

		if (s && s->state == GILK_ACTIVE && depends_on(s, mod))
			ids[n++] = i;
	}
	mutex_unlock(&gilk_lock);
	for (i = 0; i < n; i += GILK_BATCH_MAX)
		if (gilk_unsplice_batch(ids + i, min_t(u32, n - i, GILK_BATCH_MAX), &failed))
			pr_warn("gilk: a splice depending on module %s could not be removed\n",
				mod->name);
	if (n)
		pr_info("gilk: module %s is going: %u splices removed\n", mod->name, n);
	kfree(ids);
}

static int gilk_module_notify(struct notifier_block *nb, unsigned long val,
			      void *data)
{
	if (val == MODULE_STATE_GOING)
		unsplice_module(data);
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
