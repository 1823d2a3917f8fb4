/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How gilk.ko refuses a splice: through the table of
 * uapi/gilk_refusals.h, one row per kind of reason, with its errno. Neutral
 * between the kernel and the user-space build of the checker.
 */
#ifndef _GILK_REFUSAL_H
#define _GILK_REFUSAL_H

/*
 * Where a check says why it refuses: the kind (GILK_REFUSED_*) and the
 * sentence that says where, for the request to carry back.
 */
struct gilk_why {
	__u32 *code;
	char *text;
	size_t len;
};

/* The request's own refusal and reason. */
#define GILK_WHY(req) \
	((struct gilk_why){ &(req)->refusal, (req)->reason, sizeof((req)->reason) })

/* The errno the table gives code, negative. */
static inline int gilk_refusal_errno(__u32 code)
{
	static const int errnos[] = {
		0,	/* GILK_REFUSED_NONE */
#define GILK_REFUSAL(c, err, name, meaning) (-(err)),
#include "uapi/gilk_refusals.h"
#undef GILK_REFUSAL
	};

	_Static_assert(ARRAY_SIZE(errnos) == GILK_NREFUSALS, "a row per code");

	return code && code < GILK_NREFUSALS ? errnos[code] : -EINVAL;
}

#endif
