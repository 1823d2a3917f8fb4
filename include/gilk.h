/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instrument API of gilk.ko. An instrument module registers named
 * functions; a splice calls one on every hit, with the registers the spliced
 * code had. Registration pins nothing; a splice that uses an instrument holds
 * a reference on its module until the splice is gone.
 */
#ifndef _GILK_H
#define _GILK_H

#include <linux/device/driver.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/types.h>

#include "uapi/gilk.h"

struct gilk_ctx {
	u32 splice;		/* splice id */
	int cpu;
	unsigned long site;	/* spliced address */
	struct pt_regs *regs;	/* as the site saw them; writable. NULL
				 * for an instrument that needs none
				 */
	const char *arg;	/* argument string given at splice time */
};

/* One 64-bit word of an instrument's payload, as user space names it. */
struct gilk_field {
	const char *name;	/* [a-z_][a-z0-9_]*, shorter than GILK_FIELD_NAME_MAX */
	u32 flags;		/* GILK_FIELD_HEX, GILK_FIELD_OPTIONAL */
};

struct gilk_instrument {
	const char *name;
	const char *help;
	void (*fn)(const struct gilk_ctx *ctx);
	struct module *owner;	/* THIS_MODULE */
	/*
	 * GILK_NEEDS_REGS (0): ctx->regs is a full struct pt_regs;
	 * GILK_NEEDS_SCRATCH: ctx->regs is NULL, and a hit costs less (the
	 * trampoline saves only what the call clobbers). NOTHING and TSC are
	 * gilk's own.
	 */
	u32 needs;
	/*
	 * What its events hold, published through GILK_IOC_INSTRUMENTS: the
	 * payload gilk_emit() gets is one u64 per field, in this order. None:
	 * user space shows the payload's bytes.
	 */
	const struct gilk_field *fields;
	u32 nfields;
	struct list_head node;	/* gilk's */
	atomic_t users;		/* gilk's */
};

int gilk_register_instrument(struct gilk_instrument *ins);
void gilk_unregister_instrument(struct gilk_instrument *ins);

/*
 * The init and exit of a module that only registers one instrument:
 * module_gilk_instrument(my_instrument) in place of both.
 */
#define module_gilk_instrument(__ins) \
	module_driver(__ins, gilk_register_instrument, gilk_unregister_instrument)

/* Records an event: payload (at most 4000 bytes) with a timestamp. Returns 0,
 * or -ENOSPC when the buffer is full (the splice's lost count goes up).
 */
int gilk_emit(const struct gilk_ctx *ctx, const void *payload, u16 len);

/*
 * The kernel stack at the hit, walked from regs (ctx->regs: an instrument
 * that needs GILK_NEEDS_REGS) by the kernel's unwinder: the site, then the
 * return addresses, innermost first, at most max of them. Returns how many;
 * *more says whether the walk stopped at max with frames beyond.
 */
unsigned int gilk_stack(const struct pt_regs *regs, u64 *frames, unsigned int max,
			bool *more);

#endif
