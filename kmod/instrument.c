// SPDX-License-Identifier: GPL-2.0
/*
 * The instrument registry and the instruments built into gilk.ko:
 *   count  hits only, counted inline by its trampoline: count_fn only runs
 *          where a splice asks for the full template (GILK_SPLICE_FULL)
 *   tsc    an event with the TSC and a ns timestamp, as GILK's case study:
 *          written inline by its trampoline into the splice's ring
 *          (tscring.c); tsc_fn where that cannot be, and where a splice
 *          asks for the full template
 *   regs   an event with the general registers: function arguments show
 */
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "compat.h"

#include "gilk_internal.h"

static LIST_HEAD(instruments);
static DEFINE_MUTEX(instruments_lock);

/*
 * A name user space can filter by: a filter's identifier, not data.NAME.
 * ASCII only: the kernel's islower() takes Latin-1's letters too.
 */
static bool field_name_valid(const char *name)
{
	size_t i, len = name ? strnlen(name, GILK_FIELD_NAME_MAX) : 0;

	if (!len || len == GILK_FIELD_NAME_MAX || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (i = 0; i < len; i++)
		if (!(name[i] >= 'a' && name[i] <= 'z') && !(name[i] >= '0' && name[i] <= '9') &&
		    name[i] != '_')
			return false;
	return true;
}

/*
 * Names unique and valid, flags known, and the optional fields a tail: a
 * payload of n words then holds the first n fields, whatever n it is.
 */
static bool fields_valid(const struct gilk_field *f, u32 n)
{
	bool optional = false;
	u32 i, j;

	if (n > GILK_FIELDS_MAX || (n && !f))
		return false;
	for (i = 0; i < n; i++) {
		if (!field_name_valid(f[i].name) ||
		    (f[i].flags & ~(GILK_FIELD_HEX | GILK_FIELD_OPTIONAL)))
			return false;
		if (optional && !(f[i].flags & GILK_FIELD_OPTIONAL))
			return false;
		optional = f[i].flags & GILK_FIELD_OPTIONAL;
		for (j = 0; j < i; j++)
			if (!strcmp(f[i].name, f[j].name))
				return false;
	}
	return true;
}

int gilk_register_instrument(struct gilk_instrument *ins)
{
	struct gilk_instrument *i;
	int ret = 0;

	/* only gilk's own count and tsc are never called: they run inline */
	if (!ins->name || !ins->fn || strlen(ins->name) >= GILK_NAME_MAX ||
	    ins->needs > GILK_NEEDS_TSC ||
	    (ins->needs >= GILK_NEEDS_NOTHING && ins->owner != THIS_MODULE) ||
	    !fields_valid(ins->fields, ins->nfields))
		return -EINVAL;
	mutex_lock(&instruments_lock);
	list_for_each_entry(i, &instruments, node)
		if (!strcmp(i->name, ins->name))
			ret = -EEXIST;
	if (!ret) {
		atomic_set(&ins->users, 0);
		list_add_tail(&ins->node, &instruments);
	}
	mutex_unlock(&instruments_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(gilk_register_instrument);

void gilk_instrument_unlist(struct gilk_instrument *ins)
{
	mutex_lock(&instruments_lock);
	list_del(&ins->node);
	mutex_unlock(&instruments_lock);
}

struct gilk_instrument *gilk_instrument_get(const char *name)
{
	struct gilk_instrument *i, *found = NULL;

	mutex_lock(&instruments_lock);
	list_for_each_entry(i, &instruments, node) {
		if (strcmp(i->name, name))
			continue;
		if (i->owner == THIS_MODULE || try_module_get(i->owner)) {
			atomic_inc(&i->users);
			found = i;
		}
		break;
	}
	mutex_unlock(&instruments_lock);
	return found;
}

u32 gilk_instrument_needs(const struct gilk_instrument *ins)
{
	return ins->needs;
}

void gilk_instrument_put(struct gilk_instrument *ins)
{
	atomic_dec(&ins->users);
	if (ins->owner != THIS_MODULE)
		module_put(ins->owner);
}

static void copy_fields(struct gilk_instrument_info *out, const struct gilk_instrument *ins)
{
	u32 k;

	out->nfields = ins->nfields;
	for (k = 0; k < ins->nfields; k++) {
		strscpy(out->fields[k].name, ins->fields[k].name, sizeof(out->fields[k].name));
		out->fields[k].flags = ins->fields[k].flags;
	}
}

int gilk_instruments_list(struct gilk_instrument_info *out, u32 max, u32 *count)
{
	struct gilk_instrument *i;
	u32 n = 0;

	mutex_lock(&instruments_lock);
	list_for_each_entry(i, &instruments, node) {
		if (n < max) {
			memset(&out[n], 0, sizeof(out[n]));
			strscpy(out[n].name, i->name, sizeof(out[n].name));
			strscpy(out[n].help, i->help ? i->help : "", sizeof(out[n].help));
			strscpy(out[n].module, i->owner ? module_name(i->owner) : "gilk",
				sizeof(out[n].module));
			out[n].users = atomic_read(&i->users);
			out[n].needs = i->needs;
			copy_fields(&out[n], i);
		}
		n++;
	}
	mutex_unlock(&instruments_lock);
	*count = n;
	return 0;
}

/* The builtins' functions run on the hit path (hitpath.c): no kprobe there. */
static notrace void count_fn(const struct gilk_ctx *ctx)
{
}
NOKPROBE_SYMBOL(count_fn);

static notrace void tsc_fn(const struct gilk_ctx *ctx)
{
	struct gilk_tsc_event ev = { .tsc = gilk_arch_counter() };

	gilk_emit(ctx, &ev, sizeof(ev));
}
NOKPROBE_SYMBOL(tsc_fn);

/* rax..r15, rip, rflags: the order of regs_fields */
static notrace void regs_fn(const struct gilk_ctx *ctx)
{
	const struct pt_regs *r = ctx->regs;
	u64 ev[] = {
#define GILK_REG(name, member, dwarf) (r->member),
#define GILK_STATE(name, member, field) (r->member),
#include "gilk_regs.h"
	};

	gilk_emit(ctx, ev, sizeof(ev));
}
NOKPROBE_SYMBOL(regs_fn);

enum { BUILTIN_COUNT, BUILTIN_TSC, BUILTIN_REGS };

static const struct gilk_field tsc_fields[] = { { "tsc" } };

#define REG(name) { name, GILK_FIELD_HEX }
static const struct gilk_field regs_fields[] = {
#define GILK_REG(name, member, dwarf) REG(#name),
#define GILK_STATE(name, member, field) REG(#name),
#include "gilk_regs.h"
};

static struct gilk_instrument builtins[] = {
	[BUILTIN_COUNT] = { .name = "count", .help = "count hits (no events), inline in the trampoline",
	  .fn = count_fn, .needs = GILK_NEEDS_NOTHING },
	[BUILTIN_TSC] = { .name = "tsc", .help = "event per hit: TSC (and ns timestamp)", .fn = tsc_fn,
	  .needs = GILK_NEEDS_SCRATCH, .fields = tsc_fields, .nfields = ARRAY_SIZE(tsc_fields) },
	[BUILTIN_REGS] = { .name = "regs", .help = "event per hit: general registers, rip, rflags",
	  .fn = regs_fn, .fields = regs_fields, .nfields = ARRAY_SIZE(regs_fields) },
};

int gilk_builtin_init(void)
{
	int i, ret;

	if (gilk_arch_counter_inline())
		builtins[BUILTIN_TSC].needs = GILK_NEEDS_TSC;
	for (i = 0; i < ARRAY_SIZE(builtins); i++) {
		builtins[i].owner = THIS_MODULE;	/* only gilk may need nothing */
		ret = gilk_register_instrument(&builtins[i]);
		if (ret) {
			while (i--)
				gilk_instrument_unlist(&builtins[i]);
			return ret;
		}
	}
	return 0;
}

/*
 * After gilk_unsplice_all() (or before the device was there): no splice
 * holds them, unless one was abandoned, which never lets go of them.
 */
void gilk_builtin_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(builtins); i++) {
		gilk_instrument_unlist(&builtins[i]);
		if (atomic_read(&builtins[i].users))
			pr_warn("gilk: instrument %s still has %d users\n", builtins[i].name,
				atomic_read(&builtins[i].users));
	}
}
