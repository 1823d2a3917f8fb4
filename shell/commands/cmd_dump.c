/* dump: kernel memory, events or splices, to a file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/commands.h"
#include "plan/coverage.h"
#include "session/lines.h"
#include "events/event_fields.h"
#include "events/agg_map.h"
#include "output/formats.h"

#define DUMP_MEMORY_MAX (64u << 20)

/* Closes f; a write error anywhere (a full disk) is the command's error. */
static int finish(FILE *f, const char *path, struct gerr *e)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		unlink(path);
		return gerr_set(e, "%s: write error", path);
	}
	return 0;
}

static int dump_memory(struct session *s, int argc, char **argv, struct gerr *e)
{
	uint64_t start, end, len;
	uint8_t *buf;
	char where[160];
	FILE *f;

	(void)argc;
	if (session_resolve(s, argv[2], &start, e))
		return -1;
	if (argv[3][0] == '+') {
		char *rest;

		len = strtoull(argv[3] + 1, &rest, 0);
		if (*rest || !argv[3][1])
			return gerr_set(e, "'%s' is not a length", argv[3]);
	} else {
		if (session_resolve(s, argv[3], &end, e))
			return -1;
		if (end <= start)
			return gerr_set(e, "the end 0x%" PRIx64 " is not past the start 0x%" PRIx64,
					end, start);
		len = end - start;
	}
	if (!len || len > DUMP_MEMORY_MAX)
		return gerr_set(e, "%" PRIu64 " bytes: dump memory writes 1 byte to %u MiB",
				len, DUMP_MEMORY_MAX >> 20);
	buf = malloc(len);
	if (!buf)
		return gerr_set(e, "out of memory");
	for (uint64_t o = 0; o < len; o += 65536) {
		size_t n = len - o < 65536 ? (size_t)(len - o) : 65536;

		if (session_read(s, start + o, buf + o, n, e)) {
			free(buf);
			return -1;
		}
	}
	f = fopen(argv[1], "wb");
	if (!f) {
		free(buf);
		return gerr_set(e, "%s: %m", argv[1]);
	}
	fwrite(buf, 1, len, f);
	free(buf);
	if (finish(f, argv[1], e))
		return -1;
	session_where_as(s, start, argv[2], where, sizeof(where));
	fprintf(s->out, "wrote %" PRIu64 " bytes from %s to %s\n", len, where, argv[1]);
	return 0;
}

/* [--format NAME] FILE, in either order; without --format, fallback (the
 * "format" setting), or when that is -1 FILE's extension decides. */
static int file_and_format(int argc, char **argv, int fallback, const char **path,
			   enum format *fmt, struct gerr *e)
{
	const char *name = NULL;

	*path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format")) {
			if (++i == argc)
				return gerr_set(e, "--format needs one of text, csv, json, chrome");
			name = argv[i];
		} else if (!*path && argv[i][0] != '-') {
			*path = argv[i];
		} else {
			return gerr_set(e, "usage: dump %s [--format text|csv|json|chrome] FILE",
					argv[0]);
		}
	}
	if (!*path)
		return gerr_set(e, "dump %s: which file?", argv[0]);
	if (name && format_parse(name, fmt))
		return gerr_set(e, "no format '%s': text, csv, json or chrome", name);
	if (!name)
		*fmt = fallback >= 0 ? (enum format)fallback : format_for_path(*path);
	return 0;
}

static int dump_events(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct event_log log;
	struct event_view v;
	struct filter flt;
	enum format fmt;
	const char *path;
	FILE *f;
	int rc;

	/* a wrong format or a missing file is said first, live or not */
	if (file_and_format(argc >= 3 && !strcmp(argv[argc - 2], "if") ? argc - 2 : argc, argv,
			    s->set.format, &path, &fmt, e))
		return -1;
	if (event_log_open(s, &log, e) || event_filter_args(&argc, argv, &log.layouts, &flt, e)) {
		event_log_free(&log);
		return -1;
	}
	if (event_log_drain(s, &log, e)) {
		filter_free(&flt);
		event_log_free(&log);
		return -1;
	}
	rc = event_view_make(s, &log, &flt, &v, e);
	filter_free(&flt);
	if (rc) {
		event_log_free(&log);
		return -1;
	}
	/* the events the filter does not match stay for the next reader */
	event_log_keep(s, &log, v.keep);
	const struct symbolizer y = session_symbolizer(s);

	f = fopen(path, "w");
	if (!f) {
		/* What was drained is not lost: it goes to the screen. */
		format_events(s->out, FMT_TEXT, &y, &v.log, SIZE_MAX);
		rc = gerr_set(e, "%s: %m (the drained events are shown above)", path);
	} else {
		format_events(f, fmt, &y, &v.log, SIZE_MAX);
		rc = finish(f, path, e);
	}
	if (!rc)
		fprintf(s->out, "wrote %zu events to %s (%s)\n", v.log.n, path, format_name(fmt));
	if (v.unmatched)
		fprintf(s->out, "(%zu events the filter does not match kept)\n", v.unmatched);
	if (v.self)
		fprintf(s->out, "(%zu events of gilk's own left out: set filter-self off)\n",
			v.self);
	event_log_report_lost(s, &log);
	event_view_free(&v);
	event_log_free(&log);
	return rc;
}

/* The file and format of a live table (splices, coverage): not a Chrome
 * trace, which holds events. */
static int table_file(struct session *s, int argc, char **argv, const char **path,
		      enum format *fmt, struct gerr *e)
{
	char what[32];

	if (file_and_format(argc, argv, s->set.format, path, fmt, e))
		return -1;
	if (*fmt == FMT_CHROME)
		return gerr_set(e, "a Chrome trace holds events: dump %s as text, csv or json", argv[0]);
	snprintf(what, sizeof(what), "dump %s", argv[0]);
	return session_need_live(s, what, e);
}

/* Splices written as gilk.ko lists them, a page at a time. */
struct splice_writer {
	FILE *f;
	enum format fmt;
	struct symbolizer y;
	size_t n;
};

static int write_splice(void *ctx, const struct gilk_splice_info *in)
{
	struct splice_writer *w = ctx;

	format_splice(w->f, w->fmt, &w->y, in, w->n++);
	return 0;
}

int format_splices_live(struct session *s, FILE *f, enum format fmt, size_t *n,
			struct gerr *e)
{
	struct splice_writer w = { f, fmt, session_symbolizer(s), 0 };

	format_splices_open(f, fmt);
	if (live_each_splice(&s->lv, write_splice, &w, e))
		return -1;
	format_splices_close(f, fmt, w.n);
	*n = w.n;
	return 0;
}

static int dump_splices(struct session *s, int argc, char **argv, struct gerr *e)
{
	enum format fmt;
	const char *path;
	size_t n;
	FILE *f;

	if (table_file(s, argc, argv, &path, &fmt, e))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return gerr_set(e, "%s: %m", path);
	if (format_splices_live(s, f, fmt, &n, e)) {
		fclose(f);
		unlink(path);
		return -1;
	}
	if (fmt == FMT_JSON)
		fputc('\n', f);
	if (finish(f, path, e))
		return -1;
	fprintf(s->out, "wrote %zu splices to %s (%s)\n", n, path, format_name(fmt));
	return 0;
}

/*
 * A format only one table has, taken out of the words: dump coverage
 * --format lcov FILE (a tracefile, lcov's geninfo format, of the set's
 * lines, for genhtml) and dump hist --format folded FILE SPLICE (folded
 * stacks for flame graphs).
 */
static bool take_format(int *argc, char **argv, const char *name)
{
	for (int i = 1; i + 1 < *argc; i++)
		if (!strcmp(argv[i], "--format") && !strcmp(argv[i + 1], name)) {
			memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 2) * sizeof(*argv));
			*argc -= 2;
			return true;
		}
	return false;
}

static int dump_coverage(struct session *s, int argc, char **argv, struct gerr *e)
{
	enum format fmt;
	const char *path;
	bool lcov = take_format(&argc, argv, "lcov");
	FILE *f;

	if (table_file(s, argc, argv, &path, &fmt, e))
		return -1;
	if (coverage_session_set(s, true, e) || coverage_read(s, s->cov, e))
		return -1;
	if (lcov) {
		struct kernel_lines *kl;

		if (lines_index(s, &kl, e))	/* before the file is made */
			return -1;
	}
	f = fopen(path, "w");
	if (!f)
		return gerr_set(e, "%s: %m", path);
	if (lcov && coverage_write_lcov(s, f, s->cov, e)) {
		fclose(f);
		return -1;
	}
	if (!lcov)
		coverage_write(f, fmt, s->cov);
	if (finish(f, path, e))
		return -1;
	if (lcov) {
		fprintf(s->out, "wrote the line coverage of %zu functions (%zu blocks) to %s (lcov: genhtml %s -o DIR renders it)\n",
			s->cov->nfuncs, s->cov->nblocks, path, path);
		return 0;
	}
	fprintf(s->out, "wrote the coverage of %zu functions (%zu blocks) to %s (%s)\n",
		s->cov->nfuncs, s->cov->nblocks, path, format_name(fmt));
	return 0;
}

/* dump hist [--format F|folded] FILE SPLICE|last: an aggregating splice's
 * maps. */
static int dump_hist(struct session *s, int argc, char **argv, struct gerr *e)
{
	bool folded = take_format(&argc, argv, "folded");
	struct agg_view v;
	enum format fmt;
	const char *path;
	char *end;
	uint32_t id;
	FILE *f;
	int rc = 0;

	if (argc < 3)
		return gerr_set(e, "usage: dump hist [--format text|csv|json|folded] FILE SPLICE|last");
	if (!strcmp(argv[argc - 1], "last")) {
		id = s->last_made;
		if (!id)
			return gerr_set(e, "no splice made in this session for \"last\" to name: "
					"dump hist FILE SPLICE");
	} else {
		id = (uint32_t)strtoul(argv[argc - 1], &end, 10);
		if (*end || !id)
			return gerr_set(e, "'%s' is not a splice id", argv[argc - 1]);
	}
	if (table_file(s, argc - 1, argv, &path, &fmt, e) || agg_view_read(s, id, &v, e))
		return -1;
	f = fopen(path, "w");
	if (!f) {
		agg_view_free(&v);
		return gerr_set(e, "%s: %m", path);
	}
	if (folded) {
		const struct symbolizer y = session_symbolizer(s);

		if (agg_view_write_folded(f, &v, &y))
			rc = gerr_set(e, "out of memory");
	} else {
		agg_view_print(s, f, fmt, &v);
	}
	if (finish(f, path, e) || rc)
		rc = -1;
	else
		fprintf(s->out, "wrote %zu keys of splice %u (%" PRIu64 " hits) to %s (%s)\n",
			v.n, id, v.hits, path, folded ? "folded" : format_name(fmt));
	agg_view_free(&v);
	return rc;
}

/* The subcommands: argv[0] is the subcommand's name. */
static const struct subcommand subs[] = {
	{ "memory", dump_memory, 3, 3, 0, "FILE START END|+LEN" },
	{ "events", dump_events, 1, 3, CMD_IF, "[--format F] FILE [if EXPR]" },
	{ "splices", dump_splices, 1, 3, 0, "[--format F] FILE" },
	{ "coverage", dump_coverage, 1, 3, 0, "[--format F|lcov] FILE" },
	{ "hist", dump_hist, 2, 4, 0, "[--format F|folded] FILE SPLICE|last" },
	{ NULL, NULL, 0, 0, 0, NULL },
};

const struct command cmd_dump = {
	.name = "dump",
	.group = GROUP_RESULTS,
	.flags = CMD_IF,
	.subs = subs,
	.help = "dump memory: kernel memory from START up to END (or LEN bytes, at\n"
		"most 64 MiB), raw, as gdb's dump memory; live or offline.\n"
		"dump events: drains the events instruments recorded into FILE, with\n"
		"the site and instrument of each, as text (what \"events\" shows), CSV\n"
		"(a column per field), JSON, or a Chrome trace (chrome://tracing,\n"
		"Perfetto: a track per CPU), each with its task (comm, pid, tid and\n"
		"context); with \"if EXPR\", those EXPR matches (as events takes it),\n"
		"the others kept. Lost events are reported, per splice.\n"
		"dump splices: every splice with its counters, as text, CSV or JSON.\n"
		"dump coverage: what \"coverage report\" says, as text, or a row per\n"
		"block (CSV) or functions with their blocks (JSON); --format lcov: each\n"
		"line's count (as \"coverage report FILE\" gives it) and each function's\n"
		"entry count, file by file, as an lcov tracefile: genhtml FILE -o DIR\n"
		"makes HTML of it, from the source tree of the kernel's line index.\n"
		"dump hist: what \"hist SPLICE\" shows of an aggregating splice (\"last\":\n"
		"the last this session made), as text, CSV (a row per key, or per key\n"
		"and bucket: low, high, count) or JSON; a stack key is its frames from\n"
		"the outermost, ';' between. --format folded: a line per stack,\n"
		"\"outer;...;inner HITS\" (function names), which flame-graph tools\n"
		"(flamegraph.pl, speedscope, inferno) read.\n"
		"Without --format, \"set format\" decides, or else FILE's extension:\n"
		".csv, .json, else text.",
	.complete = COMPLETE_WORDS,
	.complete2 = COMPLETE_PATH,
};
