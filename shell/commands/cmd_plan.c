/* plan: how a splice at a location would go, without splicing. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "plan/blockset.h"
#include "session/lines.h"
#include "commands/commands.h"
#include "events/fetch.h"
#include "session/location.h"
#include "reloc_arm64.h"
#include "template.h"
#include "plan/verdict.h"

/* replayed: the first instruction is a BUG/WARN ud2 gilk.ko replays. */
static void show_region(struct session *s, const char *what,
			const struct splice_region *r, bool replayed)
{
	unsigned skip = replayed ? r->insns[0].len : 0;
	char where[160];

	session_where(s, r->addr, where, sizeof(where));
	fprintf(s->out, "%s: %s, %u bytes (%s%u in %u instructions relocated):", what,
		where, r->len, replayed ? "the ud2 replayed, " : "", r->live - skip,
		r->ninsn - (replayed ? 1 : 0));
	for (unsigned i = 0; i < r->len; i++)
		fprintf(s->out, " %02x", r->orig[i]);
	fprintf(s->out, "\n");
}

/* arm64: the site's instruction as its trampoline would run it, where the
 * planner puts trampolines (past the kernel's text, within a b's reach of
 * all of it). The rest of an arm64 trampoline comes with gilk.ko there. */
static int show_arm64_relocated(struct session *s, const struct splice_plan *p,
				struct gerr *e)
{
	uint32_t w, out[RELOC_ARM64_MAX];
	struct splice_env env;
	size_t n;

	kernel_env(s->k, &s->w, &env);
	memcpy(&w, p->region.orig, 4);
	if (reloc_arm64(w, p->region.addr, env.tramp_hint, out, &n) != RELOC_OK)
		return gerr_set(e, "the instruction at 0x%" PRIx64 " planned but did not relocate",
				p->region.addr);
	fprintf(s->out, "relocated: %zu word%s for a trampoline at 0x%" PRIx64 ":", n,
		n == 1 ? "" : "s", env.tramp_hint);
	for (size_t i = 0; i < n; i++)
		fprintf(s->out, " %08" PRIx32, out[i]);
	fprintf(s->out, "\n(gilk.ko does not splice arm64 kernels yet: the plan ends here)\n");
	return 0;
}

/* What splice --blocks would do with the same words. */
static int plan_blocks(struct session *s, char *const *args, int nargs, struct gerr *e)
{
	struct blockset bs;

	if (blockset_collect(s, args, nargs, &bs, e) || blockset_plan(s, &bs, e))
		return -1;
	blockset_report(s, &bs, "spliceable");
	fprintf(s->out, "%zu of %zu blocks of %zu function%s spliceable\n", bs.ngood, bs.nsites,
		bs.nfns, bs.nfns == 1 ? "" : "s");
	blockset_free(&bs);
	return 0;
}

/* A FUNC:... location with several sites: a verdict line for each. */
static int plan_sites(struct session *s, const struct location *loc, struct gerr *e)
{
	struct loc_site *sites;
	size_t n, nok = 0, cond = 0;
	struct gerr pe;

	if (location_sites(s, loc, &sites, &n, &cond, e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct splice_plan p;
		char where[160], verdict[160];
		int ok = session_plan(s, sites[i].site, 0, &p, &pe) == 0;

		session_where_as(s, sites[i].site, loc->func, where, sizeof(where));
		plan_verdict(&p, ok, verdict, sizeof(verdict));
		nok += ok;
		fprintf(s->out, "block %zu at %s%s%s: %s\n", sites[i].block, where,
			loc->kind == LOC_EXIT ? ", " : "",
			loc->kind == LOC_EXIT ? exit_kind_str(sites[i].exit.kind) : "", verdict);
	}
	fprintf(s->out, "%zu of %zu sites can be spliced\n", nok, n);
	if (cond)
		fprintf(s->out, "%zu conditional exit%s (a jcc out of the function): not return points\n",
			cond, cond == 1 ? "" : "s");
	free(sites);
	return 0;
}

/* "plan ... fetch EXPR": the program gilk.ko would run, as kprobe events
 * would write it, checked offline against the kernel's BTF. */
static int show_fetch(struct session *s, const char *text, const struct location *loc,
		      struct gerr *e)
{
	struct cexpr_site site;
	struct gilk_fetch f;
	char desc[700];

	fetch_site_at(s, loc, &site);
	if (fetch_compile(s, text, &site, &f, e))
		return -1;
	for (uint32_t i = 0; i < f.len; i++) {
		fetch_describe(&f.value[i], desc, sizeof(desc));
		fprintf(s->out, "fetch %s: %s\n", f.value[i].name, desc);
	}
	return 0;
}

static int plan_one(struct session *s, int argc, char **argv, struct location *loc,
		    struct gerr *e);

static int plan_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	char text[512];
	struct location loc;
	bool fetch = fetch_take(&argc, argv, text, sizeof(text));

	memset(&loc, 0, sizeof(loc));
	loc.kind = LOC_BLOCKS;
	if (argc < 2)
		return command_usage(&cmd_plan, e);
	if (plan_one(s, argc, argv, &loc, e))
		return -1;
	return fetch ? show_fetch(s, text, loc.kind == LOC_BLOCKS ? NULL : &loc, e) : 0;
}

static int plan_one(struct session *s, int argc, char **argv, struct location *out,
		    struct gerr *e)
{
	struct splice_plan p;
	struct location loc;
	struct loc_site *sites;
	size_t n;
	uint64_t addr;
	char verdict[160];

	if (!strcmp(argv[1], "--blocks"))
		return argc > 2 ? plan_blocks(s, argv + 2, argc - 2, e) : command_usage(&cmd_plan, e);
	/* FILE:LINE names the blocks of a line, as splice takes it */
	if (lines_is_fileline(argv[1]) || lines_is_file(argv[1]))
		return plan_blocks(s, argv + 1, argc - 1, e);
	if (argc > 1 + location_nwords(argv[1]))
		return command_usage(&cmd_plan, e);
	if (location_parse(s, argv + 1, argc - 1, &loc, e))
		return -1;
	*out = loc;
	if (!location_is_single(&loc))
		return plan_sites(s, &loc, e);
	addr = loc.addr;
	if (loc.kind != LOC_ADDR) {
		if (location_sites(s, &loc, &sites, &n, NULL, e))
			return -1;
		addr = sites[0].site;
		free(sites);
	}
	if (session_plan(s, addr, 0, &p, e))
		return -1;
	plan_verdict(&p, 1, verdict, sizeof(verdict));
	fprintf(s->out, "%s\n", verdict);
	show_region(s, "region", &p.region, p.bug != BUG_NONE);
	if (p.mode == SPLICE_BOUNCE && p.bounce_kind == BOUNCE_EVICT)
		show_region(s, "evicted", &p.evict, false);
	if (arch_info(p.region.insns[0].arch)->one_insn_region)
		return show_arm64_relocated(s, &p, e);
	fprintf(s->out, "trampoline: up to %zu bytes (%zu with count)%s\n",
		template_tramp_size(&p, GILK_TRAMP_FULL), template_tramp_size(&p, GILK_TRAMP_COUNT),
		p.bounce_kind == BOUNCE_EVICT ? " (and one for the evicted code)" : "");
	if (p.bug != BUG_NONE)
		fprintf(s->out, "the ud2 is a %s site: it stays out of the trampoline, and gilk.ko replays\n"
			"it after the instrument as the trap handler would (%s)\n",
			p.bug == BUG_WARN ? "WARN()" : "BUG()",
			p.bug == BUG_WARN ? "the WARNING report, then on after the ud2"
					  : "the kernel BUG report, then an oops");
	return 0;
}

const struct command cmd_plan = {
	.name = "plan",
	.group = GROUP_CODE,
	.run = plan_command,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.usage = "plan [--blocks] LOCATION... [fetch EXPR[, EXPR]...]",
	.help = "Shows how a splice at LOCATION would be made: a 5-byte jmp, or a\n"
		"2-byte jmp to a bounce slot; the bytes it displaces and how many of\n"
		"them are instructions to relocate; or why it cannot be made. A\n"
		"BUG()/WARN() ud2 may start a region: gilk.ko replays it after the\n"
		"instrument. On arm64: a b over one instruction, and the words that\n"
		"instruction is relocated to. Works offline too. An address is used\n"
		"as given (see \"blocks\" for ftrace); FUNC:entry and FUNC:block N\n"
		"are planned at their splice site; FUNC:exit and FUNC:blocks show a\n"
		"verdict per site; FILE:LINE (FILE:FIRST-LAST, a whole FILE) the blocks\n"
		"of that line's code in every function it is in, as --blocks does.\n"
		"--blocks: for every block of each function named, and of every\n"
		"function a glob matches ('tcp_*'), how many could be spliced and why\n"
		"the others could not, per function. fetch EXPR: the program gilk.ko\n"
		"would run for \"splice ... fetch EXPR\", as kprobe events write it\n"
		"(plan do_sys_openat2 fetch filename: +0(%si):string).",
	.complete = COMPLETE_LOCATION,
};
