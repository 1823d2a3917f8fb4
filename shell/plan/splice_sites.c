/* Several sites spliced all or none (see splice_sites.h). */
#include "plan/splice_sites.h"

#include <stdlib.h>

#include "splice.h"

int splice_sites_all(struct session *s, const uint64_t *sites, size_t n,
		     unsigned flags, const struct live_use *uses, size_t nuses,
		     uint32_t *ids, struct gerr *e)
{
	struct splice_plan *plans = calloc(n, sizeof(*plans));
	enum splice_reason *why = calloc(n, sizeof(*why));
	bool *ok = calloc(n, sizeof(*ok));
	uint64_t *tramps = calloc(n, sizeof(*tramps));
	int rc = -1;

	if (!plans || !why || !ok || !tramps) {
		gerr_set(e, "out of memory");
		goto out;
	}
	if (n > GILK_BATCH_MAX) {
		gerr_set(e, "%zu sites: a batch holds at most %d", n, GILK_BATCH_MAX);
		goto out;
	}
	if (live_plan_many(&s->lv, sites, n, flags, plans, ok, why) < n) {
		char where[160], owner[256] = "";
		size_t bad = 0;

		while (ok[bad])
			bad++;
		session_where(s, sites[bad], where, sizeof(where));
		if (why[bad] == SR_OCCUPIED)
			live_owner_text(&s->lv, sites[bad], SPLICE_REGION_MAX, owner, sizeof(owner));
		gerr_set(e, "cannot splice at %s: %s%s; nothing was spliced", where,
			 splice_reason_str(why[bad]), owner);
		goto out;
	}
	if (live_splice_batch_made(&s->lv, plans, n, uses, nuses, ids, tramps, e))
		goto out;
	session_made(s, ids, plans, tramps, n);
	rc = 0;
out:
	free(tramps);
	free(plans);
	free(why);
	free(ok);
	return rc;
}
