/* coverage: which blocks of a set of functions ran, live. */
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "plan/coverage.h"
#include "site_filter.h"

static int find_set(struct session *s, struct gerr *e)
{
	return coverage_session_set(s, false, e);
}

static int need_set(struct session *s, struct gerr *e)
{
	return coverage_session_set(s, true, e);
}

/* What the functions from the before-th on came to, and why blocks were
 * refused, most common reason first. */
static void summary(struct session *s, size_t before)
{
	size_t spliced = 0, refused = 0, blocks = 0, why[SR_NREASONS] = { 0 };

	if (before == s->cov->nfuncs) {
		const struct coverage *c = s->cov;

		if (!c->named_no_code)
			fprintf(s->out, "coverage: every function named is in the set already (%zu functions)\n",
				before);
		else if (!c->named_already)
			fprintf(s->out, "coverage: no function named has a block that can run (%zu: padding, or code nothing reaches)\n",
				c->named_no_code);
		else
			fprintf(s->out, "coverage: nothing to add: %zu functions named are in the set already, %zu have no block that can run\n",
				c->named_already, c->named_no_code);
		return;
	}
	for (size_t i = before; i < s->cov->nfuncs; i++)
		blocks += s->cov->funcs[i].n;
	for (size_t i = s->cov->nblocks - blocks; i < s->cov->nblocks; i++) {
		const struct cov_block *b = &s->cov->blocks[i];

		spliced += b->id != 0;
		refused += !b->id;
		if (!b->id && b->why > SPLICE_OK && b->why < SR_NREASONS)
			why[b->why]++;
	}
	fprintf(s->out, "coverage of %zu functions: %zu blocks spliced with count, %zu refused",
		s->cov->nfuncs - before, spliced, refused);
	for (const char *sep = ": "; ; sep = ", ") {
		size_t most = 0;
		int w = 0;

		for (int r = 1; r < SR_NREASONS; r++)
			if (why[r] > most)
				most = why[(w = r)];
		if (!most)
			break;
		fprintf(s->out, "%s%zu %s", sep, most, splice_reason_name((enum splice_reason)w));
		why[w] = 0;
	}
	fputc('\n', s->out);
}

static int coverage_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	const char *what = argv[1];
	struct gilk_filter filter;
	bool filtered;
	size_t before;

	/* inline counts stay inline unless a filter is asked for */
	if (site_filter_args(s->set.filter_self, &argc, argv, SF_ANY, false, &filter, &filtered, e))
		return -1;
	if (!strcmp(what, "report") && argc == 3 && !filtered) {
		if (need_set(s, e) || coverage_read(s, s->cov, e))
			return -1;
		return coverage_report_lines(s, s->cov, argv[2], e);
	}
	if (!strcmp(what, "report") || !strcmp(what, "reset") || !strcmp(what, "stop")) {
		if (argc != 2 || filtered)
			return gerr_set(e, "coverage %s takes nothing more%s", what,
					strcmp(what, "report") ? "" : " than a FILE or FUNC");
		if (need_set(s, e))
			return -1;
		if (!strcmp(what, "stop")) {
			size_t n = s->cov->nfuncs;

			if (coverage_stop(s, s->cov, e))
				return -1;
			fprintf(s->out, "coverage stopped: its splices in %zu functions removed\n", n);
			return 0;
		}
		if (!strcmp(what, "reset")) {
			if (coverage_reset(s, s->cov, e))
				return -1;
			fprintf(s->out, "coverage reset: hits count from now\n");
			return 0;
		}
		if (coverage_read(s, s->cov, e))
			return -1;
		coverage_write(s->out, FMT_TEXT, s->cov);
		return 0;
	}
	if (find_set(s, e))
		return -1;
	before = s->cov->nfuncs;
	if (coverage_start(s, s->cov, argv + 1, (size_t)argc - 1, filtered ? &filter : NULL, e))
		return -1;
	summary(s, before);
	return 0;
}

const struct command cmd_coverage = {
	.name = "coverage",
	.group = GROUP_SPLICE,
	.run = coverage_command,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.flags = CMD_LIVE | CMD_IF,
	.offline_hint = "\"blocks FUNC\" shows which blocks could be spliced",
	.usage = "coverage FUNC|GLOB|FILE[:LINE]... [if EXPR] | coverage report [FILE[:LINES]|FUNC] | coverage reset|stop",
	.help = "coverage FUNC|GLOB...: splices every spliceable block of the functions\n"
		"(a glob such as 'tcp_*' matches function names) with the built-in count,\n"
		"which counts inline in the trampoline; more functions may be added later.\n"
		"Blocks are planned and spliced 4096 at a time, so 'coverage *' takes the\n"
		"whole kernel in bounded memory; past a second, how far it is goes to\n"
		"stderr (a line a second, or one line rewritten at a terminal).\n"
		"After an error or Ctrl-C nothing of the command is left. Coverage\n"
		"that another gilk started (gilk -batch) is taken over: its splices\n"
		"carry the argument \"coverage\".\n"
		"if EXPR: only hits where EXPR holds count (gilk.ko tests it, as for\n"
		"splice's \"if\"; the count is then a call, not inline):\n"
		"coverage 'ext4_*' if comm == \"dd\".\n"
		"coverage FILE (fs/namei.c, or a tail of its path: namei.c), FILE:LINE or\n"
		"FILE:FIRST-LAST: the blocks those lines' code is in, in every function\n"
		"it is compiled into (inlined copies too), from the kernel's line index.\n"
		"coverage report: per function, the blocks that ran (hit), could be\n"
		"spliced (spliceable) and could not (refused), and the total.\n"
		"coverage report FILE|FILE:FIRST-LAST|FUNC: per source line, as gcov\n"
		"annotates a file: how often it ran (the most any of its blocks ran in\n"
		"each function it is compiled into, added up), ##### for code that\n"
		"never ran, - for a line with no code, ? for code whose blocks could\n"
		"not be spliced (not counted).\n"
		"coverage reset: hits count from zero again. coverage stop: removes\n"
		"the splices. \"disas\" and \"blocks --dot\" show each block's hits;\n"
		"\"dump coverage FILE\" writes a row per block (CSV) or JSON, or with\n"
		"--format lcov a tracefile that lcov's genhtml renders as HTML.",
	.complete = COMPLETE_SYMBOL,
};
