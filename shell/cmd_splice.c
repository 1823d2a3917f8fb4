/* splice: instrument a location, or every block of a function, live. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "location.h"
#include "splice_sites.h"
#include "verdict.h"

#define MAX_BLOCKS GILK_BATCH_MAX

/* The one site of an address, FUNC:entry or FUNC:block N. */
static int single_site(struct session *s, const struct location *loc, uint64_t *site,
		       struct gerr *e)
{
	const struct ksym *sym;
	struct loc_site *sites;
	size_t n;

	if (loc->kind != LOC_ADDR) {
		if (location_sites(s, loc, &sites, &n, NULL, e))
			return -1;
		*site = sites[0].site;
		free(sites);
		return 0;
	}
	/* At a function's start, instrument its first block: past ftrace. */
	*site = loc->addr;
	if (symtab_function(s->k->syms, loc->addr, &sym, NULL, NULL) == 0 && sym->addr == loc->addr)
		*site = session_block_site(s, loc->addr);
	return 0;
}

static int splice_one(struct session *s, const struct location *loc, unsigned flags,
		      const char *ins, const char *arg, struct gerr *e)
{
	struct splice_plan p;
	uint64_t site;
	uint32_t id;
	char where[160], verdict[160];

	if (single_site(s, loc, &site, e))
		return -1;
	if (session_plan(s, site, flags, &p, e) || live_splice(&s->lv, &p, ins, arg, &id, e))
		return -1;
	session_made(s, &id, 1);
	session_where_as(s, site, loc->func, where, sizeof(where));
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

/* FUNC:exit: every return point in one batch, all or none. */
static int splice_exits(struct session *s, const struct location *loc, unsigned flags,
			const char *ins, const char *arg, struct gerr *e)
{
	struct live_use use = { ins, arg };
	struct loc_site *exits;
	uint64_t *sites = NULL;
	uint32_t *ids = NULL;
	size_t n, cond;
	int rc = -1;

	if (location_sites(s, loc, &exits, &n, &cond, e))
		return -1;
	sites = calloc(n, sizeof(*sites));
	ids = calloc(n, sizeof(*ids));
	if (!sites || !ids) {
		gerr_set(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		sites[i] = exits[i].site;
	if (splice_sites_all(s, sites, n, flags, &use, 1, ids, e))
		goto out;
	fprintf(s->out, "spliced the %zu return point%s of %s with %s in one batch: splices %u..%u\n",
		n, n == 1 ? "" : "s", loc->func, ins, ids[0], ids[n - 1]);
	for (size_t i = 0; i < n; i++) {
		char where[160];

		session_where_as(s, sites[i], loc->func, where, sizeof(where));
		fprintf(s->out, "  splice %u at %s: %s (block %zu)\n", ids[i], where,
			exit_kind_str(exits[i].exit.kind), exits[i].block);
	}
	if (cond)
		fprintf(s->out, "  %zu conditional exit%s (a jcc out of the function) not spliced: \"blocks\" shows %s\n",
			cond, cond == 1 ? "" : "s", cond == 1 ? "it" : "them");
	rc = 0;
out:
	free(exits);
	free(sites);
	free(ids);
	return rc;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct location loc;
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
	if (argc - i < 1 || argc - i - location_nwords(argv[i]) > 2)
		return command_usage(&cmd_splice, e);
	if (location_parse(s, argv + i, argc - i, &loc, e))
		return -1;
	i += loc.words - 1;
	if (argc - i > 1) {
		ins = argv[i + 1];
		arg = argc - i > 2 ? argv[i + 2] : "";
	}
	if (blocks && loc.kind != LOC_ADDR)
		return gerr_set(e, "--blocks takes a function, not %s:...; FUNC:blocks is the same", loc.func);
	if (blocks || loc.kind == LOC_BLOCKS)
		return splice_blocks(s, loc.func, ins, arg, e);
	if (loc.kind == LOC_EXIT)
		return splice_exits(s, &loc, flags, ins, arg, e);
	return splice_one(s, &loc, flags, ins, arg, e);
}

const struct command cmd_splice = {
	.name = "splice",
	.run = run,
	.min_args = 1,
	.max_args = 6,
	.flags = CMD_LIVE,
	.offline_hint = "\"plan\" shows what it would do",
	.usage = "splice [--blocks] [--trap] LOCATION [INSTRUMENT [ARG]]",
	.help = "Splices INSTRUMENT (\"count\", or what \"set instrument\" says) at\n"
		"LOCATION in the running kernel; ARG is passed to it (quote it if it\n"
		"has blanks). At a function's start the splice goes past its ftrace\n"
		"call site. LOCATION may be FUNC:entry (the same), FUNC:exit (every\n"
		"return point: ret, return thunk, tail call, spliced before it, so rax\n"
		"holds the return value; all in one batch, or none), FUNC:blocks or\n"
		"FUNC:block N (as \"blocks\" numbers them). --blocks is FUNC:blocks:\n"
		"every block of LOCATION's function in one\n"
		"batch (one grace period); --trap lets a site no jump fits be served by\n"
		"an int3 at a kprobe's cost per hit (\"set trap on\": every splice).\n"
		"\"info instruments\" lists the instruments; \"info splices\" the splices.",
	.complete = COMPLETE_LOCATION,
	.complete2 = COMPLETE_INSTRUMENT,
};
