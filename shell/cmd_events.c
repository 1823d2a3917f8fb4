/* events: drain and print the events instruments recorded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "event_fields.h"
#include "formats.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct event_log log;
	struct event_view v;
	struct filter f;
	size_t limit = SIZE_MAX, kept;
	int rc;

	/* the filter and the count checked before anything is drained */
	if (event_log_open(s, &log, e) || event_filter_args(&argc, argv, &log.layouts, &f, e)) {
		event_log_free(&log);
		return -1;
	}
	if (argc == 2) {
		char *end;

		limit = strtoul(argv[1], &end, 10);
		if (*end || !limit) {
			filter_free(&f);
			event_log_free(&log);
			return gerr_set(e, "'%s' is not a count", argv[1]);
		}
	}
	rc = event_log_drain(s, &log, e);
	if (event_view_make(s, &log, &f, &v, e)) {
		filter_free(&f);
		event_log_free(&log);
		return -1;
	}
	const struct symbolizer y = session_symbolizer(s);

	format_events(s->out, FMT_TEXT, &y, &v.log, limit);
	for (size_t i = limit; i < v.log.n; i++)
		v.keep[v.orig[i]] = true;
	kept = event_log_keep(s, &log, v.keep);
	if (v.log.n > limit)
		fprintf(s->out, "(%zu more events kept: \"events\" shows them)\n", v.log.n - limit);
	if (v.unmatched)
		fprintf(s->out, "(%zu events the filter does not match kept)\n", v.unmatched);
	if (v.self)
		fprintf(s->out, "(%zu events of gilk's own left out: set filter-self off)\n",
			v.self);
	if (kept < v.unmatched + (v.log.n > limit ? v.log.n - limit : 0))
		fprintf(s->out, "(out of memory: only %zu of them kept)\n", kept);
	if (!v.log.n && !rc)
		fprintf(s->out, log.n ? "no events shown of %zu drained\n" : "no events\n", log.n);
	event_log_report_lost(s, &log);
	event_view_free(&v);
	event_log_free(&log);
	filter_free(&f);
	return rc;
}

const struct command cmd_events = {
	.name = "events",
	.run = run,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_LIVE | CMD_IF,
	.usage = "events [COUNT] [if EXPR]",
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
		"events). With \"if EXPR\", only the events EXPR matches; the others are\n"
		"kept. EXPR compares fields (time_ns cpu pid tid comm context splice,\n"
		"and the payload's) with numbers and strings: == != < <= > >= & && ||\n"
		"! ( ), and ~ for a glob, as in: events if comm ~ \"kworker*\" && cpu == 1.\n"
		"A redirection goes before \"if\". Under \"set filter-self on\", gilk's\n"
		"own events are left out. Events lost because the buffer was full are\n"
		"reported, per splice.",
};
