// SPDX-License-Identifier: GPL-2.0
/*
 * An instrument built outside instruments/, as an instrument author's
 * would be: the shell has never heard of its fields, and names them from
 * what it publishes. Before registering, it offers gilk.ko field lists that
 * must each be refused, and says in the parameter "refused" how many were.
 *
 * Its event: answer (42), where (the site, hex), and then, unless the
 * splice's argument is "short", pid (optional).
 */
#include <linux/module.h>
#include <linux/sched.h>

#include "gilk.h"

static int refused;
module_param(refused, int, 0444);
MODULE_PARM_DESC(refused, "how many of the bad field lists gilk.ko refused");

static void fields_fn(const struct gilk_ctx *ctx)
{
	u64 ev[3] = { 42, ctx->site, task_pid_nr(current) };

	gilk_emit(ctx, ev, strcmp(ctx->arg, "short") ? sizeof(ev) : 2 * sizeof(ev[0]));
}

static const struct gilk_field fields[] = {
	{ "answer" }, { "where", GILK_FIELD_HEX }, { "pid", GILK_FIELD_OPTIONAL },
};

static struct gilk_instrument fields_instrument = {
	.name = "gilk_fields",
	.help = "test: answer, where (the site) and pid, fields the shell does not know",
	.fn = fields_fn,
	.owner = THIS_MODULE,
	.fields = fields,
	.nfields = ARRAY_SIZE(fields),
};

/* Each is one fault away from a good list. */
static const struct gilk_field upper[] = { { "Answer" } };
static const struct gilk_field latin1[] = { { "caf\xe9" } };
static const struct gilk_field digit_first[] = { { "0x" } };
static const struct gilk_field dotted[] = { { "data.x" } };
static const struct gilk_field empty[] = { { "" } };
static const struct gilk_field unnamed[] = { { NULL } };
static const struct gilk_field too_long[] = { { "abcdefghijklmnop" } };
static const struct gilk_field twice[] = { { "a" }, { "b" }, { "a" } };
static const struct gilk_field unknown_flag[] = { { "a", 0x4 } };
static const struct gilk_field required_after_optional[] = {
	{ "a" }, { "b", GILK_FIELD_OPTIONAL }, { "c" },
};
static const struct gilk_field many[GILK_FIELDS_MAX + 1] = {
	{ "f0" }, { "f1" }, { "f2" }, { "f3" }, { "f4" }, { "f5" }, { "f6" }, { "f7" },
	{ "f8" }, { "f9" }, { "f10" }, { "f11" }, { "f12" }, { "f13" }, { "f14" },
	{ "f15" }, { "f16" }, { "f17" }, { "f18" },
};

static const struct {
	const struct gilk_field *fields;
	u32 n;
} bad[] = {
	{ upper, 1 }, { latin1, 1 }, { digit_first, 1 }, { dotted, 1 }, { empty, 1 }, { unnamed, 1 },
	{ too_long, 1 }, { twice, 3 }, { unknown_flag, 1 }, { required_after_optional, 3 },
	{ many, GILK_FIELDS_MAX + 1 }, { NULL, 1 },
};

static int __init gilk_fields_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct gilk_instrument ins = fields_instrument;

		ins.name = "gilk_fields_bad";
		ins.fields = bad[i].fields;
		ins.nfields = bad[i].n;
		if (gilk_register_instrument(&ins) == -EINVAL)
			refused++;
		else
			gilk_unregister_instrument(&ins);
	}
	return gilk_register_instrument(&fields_instrument);
}

static void __exit gilk_fields_exit(void)
{
	gilk_unregister_instrument(&fields_instrument);
}

module_init(gilk_fields_init);
module_exit(gilk_fields_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gilk test instrument: fields it publishes, and lists gilk.ko refuses");
