/* Plans in words (see verdict.h). */
#include "plan/verdict.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
	else if (p->mode == SPLICE_JOIN)
		snprintf(buf, len, "joins the splices there, region %u bytes", p->region.len);
	else if (p->mode == SPLICE_BOUNCE)
		snprintf(buf, len, "bounce %s, slot 0x%" PRIx64 ", region %u bytes%s",
			 kinds[p->bounce_kind], p->slot, p->region.len, bugs[p->bug]);
	else
		snprintf(buf, len, "%s, region %u bytes%s%s",
			 p->mode == SPLICE_JMP && p->region.ninsn ?
			 arch_info(p->region.insns[0].arch)->jump : splice_mode_name(p->mode),
			 p->region.len, bugs[p->bug],
			 p->image_only ? " (image bytes differ at run time)" : "");
}

void site_note(const struct cfg *g, struct decoder *d, uint64_t start, uint64_t site,
	       char *buf, size_t len)
{
	bool ftrace = false;
	size_t used = 0;

	buf[0] = 0;
	if (site == start)
		return;
	used = (size_t)snprintf(buf, len, "(past ");
	for (ssize_t i = cfg_insn_at(g, start); i >= 0 && (size_t)i < g->ninsn &&
	     g->insns[i].addr < site && used < len; i++) {
		char text[64];

		static const uint8_t sealed[] = { 0x66, 0x0f, 0x1f, 0x00 };

		/* the nop4 IBT's boot makes of the endbr64 of a function
		 * never called indirectly (6.12) */
		if (g->insns[i].len == 4 && !memcmp(g->insns[i].bytes, sealed, 4) &&
		    g->insns[i].addr == g->start) {
			used += (size_t)snprintf(buf + used, len - used, "%ssealed endbr64",
						 used > 6 ? ", " : "");
			continue;
		}
		/* ftrace's site: x86's call __fentry__ (a nop5 once booted),
		 * arm64's nops; a landing pad is neither */
		if (g->insns[i].nop || g->insns[i].kind == IK_CALL) {
			if (!ftrace)
				used += (size_t)snprintf(buf + used, len - used, "%sftrace",
							 used > 6 ? ", " : "");
			ftrace = true;
		} else if (!decode_text(d, &g->insns[i], text, sizeof(text))) {
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used > 6 ? ", " : "", text);
		}
	}
	if (used < len)
		snprintf(buf + used, len - used, ") ");
}
