/* Plans in words (see verdict.h). */
#include "verdict.h"

#include <inttypes.h>
#include <stdio.h>

void plan_verdict(const struct splice_plan *p, int ok, char *buf, size_t len)
{
	static const char *const kinds[] = {
		[BOUNCE_NONE] = "", [BOUNCE_PADDING] = "via padding",
		[BOUNCE_TAIL] = "via a splice's dead tail", [BOUNCE_EVICT] = "via an evicted neighbour",
	};

	static const char *const bugs[] = {
		[BUG_NONE] = "", [BUG_BUG] = ", BUG replayed", [BUG_WARN] = ", WARN replayed",
	};

	if (!ok)
		snprintf(buf, len, "refused: %s", splice_reason_name(p->reason));
	else if (p->mode == SPLICE_BOUNCE)
		snprintf(buf, len, "bounce %s, slot 0x%" PRIx64 ", region %u bytes%s",
			 kinds[p->bounce_kind], p->slot, p->region.len, bugs[p->bug]);
	else
		snprintf(buf, len, "%s, region %u bytes%s%s", splice_mode_name(p->mode),
			 p->region.len, bugs[p->bug],
			 p->image_only ? " (image bytes differ at run time)" : "");
}
