/* splice: instrument a location, or every block of a function, live. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/aggregate.h"
#include "plan/blockset.h"
#include "commands/commands.h"
#include "session/lines.h"
#include "session/location.h"
#include "events/fetch.h"
#include "site_filter.h"
#include "plan/splice_sites.h"
#include "session/types.h"
#include "plan/verdict.h"

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

/* What a splice is asked for beside its location. */
struct use {
	const char *ins, *arg;
	const struct gilk_filter *filter;	/* NULL: none */
	const struct gilk_fetch *fetch;		/* NULL: none */
	const struct gilk_agg *agg;		/* NULL: none */
};

/* The instrument as the messages name it: count's aggregation in full. */
static const char *ins_text(const struct use *u)
{
	return u->agg ? u->agg->text : u->ins;
}

/* " if EXPR" for the messages, or "". */
static const char *if_text(const struct use *u, char *buf, size_t len)
{
	if (!u->filter && !u->fetch)
		return "";
	snprintf(buf, len, "%s%s%s%s", u->fetch ? " fetch " : "", u->fetch ? u->fetch->text : "",
		 u->filter ? " if " : "", u->filter ? u->filter->text : "");
	return buf;
}

static int splice_one(struct session *s, const struct location *loc, unsigned flags,
		      const struct use *u, struct gerr *e)
{
	struct live_use use = { u->ins, u->arg, u->filter, u->fetch, u->agg };
	const char *ins = ins_text(u), *arg = u->arg;
	char cond[GILK_FILTER_TEXT_MAX + GILK_FETCH_TEXT_MAX + 16];
	struct splice_plan p;
	uint64_t site;
	uint32_t id;
	uint64_t tramp;
	char where[160], verdict[160];

	if (single_site(s, loc, &site, e))
		return -1;
	if (session_plan(s, site, flags, &p, e) ||
	    live_splice_batch_made(&s->lv, &p, 1, &use, 1, &id, &tramp, e))
		return -1;
	session_made(s, &id, &p, &tramp, 1);
	session_where_as(s, site, loc->func, where, sizeof(where));
	plan_verdict(&p, 1, verdict, sizeof(verdict));
	fprintf(s->out, "splice %u at %s: %s, instrument %s%s%s%s\n", id, where, verdict, ins,
		arg[0] ? " " : "", arg, if_text(u, cond, sizeof(cond)));
	return 0;
}

/* Every block of the functions args name or match, in one batch. */
static int splice_blocks(struct session *s, char *const *args, int nargs,
			 const struct use *u, struct gerr *e)
{
	struct live_use use = { u->ins, u->arg, u->filter, u->fetch, u->agg };
	const char *ins = ins_text(u);
	char cond[GILK_FILTER_TEXT_MAX + GILK_FETCH_TEXT_MAX + 16];
	struct blockset bs;
	uint32_t *ids = NULL;
	uint64_t *tramps = NULL;
	int rc = -1;

	if (blockset_collect(s, args, nargs, &bs, e) || blockset_plan(s, &bs, e))
		goto out;
	if (!bs.ngood) {
		gerr_set(e, "no block of %s can be spliced",
			 bs.nfns == 1 ? bs.fns[0].sym->name : "these functions");
		goto out;
	}
	ids = calloc(bs.ngood, sizeof(*ids));
	tramps = calloc(bs.ngood, sizeof(*tramps));
	if (!ids || !tramps) {
		gerr_set(e, "out of memory");
		goto out;
	}
	blockset_progress(&bs, "splicing");
	if (live_splice_batch_made(&s->lv, bs.plans, bs.ngood, &use, 1, ids, tramps, e))
		goto out;
	progress_end(&bs.pr);
	session_made(s, ids, bs.plans, tramps, bs.ngood);
	if (bs.nfns == 1) {
		const struct blockset_fn *f = &bs.fns[0];

		fprintf(s->out, "spliced %zu of %zu blocks of %s with %s%s in one batch: splices %u..%u\n",
			bs.ngood, f->nblocks, f->sym->name, ins, if_text(u, cond, sizeof(cond)),
			ids[0], ids[bs.ngood - 1]);
		for (int r = 1; r < SR_NREASONS; r++)
			if (f->refused[r])
				fprintf(s->out, "  %zu refused: %s\n", f->refused[r],
					splice_reason_name((enum splice_reason)r));
	} else {
		struct gilk_stats st;

		blockset_report(s, &bs, "spliced");
		fprintf(s->out, "spliced %zu of %zu blocks of %zu functions with %s%s in one batch: splices %u..%u\n",
			bs.ngood, bs.nsites, bs.nfns, ins, if_text(u, cond, sizeof(cond)),
			ids[0], ids[bs.ngood - 1]);
		if (live_stats(&s->lv, &st, e) == 0 && st.splices) {
			fprintf(s->out, "gilk.ko: %u splices, %" PRIu64 " bytes of trampolines (%" PRIu64 " each) in %" PRIu64 " KiB of module memory",
				st.splices, (uint64_t)st.tramp_bytes,
				(uint64_t)(st.tramp_bytes / st.splices),
				(uint64_t)(st.tramp_mapped / 1024));
			if (st.tsc_ring_bytes)
				fprintf(s->out, ", %" PRIu64 " KiB of tsc rings",
					(uint64_t)(st.tsc_ring_bytes / 1024));
			fputc('\n', s->out);
		}
	}
	rc = 0;
out:
	free(ids);
	free(tramps);
	blockset_free(&bs);
	return rc;
}

/*
 * The filter gilk.ko runs for the splice, once its instrument is known:
 * EXPR (NULL: none); argfilter's "N=V" as the test argN == V, so that
 * gilk.ko turns the other hits away before the call (argfilter is that
 * special case of a filter); and under filter-self, gilk's own task left
 * out where there is a filter or the instrument is called anyway. An
 * inline count or tsc without a filter stays inline: tsc's events of
 * gilk's own are left out when read.
 */
/* The fetch of a splice, compiled for its site (an aggregation's key may name its values). */
static int use_fetch(struct session *s, struct use *u, const char *text,
		     const struct location *loc, struct gilk_fetch *fetch, struct gerr *e)
{
	struct cexpr_site site;

	u->fetch = NULL;
	if (!text)
		return 0;
	fetch_site_at(s, loc, &site);
	if (fetch_compile(s, text, &site, fetch, e))
		return -1;
	u->fetch = fetch;
	return 0;
}

/*
 * The fetched values join the events an instrument records: count records
 * none, and fetches only for its aggregation's key.
 */
static int fetch_used(struct session *s, const struct use *u, const char *text, struct gerr *e)
{
	struct gilk_instrument_info *list;
	bool silent = false;
	size_t nlist;

	if (!u->fetch || (u->agg && u->agg->key >= GILK_AGG_KEY_FETCH &&
			  u->agg->key < GILK_AGG_KEY_FETCH + GILK_FETCH_MAX))
		return 0;
	if (live_instruments(&s->lv, &list, &nlist, e))
		return -1;
	for (size_t i = 0; i < nlist; i++)
		if (!strncmp(list[i].name, u->ins, sizeof(list[i].name)))
			silent = list[i].needs == GILK_NEEDS_NOTHING;
	free(list);
	if (silent)
		return gerr_set(e, "fetch: %s records no events for the values to join; splice an "
				"instrument that does (splice LOCATION regs fetch %s), or count by "
				"what it fetches (count by NAME fetch %s)", u->ins, text, text);
	return 0;
}

static int use_filter(struct session *s, struct use *u, const char *expr,
		      const struct location *loc, struct gilk_filter *filter, struct gerr *e)
{
	struct cexpr_site site;
	const char *names[SITE_FILTER_NAMES_MAX], *as_p[SITE_FILTER_NAMES_MAX];
	char as[SITE_FILTER_NAMES_MAX][8];
	struct gilk_instrument_info *list;
	char both[GILK_FILTER_TEXT_MAX + 64];
	unsigned n;
	unsigned long long v;
	bool calls = false;
	size_t nlist;
	int end = 0;
	size_t n_named = 0;

	if (!strcmp(u->ins, "argfilter") &&
	    sscanf(u->arg, "%u=%llu%n", &n, &v, &end) == 2 && !u->arg[end] && n <= 5) {
		if (expr)
			snprintf(both, sizeof(both), "(%s) && arg%u == %llu", expr, n, v);
		else
			snprintf(both, sizeof(both), "arg%u == %llu", n, v);
		expr = both;
	}
	if (!expr && s->set.filter_self) {
		if (live_instruments(&s->lv, &list, &nlist, e))
			return -1;
		for (size_t i = 0; i < nlist; i++)
			if (!strncmp(list[i].name, u->ins, sizeof(list[i].name)))
				calls = list[i].needs <= GILK_NEEDS_SCRATCH;
		free(list);
	}
	u->filter = NULL;
	if (!expr && !calls)
		return 0;
	/* parameters' names cost the kernel's BTF: read only for a filter that
	 * names a field the site's registers do not */
	if (site_filter_compile(expr, SF_ANY, s->set.filter_self,
				filter, e)) {
		if (!expr)
			return -1;
		fetch_site_at(s, loc, &site);
		/* parameters at the entry as their argument registers, locals
		 * in a register mid-function as those */
		for (int k = 0; k < site.nparams; k++, n_named++) {
			snprintf(as[n_named], sizeof(as[n_named]), "arg%d", k);
			names[n_named] = site.params[k];
			as_p[n_named] = as[n_named];
		}
		for (int k = 0; k < site.nlocals && n_named < SITE_FILTER_NAMES_MAX - 1; k++) {
			if (site.locals[k].kind != LINE_LOCAL_REG)
				continue;
			snprintf(as[n_named], sizeof(as[n_named]), "%s",
				 fetch_field_name(site.locals[k].field));
			names[n_named] = site.locals[k].name;
			as_p[n_named] = as[n_named];
			n_named++;
		}
		names[n_named] = NULL;
		if (!n_named || site_filter_compile_names(expr, SF_ANY,
							  s->set.filter_self,
							  names, as_p, filter, e))
			return -1;
	}
	u->filter = filter;
	return 0;
}

/*
 * The aggregation of a splice: count's, with "count" the instrument when
 * none was named (whatever "set instrument" says: hist FIELD is count's).
 */
static int use_agg(struct session *s, struct use *u, const struct agg_words *aw,
		   const struct location *loc, bool named, struct gilk_agg *agg, struct gerr *e)
{
	u->agg = NULL;
	if (!agg_given(aw))
		return 0;
	if (!named)
		u->ins = "count";
	if (agg_compile(s, loc, aw, u->ins, u->fetch, agg, e))
		return -1;
	u->agg = agg;
	return 0;
}

/* Whether name is an instrument gilk.ko has. */
static bool is_instrument(const struct gilk_instrument_info *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(list[i].name, name, sizeof(list[i].name)))
			return true;
	return false;
}

/*
 * With --blocks: functions and patterns up to the first word that names an
 * instrument, which an ARG may follow.
 */
static int run_blocks(struct session *s, int argc, char **argv, int i, struct use *u,
		      const char *expr, struct gilk_filter *filter, const char *fetch_text,
		      struct gilk_fetch *fetch, const struct agg_words *aw, struct gilk_agg *agg,
		      struct gerr *e)
{
	struct gilk_instrument_info *list;
	size_t nlist;
	int end = i;

	if (live_instruments(&s->lv, &list, &nlist, e))
		return -1;
	while (end < argc && !is_instrument(list, nlist, argv[end]))
		end++;
	free(list);
	if (end == i || argc - end > 2)
		return command_usage(&cmd_splice, e);
	if (end < argc) {
		u->ins = argv[end];
		u->arg = argc - end > 1 ? argv[end + 1] : "";
	}
	if (use_fetch(s, u, fetch_text, NULL, fetch, e) ||
	    use_agg(s, u, aw, NULL, end < argc, agg, e) || use_filter(s, u, expr, NULL, filter, e) ||
	    fetch_used(s, u, fetch_text, e))
		return -1;
	return splice_blocks(s, argv + i, end - i, u, e);
}

/* FUNC:exit: every return point in one batch, all or none. */
static int splice_exits(struct session *s, const struct location *loc, unsigned flags,
			const struct use *u, struct gerr *e)
{
	struct live_use use = { u->ins, u->arg, u->filter, u->fetch, u->agg };
	char cond_text[GILK_FILTER_TEXT_MAX + GILK_FETCH_TEXT_MAX + 16];
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
	fprintf(s->out, "spliced the %zu return point%s of %s with %s%s in one batch: splices %u..%u\n",
		n, n == 1 ? "" : "s", loc->func, ins_text(u), if_text(u, cond_text, sizeof(cond_text)),
		ids[0], ids[n - 1]);
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

static int splice_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct location loc;
	unsigned flags = s->set.trap ? SPLICE_ALLOW_TRAP : 0;
	bool blocks = false;
	int i = 1;
	struct use u = { s->set.instrument, s->set.arg, NULL, NULL, NULL };
	struct gilk_filter filter;
	struct gilk_fetch fetch;
	struct gilk_agg agg;
	struct agg_words aw;
	const char *expr = site_filter_take(&argc, argv);
	char fetch_buf[512];
	const char *fetch_text = fetch_take(&argc, argv, fetch_buf, sizeof(fetch_buf)) ?
				 fetch_buf : NULL;

	agg_take(&argc, argv, &aw);

	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--blocks"))
			blocks = true;
		else if (!strcmp(argv[i], "--trap"))
			flags |= SPLICE_ALLOW_TRAP;
		else
			return gerr_set(e, "unknown option %s; usage: %s", argv[i], cmd_splice.usage);
	}
	/* FILE:LINE names the blocks of a line, in every function it is in */
	if (i < argc && (lines_is_fileline(argv[i]) || lines_is_file(argv[i])))
		blocks = true;
	/* the filter is compiled once the instrument is known */
	if (blocks)
		return run_blocks(s, argc, argv, i, &u, expr, &filter, fetch_text, &fetch, &aw, &agg,
				  e);
	if (argc - i < 1 || argc - i - location_nwords(argv[i]) > 2)
		return command_usage(&cmd_splice, e);
	if (location_parse(s, argv + i, argc - i, &loc, e))
		return -1;
	i += loc.words - 1;
	if (argc - i > 1) {
		u.ins = argv[i + 1];
		u.arg = argc - i > 2 ? argv[i + 2] : "";
	}
	if (use_fetch(s, &u, fetch_text, &loc, &fetch, e) ||
	    use_agg(s, &u, &aw, &loc, argc - i > 1, &agg, e) ||
	    use_filter(s, &u, expr, &loc, &filter, e) || fetch_used(s, &u, fetch_text, e))
		return -1;
	if (loc.kind == LOC_BLOCKS) {
		char *name = loc.func;

		return splice_blocks(s, &name, 1, &u, e);
	}
	if (loc.kind == LOC_EXIT)
		return splice_exits(s, &loc, flags, &u, e);
	return splice_one(s, &loc, flags, &u, e);
}

const struct command cmd_splice = {
	.name = "splice",
	.group = GROUP_SPLICE,
	.run = splice_command,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.flags = CMD_LIVE | CMD_IF,
	.offline_hint = "\"plan\" shows what it would do",
	.usage = "splice [--blocks] [--trap] LOCATION... [INSTRUMENT [ARG] | count by KEY | hist FIELD [by KEY] | lhist FIELD MIN MAX STEP [by KEY]] [fetch EXPR[, EXPR]...] [if EXPR]",
	.help = "Splices INSTRUMENT (\"count\", or what \"set instrument\" says) at\n"
		"LOCATION in the running kernel; ARG is passed to it (quote it if it\n"
		"has blanks). At a function's start the splice goes past its ftrace\n"
		"call site. LOCATION may be FUNC:entry (the same), FUNC:exit (every\n"
		"return point: ret, return thunk, tail call, spliced before it, so rax\n"
		"holds the return value; all in one batch, or none), FUNC:blocks or\n"
		"FUNC:block N (as \"blocks\" numbers them), or FILE:LINE (FILE:FIRST-LAST,\n"
		"or a whole FILE): the blocks that line's code is in, in every function\n"
		"it is compiled into, inlined copies too (\"info line\" lists them), as\n"
		"--blocks does. --blocks splices every block\n"
		"of each function named, and of every function a glob matches ('tcp_*')\n"
		"or a shared name's every copy does (NAME@*; NAME@ADDR is one of them),\n"
		"in one batch of any size (one grace period, all or none), and says per\n"
		"function what was spliced and refused; the first word that names an\n"
		"instrument ends the functions. --trap lets a site no jump fits be\n"
		"served by an int3 at a kprobe's cost per hit (\"set trap on\": every\n"
		"splice). A site already spliced takes more, up to 16: each joins the\n"
		"splices there (\"info splices\" marks it joined), runs before them,\n"
		"and keeps its own counts, filter and removal, as kprobes at one\n"
		"address; the site's bytes come back with the last. A trap-mode site\n"
		"takes one.\n"
		"if EXPR: gilk.ko runs the instrument only for hits where EXPR holds, and\n"
		"counts the others as filtered; it reads pid, tid, comm, cpu, context\n"
		"(task, softirq, irq, nmi), arg0..arg5 (at a function's entry also by\n"
		"their names in its BTF prototype: count for vfs_read; mid-function, the\n"
		"locals \"info scope\" puts in a register), rax..r15, rip,\n"
		"rflags and retval (rax), with == != < <= > >= & && || ! and ~ (a glob\n"
		"on comm), as\n"
		"\"events if\" does: splice vfs_read regs if comm == \"cat\" && arg2 > 4096.\n"
		"A filter makes an inline count or tsc a call; one that reads registers\n"
		"takes the full template. Under \"set filter-self on\" gilk's own process\n"
		"is left out (\"not gilk\") by every filter, and by any splice whose\n"
		"instrument is called, while this gilk runs: a kept splice leaves out no one.\n"
		"fetch EXPR[, EXPR]...: at every hit the instrument records, gilk.ko reads\n"
		"up to four values and appends them to the event, as kprobe events' fetch\n"
		"arguments do; each EXPR is C over what the hit has: a parameter by name at\n"
		"a function's entry, retval at FUNC:exit, mid-function the parameters and\n"
		"locals \"info scope\" lists, a register (rdi, arg0), current,\n"
		"a global, with -> . [N] * and casts. A char array or char pointer is read\n"
		"as a string (at most 64 bytes through a pointer). NAME=EXPR names a value;\n"
		"otherwise its last name does (file->f_pos is f_pos): events, hist (by\n"
		"NAME), \"events if\" and dump show it by that name, and a read that faults\n"
		"shows <fault>: splice do_sys_openat2 regs fetch filename, how->flags.\n"
		"\"plan LOCATION fetch EXPR\" shows the program.\n"
		"count by KEY, hist FIELD [by KEY], lhist FIELD MIN MAX STEP [by KEY]: the\n"
		"hits counted per KEY, or FIELD's values drawn per KEY in power-of-two\n"
		"(hist) or linear (lhist) buckets, by gilk.ko in a map per CPU, exact\n"
		"however fast the hits come, as bpftrace's @[comm] = count() and\n"
		"hist(arg2) are: no events. KEY and FIELD are what a filter reads (comm,\n"
		"pid, tid, cpu, context, arg0..arg5, a register, retval, a parameter's\n"
		"name); KEY can also be stack (or kstack): each distinct kernel stack at\n"
		"the hit, walked by the kernel's unwinder on every hit (up to 32 frames),\n"
		"kept once and counted, as bpftrace's @[kstack] = count(); or the name\n"
		"of a value the splice fetches, as the fetch read it (a string's first 15\n"
		"bytes): splice do_sys_openat2 count by filename fetch filename, as\n"
		"bpftrace's @[str(args->filename)] = count(). \"hist SPLICE\"\n"
		"shows the maps, \"hist SPLICE clear\" counts again from 0, \"hist SPLICE\n"
		"every N\" shows each N seconds' until Ctrl-C, and \"dump hist\" writes\n"
		"them (stacks folded for flame graphs too): splice vfs_read hist count by\n"
		"comm.\n"
		"\"info instruments\" lists the instruments; \"info splices\" the splices.",
	.complete = COMPLETE_LOCATION,
	.complete2 = COMPLETE_INSTRUMENT,
};
