/* plan: how a splice at a location would go, without splicing. */
#include <inttypes.h>
#include <stdio.h>

#include "commands.h"
#include "verdict.h"

static void show_region(struct session *s, const char *what,
			const struct splice_region *r)
{
	char where[160];

	session_where(s, r->addr, where, sizeof(where));
	fprintf(s->out, "%s: %s, %u bytes (%u in %u instructions relocated):", what,
		where, r->len, r->live, r->ninsn);
	for (unsigned i = 0; i < r->len; i++)
		fprintf(s->out, " %02x", r->orig[i]);
	fprintf(s->out, "\n");
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct splice_plan p;
	uint64_t addr;
	char verdict[160];

	if (argc != 2)
		return gerr_set(e, "usage: %s", cmd_plan.usage);
	if (session_resolve(s, argv[1], &addr, e))
		return -1;
	if (session_plan(s, addr, 0, &p, e))
		return -1;
	plan_verdict(&p, 1, verdict, sizeof(verdict));
	fprintf(s->out, "%s\n", verdict);
	show_region(s, "region", &p.region);
	if (p.mode == SPLICE_BOUNCE && p.bounce_kind == BOUNCE_EVICT)
		show_region(s, "evicted", &p.evict);
	fprintf(s->out, "trampoline: up to %zu bytes%s\n", splice_tramp_size(&p),
		p.bounce_kind == BOUNCE_EVICT ? " (and one for the evicted code)" : "");
	return 0;
}

const struct command cmd_plan = {
	.name = "plan",
	.run = run,
	.usage = "plan LOCATION",
	.help = "Shows how a splice at LOCATION would be made: a 5-byte jmp, or a\n"
		"2-byte jmp to a bounce slot; the bytes it displaces and how many of\n"
		"them are instructions to relocate; or why it cannot be made. Works\n"
		"offline too. LOCATION is used as given (see \"blocks\" for ftrace).",
	.complete = COMPLETE_SYMBOL,
};
