// SPDX-License-Identifier: GPL-2.0
/*
 * skb: at a site where a register holds a struct sk_buff * (a function's
 * first argument unless the splice's argument names another: arg0..arg5 or
 * a register, rax..r15), an event with the packet's length, its protocol
 * (host order: 0x800 is IPv4), the skb's own timestamp (0 until something
 * stamps it) and the skb's address. The register is only what the user says
 * it is: the fields are read with copy_from_kernel_nofault(), so a pointer
 * that is not an skb gives nonsense or no event, never a fault; events carry
 * the count of hits with no event (an unknown register name, or memory
 * that could not be read).
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gilk.h"

struct skb_event {
	u64 skb;
	u64 len;
	u64 protocol;
	u64 tstamp;
	u64 unreadable;	/* hits whose register or skb could not be read */
};

static atomic64_t unreadable;

static const struct {
	const char *name;
	unsigned int off;
} regs_by_name[] = {
#define GILK_REG(name, member, dwarf) { #name, offsetof(struct pt_regs, member) },
#include "gilk_regs.h"
};

/* The register the argument names; false when it names none. */
static bool skb_pointer(const struct gilk_ctx *ctx, unsigned long *out)
{
	const char *a = ctx->arg[0] ? ctx->arg : "arg0";
	unsigned int i;

	if (!strncmp(a, "arg", 3) && a[3] >= '0' && a[3] <= '5' && !a[4]) {
		*out = regs_get_kernel_argument(ctx->regs, a[3] - '0');
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(regs_by_name); i++) {
		if (!strcmp(a, regs_by_name[i].name)) {
			*out = regs_get_register(ctx->regs, regs_by_name[i].off);
			return true;
		}
	}
	return false;
}

static void skb_instrument_fn(const struct gilk_ctx *ctx)
{
	struct skb_event ev;
	unsigned long p;
	unsigned int len;
	__be16 proto;
	ktime_t t;

	if (!skb_pointer(ctx, &p)) {
		atomic64_inc(&unreadable);
		return;
	}
	if (copy_from_kernel_nofault(&len, &((struct sk_buff *)p)->len, sizeof(len)) ||
	    copy_from_kernel_nofault(&proto, &((struct sk_buff *)p)->protocol, sizeof(proto)) ||
	    copy_from_kernel_nofault(&t, &((struct sk_buff *)p)->tstamp, sizeof(t))) {
		atomic64_inc(&unreadable);
		return;
	}
	ev.skb = p;
	ev.len = len;
	ev.protocol = ntohs(proto);
	ev.tstamp = ktime_to_ns(t);
	ev.unreadable = atomic64_read(&unreadable);
	gilk_emit(ctx, &ev, sizeof(ev));
}

/* struct skb_event's words, in order */
static const struct gilk_field skb_fields[] = {
	{ "skb", GILK_FIELD_HEX }, { "len" }, { "protocol", GILK_FIELD_HEX }, { "tstamp" },
	{ "unreadable" },
};
static_assert(sizeof(struct skb_event) == ARRAY_SIZE(skb_fields) * sizeof(u64));

static struct gilk_instrument skb_instrument = {
	.name = "skb",
	.help = "arg argN|REG (arg0): an sk_buff's len, protocol and tstamp",
	.fn = skb_instrument_fn,
	.fields = skb_fields,
	.nfields = ARRAY_SIZE(skb_fields),
	.owner = THIS_MODULE,
};

module_gilk_instrument(skb_instrument);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gilk instrument: sk_buff length, protocol and timestamp");
