/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gilk.ko's own trampoline templates: the bytes a trampoline runs before the
 * relocated instructions. The checker (verify.c) compares what user space
 * proposes with these, byte for byte, so every template a plan may use is
 * listed here and nowhere else in the kernel.
 *
 * The one template today, "full": a struct pt_regs built on the stack as the
 * site saw the machine (flags and every general register), cld (the site
 * may be between std and cld, as memmove's backward copy is), clac where
 * SMAP is on, a call handler(ctx, regs), every register and the flags restored
 * from pt_regs (an instrument may change them), rsp as it was. The kernel
 * has no red zone, so the frame starts right at rsp.
 */
#ifndef _GILK_TRAMP_H
#define _GILK_TRAMP_H

#include "verify_env.h"

#define GILK_TRAMP_HEADER_MAX 320

struct gilk_tramp_params {
	unsigned long tramp;	/* where the header runs */
	unsigned long site;	/* pt_regs->ip */
	unsigned long ctx;	/* the handler's first argument */
	unsigned long handler;
	bool clac;
};

/* Writes the header into buf (GILK_TRAMP_HEADER_MAX bytes); returns its length. */
size_t gilk_tramp_header(u8 *buf, const struct gilk_tramp_params *p);

#endif
