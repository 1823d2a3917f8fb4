// SPDX-License-Identifier: GPL-2.0
/*
 * argfilter: an instrument outside gilk.ko. Spliced with the argument "N=V",
 * it records an event (the six argument registers) only when function
 * argument N (0-5) equals V. It shows that arguments are readable through the
 * kernel's own accessor on gilk's pt_regs, and that an instrument module
 * stays loaded while a splice uses it. It is a special case of a filter:
 * the shell gives such a splice gilk.ko's filter "argN == V" too, so the
 * other hits are turned away before the call, and the test here holds for
 * the hits that come.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ptrace.h>

#include "gilk.h"

static void argfilter_fn(const struct gilk_ctx *ctx)
{
	unsigned int n;
	unsigned long v, args[6];
	int i;

	if (sscanf(ctx->arg, "%u=%lu", &n, &v) != 2 || n > 5)
		return;
	if (regs_get_kernel_argument(ctx->regs, n) != v)
		return;
	for (i = 0; i < 6; i++)
		args[i] = regs_get_kernel_argument(ctx->regs, i);
	gilk_emit(ctx, args, sizeof(args));
}

/* the six arguments, shown in hex: most are pointers */
static const struct gilk_field argfilter_fields[] = {
	{ "arg0", GILK_FIELD_HEX }, { "arg1", GILK_FIELD_HEX }, { "arg2", GILK_FIELD_HEX },
	{ "arg3", GILK_FIELD_HEX }, { "arg4", GILK_FIELD_HEX }, { "arg5", GILK_FIELD_HEX },
};

static struct gilk_instrument argfilter = {
	.name = "argfilter",
	.help = "arg N=V: event with the 6 arguments when argument N equals V",
	.fn = argfilter_fn,
	.fields = argfilter_fields,
	.nfields = ARRAY_SIZE(argfilter_fields),
	.owner = THIS_MODULE,
};

module_gilk_instrument(argfilter);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gilk instrument: events when a function argument matches");
