// SPDX-License-Identifier: GPL-2.0
/*
 * Where the jmp a site's chain of joined splices is entered by stands
 * (joined.c): at the site, or in the bounce slot the site's jmp rel8
 * reaches; a trap site has none.
 */
#include "gilk_internal.h"

unsigned long gilk_join_at_of(const struct gilk_splice_obj *s)
{
	if (s->flags & GILK_SPLICE_TRAP)
		return 0;	/* an int3 and a divert: no jmp to rewrite */
	if (s->npatch == 2)	/* the site's jmp rel8 reaches the slot */
		return s->site + 2 + (s8)s->patch[1].bytes[1];
	return s->site;
}
