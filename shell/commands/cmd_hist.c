/* hist: a field's values, as a power-of-two histogram, or one per group. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "events/agg_map.h"
#include "commands/commands.h"
#include "events/event_fields.h"
#include "events/histogram.h"
#include "session/interrupt.h"
#include "output/pager.h"

/* What "by" groups on: a histogram for each of its values (or a value a
 * splice fetched: a file's name, a flag). */
static const char *const keys[] = { "comm", "pid", "tid", "cpu", "splice", "context", NULL };

struct group {
	char key[GILK_FETCH_STR_MAX + 8];
	struct histogram h;
};

struct groups {
	struct group *g;
	size_t n, cap;
};

static struct histogram *group_of(struct groups *gs, const char *key)
{
	struct group *more;

	for (size_t i = 0; i < gs->n; i++)
		if (!strcmp(gs->g[i].key, key))
			return &gs->g[i].h;
	if (gs->n == gs->cap) {
		size_t cap = gs->cap ? 2 * gs->cap : 16;

		more = realloc(gs->g, cap * sizeof(*more));
		if (!more)
			return NULL;
		gs->g = more;
		gs->cap = cap;
	}
	memset(&gs->g[gs->n], 0, sizeof(gs->g[0]));
	snprintf(gs->g[gs->n].key, sizeof(gs->g[0].key), "%s", key);
	return &gs->g[gs->n++].h;
}

/* The most events first, as bpftrace prints a map by value. */
static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->h.count != y->h.count)
		return x->h.count > y->h.count ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void summary(FILE *out, const struct event_log *log, const char *field,
		    const char *group, const struct histogram *h)
{
	bool hex = event_field_hex(&log->layouts, field);
	size_t drained = log->n;

	if (group)
		fprintf(out, "@[%s]: ", group);
	fprintf(out, hex ? "%s over %" PRIu64 " of %zu drained events: min 0x%" PRIx64
		", max 0x%" PRIx64 "\n" : "%s over %" PRIu64 " of %zu drained events: min %"
		PRIu64 ", max %" PRIu64 "\n", field, h->count, drained, h->min, h->max);
	histogram_print(out, h);
}

static int parse_args(int argc, char **argv, const struct payload_layouts *pl, uint32_t *only,
		      const char **by, struct gerr *e)
{
	enum filter_kind kind = event_field_kind((void *)pl, argv[1]);
	char fields[1024];
	int i = 2;

	if (kind != FILTER_NUMBER) {
		if (kind == FILTER_STRING)
			return gerr_set(e, "%s is a string, not a number: \"hist FIELD by %s\" "
					"groups by it", argv[1], argv[1]);
		event_fields_list(pl, fields, sizeof(fields));
		return gerr_set(e, "no field '%s' (%s)", argv[1], fields);
	}
	if (i < argc && strcmp(argv[i], "by")) {
		char *end;

		*only = (uint32_t)strtoul(argv[i], &end, 10);
		if (*end || !*only)
			return gerr_set(e, "'%s' is not a splice id", argv[i]);
		i++;
	}
	if (i < argc) {
		if (strcmp(argv[i], "by") || i + 2 != argc)
			return gerr_set(e, "usage: hist FIELD [SPLICE] [by KEY] [if EXPR]");
		for (size_t k = 0; keys[k]; k++)
			if (!strcmp(keys[k], argv[i + 1]))
				*by = keys[k];
		if (!*by && !event_field_in_header(argv[i + 1]) &&
		    event_field_kind((void *)pl, argv[i + 1]) != FILTER_NONE &&
		    payload_fetched(pl, argv[i + 1]))
			*by = argv[i + 1];
		if (!*by)
			return gerr_set(e, "hist by comm, pid, tid, cpu, splice, context or a "
					"fetched value, not '%s'", argv[i + 1]);
	}
	return 0;
}

/* A group's name: the key's value in the event. */
static void key_of(const struct event_log *log, const struct event_rec *r, const char *by,
		   char *buf, size_t len)
{
	struct event_field_src src = { log, r };
	const char *str;
	uint64_t num;

	if (!event_field_value(&src, by, &num, &str))
		snprintf(buf, len, "?");
	else if (str)
		snprintf(buf, len, "%s", str);
	else
		snprintf(buf, len, "%" PRIu64, num);
}

/* "hist SPLICE every N": each N seconds' counts, bpftrace's interval
 * probe printing and clearing a map, until Ctrl-C ends it (as it is meant
 * to: not an error). */
static int every(struct session *s, uint32_t id, const char *secs, struct gerr *e)
{
	char *end;
	double n = strtod(secs, &end);
	struct timespec tick;
	int rc = 0;

	/* "1s" as bpftrace's interval:s:1 reads, or "1" */
	if (end != secs && !strcmp(end, "s"))
		end++;
	if (*end || !(n >= 0.1 && n <= 3600))
		return gerr_set(e, "hist SPLICE every N: N seconds, 0.1 to 3600, not '%s'", secs);
	tick.tv_sec = (time_t)n;
	tick.tv_nsec = (long)((n - (double)tick.tv_sec) * 1e9);
	if (agg_clear(s, id, e))
		return -1;
	if (s->pager)
		pager_unpaged(s->pager);
	while (!interrupt_pending()) {
		struct agg_view v;
		struct timespec now;

		if (nanosleep(&tick, NULL) && interrupt_pending())
			break;
		if ((rc = agg_view_read(s, id, &v, e)) || (rc = agg_clear(s, id, e))) {
			agg_view_free(&v);
			break;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		fprintf(s->out, "%s", ctime(&now.tv_sec));
		agg_view_print(s, s->out, FMT_TEXT, &v);
		fflush(s->out);
		agg_view_free(&v);
	}
	interrupt_clear();
	return rc;
}

/* hist SPLICE [clear | every N]: an aggregating splice's maps. */
static int maps(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct agg_view v;
	char *end = "";
	uint32_t id = s->last_made;

	if (strcmp(argv[1], "last"))
		id = (uint32_t)strtoul(argv[1], &end, 10);
	else if (!id)
		return gerr_set(e, "no splice made in this session for \"last\" to name: hist SPLICE");
	if (*end || !id)
		return gerr_set(e, "'%s' is not a splice id", argv[1]);
	if (argc == 3 && !strcmp(argv[2], "clear")) {
		if (agg_clear(s, id, e))
			return -1;
		fprintf(s->out, "splice %u: counting again from 0\n", id);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[2], "every"))
		return every(s, id, argv[3], e);
	if (argc != 2)
		return gerr_set(e, "usage: hist SPLICE [clear | every SECONDS]");
	if (agg_view_read(s, id, &v, e))
		return -1;
	agg_view_print(s, s->out, FMT_TEXT, &v);
	agg_view_free(&v);
	return 0;
}

static int hist_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct histogram all;
	struct groups gs = { 0 };
	struct event_log log;
	struct event_view v;
	struct filter f;
	const char *by = NULL;
	uint32_t only = 0;
	size_t other = 0, kept;
	int rc;

	/* a number is a splice, and "last" this session's last: the maps
	 * gilk.ko keeps, nothing drained */
	if ((argv[1][0] >= '0' && argv[1][0] <= '9') || !strcmp(argv[1], "last")) {
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "if"))
				return gerr_set(e, "hist SPLICE reads gilk.ko's maps, counted as "
						"the splice filters: splice ... hist FIELD if EXPR");
		return maps(s, argc, argv, e);
	}
	/* Checked before anything is drained: a typo loses no event. */
	if (event_log_open(s, &log, e) || event_filter_args(&argc, argv, &log.layouts, &f, e)) {
		event_log_free(&log);
		return -1;
	}
	if (parse_args(argc, argv, &log.layouts, &only, &by, e)) {
		filter_free(&f);
		event_log_free(&log);
		return -1;
	}
	memset(&all, 0, sizeof(all));
	rc = event_log_drain(s, &log, e);
	if ((rc && !log.n) || event_view_make(s, &log, &f, &v, e)) {
		filter_free(&f);
		event_log_free(&log);
		return -1;
	}
	for (size_t i = 0; i < v.log.n; i++) {
		const struct event_rec *r = &v.log.ev[i];
		struct event_field_src src = { &log, r };
		struct histogram *h = &all;
		const char *str;
		uint64_t value;

		/* an event this histogram does not draw stays for another look */
		if ((only && r->splice != only) || !event_field_value(&src, argv[1], &value, &str)) {
			v.keep[v.orig[i]] = true;
			other++;
			continue;
		}
		if (by) {
			char key[sizeof(gs.g[0].key)];

			key_of(&log, r, by, key, sizeof(key));
			h = group_of(&gs, key);
			if (!h) {
				rc = gerr_set(e, "out of memory");
				break;
			}
		}
		histogram_add(h, value);
		if (by)
			histogram_add(&all, value);
	}
	kept = event_log_keep(s, &log, v.keep);
	if (!all.count) {
		fprintf(s->out, "no events with %s among the %zu drained\n", argv[1], log.n);
	} else if (!by) {
		summary(s->out, &log, argv[1], NULL, &all);
	} else {
		qsort(gs.g, gs.n, sizeof(gs.g[0]), by_count);
		for (size_t i = 0; i < gs.n; i++) {
			if (i)
				fputc('\n', s->out);
			summary(s->out, &log, argv[1], gs.g[i].key, &gs.g[i].h);
		}
	}
	if (other)
		fprintf(s->out, "(%zu events without %s%s kept)\n", other, argv[1],
			only ? " or of another splice" : "");
	if (v.unmatched)
		fprintf(s->out, "(%zu events the filter does not match kept)\n", v.unmatched);
	if (kept < other + v.unmatched)
		fprintf(s->out, "(out of memory: only %zu of them kept)\n", kept);
	if (v.self)
		fprintf(s->out, "(%zu events of gilk's own left out: set filter-self off)\n",
			v.self);
	event_log_report_lost(s, &log);
	free(gs.g);
	event_view_free(&v);
	event_log_free(&log);
	filter_free(&f);
	return rc;
}

const struct command cmd_hist = {
	.name = "hist",
	.group = GROUP_RESULTS,
	.run = hist_command,
	.min_args = 1,
	.max_args = 4,
	.flags = CMD_LIVE | CMD_IF,
	.usage = "hist FIELD [SPLICE] [by KEY] [if EXPR] | hist SPLICE|last [clear | every SECONDS]",
	.help = "Drains the events (as \"events\" does) and draws FIELD's values in\n"
		"power-of-two buckets, as bpftrace's hist(): FIELD is an event's (cpu,\n"
		"pid, tid, time_ns, splice) or its payload's (tsc; rax..r15, rip,\n"
		"rflags of regs, and arg0..arg5 and retval as a splice's if reads them\n"
		"there; arg0..arg5 of argfilter; ns, the duration of a call, of\n"
		"latency; len of skb; a number a splice fetched; ...: a name no event has is refused with the\n"
		"list). With SPLICE, only that splice's events count; with \"by KEY\"\n"
		"(comm, pid, tid, cpu, splice, context, or a value a splice fetched:\n"
		"by filename), one histogram for each of its\n"
		"values, the most events first, as bpftrace's @[comm] = hist(...); with\n"
		"\"if EXPR\" (as events takes it), only the events EXPR matches. The\n"
		"events drawn are consumed; the others (without FIELD, of another\n"
		"splice, or not matching) are kept for the next reader.\n"
		"hist SPLICE shows what a splice made with count by KEY, hist FIELD or\n"
		"lhist (see \"help splice\") counted in gilk.ko, every CPU's map together,\n"
		"exact: each key's count, or its histogram, the most hits first, and\n"
		"(\"last\": the last splice this session made)\n"
		"the hits a full map could not count. \"clear\" counts again from 0 (for\n"
		"this session); \"every SECONDS\" shows each interval's counts until\n"
		"Ctrl-C, as bpftrace's interval probe printing and clearing a map.",
	.complete = COMPLETE_NONE,
	.complete2 = COMPLETE_SPLICE,
};
