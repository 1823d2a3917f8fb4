/* latency: time a function's calls, from its entry to its return points. */
#include <stdio.h>
#include <stdlib.h>

#include "commands/commands.h"
#include "session/location.h"
#include "site_filter.h"
#include "plan/splice_sites.h"

/* The sites of FUNC:entry then FUNC:exit, in *sites (malloc'd). */
static int entry_and_exits(struct session *s, const struct location *fn, uint64_t **sites,
			   size_t *n, size_t *cond, struct gerr *e)
{
	struct location at = *fn;
	struct loc_site *entry, *exits;
	size_t nentry, nexits;

	at.kind = LOC_ENTRY;
	if (location_sites(s, &at, &entry, &nentry, NULL, e))
		return -1;
	at.kind = LOC_EXIT;
	if (location_sites(s, &at, &exits, &nexits, cond, e)) {
		free(entry);
		return -1;
	}
	*n = 1 + nexits;
	*sites = calloc(*n, sizeof(**sites));
	if (*sites) {
		(*sites)[0] = entry[0].site;
		for (size_t i = 0; i < nexits; i++)
			(*sites)[1 + i] = exits[i].site;
	}
	free(entry);
	free(exits);
	return *sites ? 0 : gerr_set(e, "out of memory");
}

static int latency_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct location fn;
	struct live_use *uses = NULL;
	uint64_t *sites = NULL;
	uint32_t *ids = NULL;
	size_t n, cond = 0;
	int rc = -1;
	struct gilk_filter filter;
	bool filtered;

	/* the entry and the exits take the same filter: the task's fields only */
	if (site_filter_args(s->set.filter_self, &argc, argv, SF_TASK, true, &filter, &filtered, e))
		return -1;
	if (location_parse(s, argv + 1, 1, &fn, e))
		return -1;
	if (fn.kind != LOC_ADDR)
		return gerr_set(e, "latency takes a function, not %s: it splices FUNC:entry and FUNC:exit",
				argv[1]);
	if (entry_and_exits(s, &fn, &sites, &n, &cond, e))
		return -1;
	uses = calloc(n, sizeof(*uses));
	ids = calloc(n, sizeof(*ids));
	if (!uses || !ids) {
		gerr_set(e, "out of memory");
		goto out;
	}
	uses[0] = (struct live_use){ "latency", "entry", filtered ? &filter : NULL, NULL, NULL };
	for (size_t i = 1; i < n; i++)
		uses[i] = (struct live_use){ "latency", "exit", filtered ? &filter : NULL, NULL, NULL };
	if (splice_sites_all(s, sites, n, 0, uses, n, ids, e))
		goto out;
	fprintf(s->out, "timing %s: splice %u at its entry, %u..%u at its %zu return point%s%s%s\n",
		fn.func, ids[0], ids[1], ids[n - 1], n - 1, n == 2 ? "" : "s",
		filtered ? ", if " : "", filtered ? filter.text : "");
	if (cond)
		fprintf(s->out, "  %zu conditional exit%s not spliced: calls leaving there are not timed\n",
			cond, cond == 1 ? "" : "s");
	fprintf(s->out, "\"hist ns\" draws the durations; \"events\" lists them\n");
	rc = 0;
out:
	free(uses);
	free(sites);
	free(ids);
	return rc;
}

const struct command cmd_latency = {
	.name = "latency",
	.group = GROUP_SPLICE,
	.run = latency_command,
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_LIVE | CMD_IF,
	.offline_hint = "\"blocks FUNC:exit\" shows where it would splice",
	.usage = "latency FUNCTION [if EXPR]",
	.help = "Times every call of FUNCTION: splices the latency instrument (module\n"
		"latency.ko) at FUNCTION:entry and at each of its return points\n"
		"(FUNCTION:exit), all in one batch. Each call that returns records an\n"
		"event with its duration in ns (field ns), the task's pid, the calls\n"
		"still open below it (depth), and the running counts of calls not\n"
		"timed (overflows) and of entries or exits that found no partner\n"
		"(unmatched). Entries and exits are paired per task, so a call may\n"
		"sleep or move to another CPU. \"hist ns\" draws the durations,\n"
		"\"events\" and \"dump events\" list them; \"unsplice\" ends it.\n"
		"if EXPR: only calls where EXPR holds at entry and exit are timed, by\n"
		"gilk.ko (as splice's \"if\"); it reads pid, tid, comm, cpu and context,\n"
		"which are the same at both ends: latency vfs_read if comm == \"dd\".\n"
		"Under \"set filter-self on\" gilk's own calls are not timed.",
	.complete = COMPLETE_SYMBOL,
};
