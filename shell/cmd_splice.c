/* splice: instrument a location, or every block of a function, live. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "verdict.h"

#define MAX_BLOCKS GILK_BATCH_MAX

static int splice_one(struct session *s, const char *loc, unsigned flags,
		      const char *ins, const char *arg, struct gerr *e)
{
	const struct ksym *sym;
	struct splice_plan p;
	uint64_t addr, site;
	uint32_t id;
	char where[160], verdict[160];

	if (session_resolve(s, loc, &addr, e))
		return -1;
	/* At a function's start, instrument its first block: past ftrace. */
	site = addr;
	if (symtab_function(s->k->syms, addr, &sym, NULL, NULL) == 0 && sym->addr == addr)
		site = session_block_site(s, addr);
	if (session_plan(s, site, flags, &p, e) || live_splice(&s->lv, &p, ins, arg, &id, e))
		return -1;
	session_made(s, &id, 1);
	session_where_as(s, site, loc, where, sizeof(where));
	plan_verdict(&p, 1, verdict, sizeof(verdict));
	fprintf(s->out, "splice %u at %s: %s, instrument %s%s%s\n", id, where, verdict, ins,
		arg[0] ? " " : "", arg);
	return 0;
}

static int splice_blocks(struct session *s, const char *fn, const char *ins,
			 const char *arg, struct gerr *e)
{
	static const size_t max = MAX_BLOCKS;
	const struct ksym *sym;
	uint64_t addr, *sites;
	struct splice_plan *plans, *good;
	enum splice_reason *why;
	uint32_t *ids;
	bool *ok;
	size_t n, ngood = 0, refused[SR_NREASONS] = { 0 };
	int rc = -1;

	if (session_resolve(s, fn, &addr, e) || session_cfg(s, addr, &sym, e))
		return -1;
	n = s->cfg.nblocks < max ? s->cfg.nblocks : max;
	sites = calloc(n, sizeof(*sites));
	plans = calloc(n, sizeof(*plans));
	good = calloc(n, sizeof(*good));
	why = calloc(n, sizeof(*why));
	ids = calloc(n, sizeof(*ids));
	ok = calloc(n, sizeof(*ok));
	if (!sites || !plans || !good || !why || !ids || !ok) {
		gerr_set(e, "out of memory");
		goto out;
	}
	for (size_t b = 0; b < n; b++)
		sites[b] = session_block_site(s, s->cfg.blocks[b].start);
	live_plan_many(&s->lv, sites, n, 0, plans, ok, why);
	for (size_t b = 0; b < n; b++) {
		if (ok[b])
			good[ngood++] = plans[b];
		else
			refused[why[b]]++;
	}
	if (!ngood) {
		gerr_set(e, "no block of %s can be spliced", sym->name);
		goto out;
	}
	if (live_splice_batch(&s->lv, good, ngood, ins, arg, ids, e))
		goto out;
	session_made(s, ids, ngood);
	fprintf(s->out, "spliced %zu of %zu blocks of %s with %s in one batch: splices %u..%u\n",
		ngood, s->cfg.nblocks, sym->name, ins, ids[0], ids[ngood - 1]);
	for (int r = 1; r < SR_NREASONS; r++)
		if (refused[r])
			fprintf(s->out, "  %zu refused: %s\n", refused[r],
				splice_reason_name((enum splice_reason)r));
	if (s->cfg.nblocks > max)
		fprintf(s->out, "  only the first %zu blocks: a batch holds at most %zu\n", max, max);
	rc = 0;
out:
	free(sites);
	free(plans);
	free(good);
	free(why);
	free(ids);
	free(ok);
	return rc;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	unsigned flags = s->set.trap ? SPLICE_ALLOW_TRAP : 0;
	bool blocks = false;
	int i = 1;
	const char *ins = s->set.instrument, *arg = s->set.arg;

	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--blocks"))
			blocks = true;
		else if (!strcmp(argv[i], "--trap"))
			flags |= SPLICE_ALLOW_TRAP;
		else
			return gerr_set(e, "unknown option %s; usage: %s", argv[i], cmd_splice.usage);
	}
	if (argc - i < 1 || argc - i > 3)
		return command_usage(&cmd_splice, e);
	if (argc - i > 1) {
		ins = argv[i + 1];
		arg = argc - i > 2 ? argv[i + 2] : "";
	}
	if (blocks)
		return splice_blocks(s, argv[i], ins, arg, e);
	return splice_one(s, argv[i], flags, ins, arg, e);
}

const struct command cmd_splice = {
	.name = "splice",
	.run = run,
	.min_args = 1,
	.max_args = 5,
	.flags = CMD_LIVE,
	.offline_hint = "\"plan\" shows what it would do",
	.usage = "splice [--blocks] [--trap] LOCATION [INSTRUMENT [ARG]]",
	.help = "Splices INSTRUMENT (\"count\", or what \"set instrument\" says) at\n"
		"LOCATION in the running kernel; ARG is passed to it (quote it if it\n"
		"has blanks). At a function's start the splice goes past its ftrace\n"
		"call site. --blocks splices every block of LOCATION's function in one\n"
		"batch (one grace period); --trap lets a site no jump fits be served by\n"
		"an int3 at a kprobe's cost per hit (\"set trap on\": every splice).\n"
		"\"info instruments\" lists the instruments; \"info splices\" the splices.",
	.complete = COMPLETE_SYMBOL,
	.complete2 = COMPLETE_INSTRUMENT,
};
