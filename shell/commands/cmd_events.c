/* events: drain and print the events instruments recorded, once or as
 * they come (--follow). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands/commands.h"
#include "events/event_fields.h"
#include "events/event_regs.h"
#include "output/formats.h"
#include "session/interrupt.h"
#include "output/pager.h"

/* What --follow keeps of the events its filter does not match: enough for
 * any look afterwards, bounded however long it runs. */
#define FOLLOW_KEEP_MOST ((size_t)1 << 20)

/* Prints the view's events, at most limit, until Ctrl-C or the pager's q;
 * flags the rest to be kept. The number printed. */
static size_t show(struct session *s, struct event_view *v, size_t limit)
{
	const struct symbolizer y = session_symbolizer(s);
	size_t i;

	for (i = 0; i < v->log.n && i < limit && !session_interrupted(s); i++) {
		format_event_text(s->out, &y, &v->log, i);
		/* the pager dropped it, asked or stopped at its line: not shown */
		if (s->pager && pager_dropped(s->pager))
			break;
	}
	for (size_t k = i; k < v->log.n; k++)
		v->keep[v->orig[k]] = true;
	event_regs_keep(s, &v->log, i);
	return i;
}

/* A Ctrl-C or q stopped the events: said as the error, with what stays. */
static int stopped(size_t kept, struct gerr *e)
{
	return gerr_set(e, "%s: %zu events not shown kept (\"events\" shows them)",
			interrupt_pending() ? "interrupted" : "quit", kept);
}

static int once(struct session *s, struct event_log *log, const struct filter *f,
		size_t limit, struct gerr *e)
{
	struct event_view v;
	size_t kept, shown;
	int rc;

	rc = event_log_drain(s, log, e);
	if (event_view_make(s, log, f, &v, e))
		return -1;
	shown = show(s, &v, limit);
	kept = event_log_keep(s, log, v.keep);
	if (session_interrupted(s) && shown < v.log.n && shown < limit) {
		rc = stopped(kept, e);
	} else {
		if (v.log.n > limit)
			fprintf(s->out, "(%zu more events kept: \"events\" shows them)\n",
				v.log.n - limit);
		if (v.unmatched)
			fprintf(s->out, "(%zu events the filter does not match kept)\n",
				v.unmatched);
		if (kept < v.unmatched + (v.log.n > limit ? v.log.n - limit : 0))
			fprintf(s->out, "(out of memory: only %zu of them kept)\n", kept);
	}
	if (v.self)
		fprintf(s->out, "(%zu events of gilk's own left out: set filter-self off)\n",
			v.self);
	if (!v.log.n && !rc)
		fprintf(s->out, log->n ? "no events shown of %zu drained\n" : "no events\n",
			log->n);
	event_log_report_lost(s, log);
	event_view_free(&v);
	return rc;
}

/*
 * Drains and prints as events come, until Ctrl-C (or limit events): tail
 * -f's way. The events the filter does not match are kept, as once() keeps
 * them, not read again each round; a Ctrl-C ends it as it is meant to, not
 * as an error.
 */
static int follow(struct session *s, struct event_log *log, const struct filter *f,
		  size_t limit, struct gerr *e)
{
	size_t shown = 0, unmatched = 0, kept = 0, self = 0;
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	int rc = 0;

	if (s->pager)
		pager_unpaged(s->pager);
	for (bool first = true; ; first = false) {
		struct event_view v;
		size_t n;

		if (!first && event_log_open(s, log, e))
			return -1;
		rc = first ? event_log_drain(s, log, e) : event_log_drain_new(s, log, e);
		if (event_view_make(s, log, f, &v, e)) {
			event_log_free(log);
			return -1;
		}
		n = show(s, &v, limit - shown);
		shown += n;
		fflush(s->out);
		unmatched += v.unmatched;
		self += v.self;
		kept += event_log_keep_more(s, log, v.keep, FOLLOW_KEEP_MOST);
		event_log_report_lost(s, log);
		event_view_free(&v);
		event_log_free(log);
		if (rc || shown >= limit || interrupt_pending())
			break;
		nanosleep(&tick, NULL);	/* Ctrl-C ends the sleep */
		if (interrupt_pending())
			break;
	}
	interrupt_clear();
	fprintf(s->out, "(%zu events shown", shown);
	if (unmatched)
		fprintf(s->out, "; %zu the filter does not match", unmatched);
	if (kept)
		fprintf(s->out, "; %zu kept: \"events\" shows them", kept);
	fprintf(s->out, ")\n");
	if (kept < unmatched)
		fprintf(s->out, "(%zu events not kept: at most %zu are)\n", unmatched - kept,
			FOLLOW_KEEP_MOST);
	if (self)
		fprintf(s->out, "(%zu events of gilk's own left out: set filter-self off)\n",
			self);
	return rc;
}

static int events_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct event_log log;
	struct filter f;
	size_t limit = SIZE_MAX;
	bool streaming = false;
	int rc;

	/* the filter and the count checked before anything is drained */
	if (event_log_open(s, &log, e) || event_filter_args(&argc, argv, &log.layouts, &f, e)) {
		event_log_free(&log);
		return -1;
	}
	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--follow") || !strcmp(argv[i], "-f")) {
			streaming = true;
			continue;
		}
		limit = strtoul(argv[i], &end, 10);
		if (*end || !limit || argv[i][0] == '-') {
			filter_free(&f);
			event_log_free(&log);
			return gerr_set(e, "'%s' is not a count", argv[i]);
		}
	}
	rc = streaming ? follow(s, &log, &f, limit, e) : once(s, &log, &f, limit, e);
	event_log_free(&log);
	filter_free(&f);
	return rc;
}

const struct command cmd_events = {
	.name = "events",
	.group = GROUP_RESULTS,
	.run = events_command,
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_LIVE | CMD_IF,
	.usage = "events [COUNT] [--follow] [if EXPR]",
	.help = "Drains the events instruments recorded (tsc, regs, argfilter and\n"
		"any other instrument module's), printing them in time order: time,\n"
		"CPU, the task that ran the site as comm[pid/tid] (with \"(irq)\",\n"
		"\"(softirq)\" or \"(nmi)\" when an interrupt of it did), splice,\n"
		"instrument and payload; a regs event at a function's entry ends with\n"
		"its parameters by name, from its BTF prototype: \" | vfs_read(file=0x...,\n"
		"buf=0x..., count=4096, pos=0x...)\", and at a return point (FUNC:exit)\n"
		"with the value returned, by its type (\" | vfs_read returned 4096\").\n"
		"With COUNT, the first COUNT; the rest are kept\n"
		"and come first the next time events are read (events, hist, dump\n"
		"events). Ctrl-C (or q at the pager) stops the printing and keeps the\n"
		"events not shown, as COUNT does. With --follow (-f), events are\n"
		"printed as they come, unpaged, until Ctrl-C (or COUNT of them), as\n"
		"tail -f does. With \"if EXPR\", only the events EXPR matches; the others are\n"
		"kept. EXPR compares fields (time_ns cpu pid tid comm context splice,\n"
		"and the payload's) with numbers and strings: == != < <= > >= & && ||\n"
		"! ( ), and ~ for a glob, as in: events if comm ~ \"kworker*\" && cpu == 1.\n"
		"A redirection goes before \"if\". Under \"set filter-self on\", gilk's\n"
		"own events are left out. Events lost because the buffer was full are\n"
		"reported, per splice.",
};
