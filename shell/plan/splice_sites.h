/*
 * splice_sites: several sites spliced as one, all or none, in one batch
 * (one grace period): a function's exits, or its entry with its exits for
 * latency. A site that cannot be spliced refuses the whole set, naming it:
 * an exit left out would leave every call through it unseen.
 */
#ifndef GILK_SPLICE_SITES_H
#define GILK_SPLICE_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "session/session.h"

/* Splices sites[0..n) with uses[i] (nuses == n) or uses[0] (nuses == 1);
 * ids[i] for site i. flags as for splice_plan. */
int splice_sites_all(struct session *s, const uint64_t *sites, size_t n,
		     unsigned flags, const struct live_use *uses, size_t nuses,
		     uint32_t *ids, struct gerr *e);

#endif
