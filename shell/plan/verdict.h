/* verdict: a plan in a few words, as blocks, plan and splice print it. */
#ifndef GILK_VERDICT_H
#define GILK_VERDICT_H

#include <stddef.h>

#include "splice.h"

void plan_verdict(const struct splice_plan *p, int ok, char *buf, size_t len);

/* What a block's splice site was moved past, "(past ftrace) " or "(past
 * bti c) " and the like, or "" when the site is the block's start: a nop
 * or call there is ftrace's, anything else a landing pad, named as
 * disassembled. */
void site_note(const struct cfg *g, struct decoder *d, uint64_t start, uint64_t site,
	       char *buf, size_t len);

#endif
