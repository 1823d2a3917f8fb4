/* events: drain and print the events instruments recorded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "event_log.h"
#include "formats.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct event_log log;
	size_t limit = SIZE_MAX;
	int rc;

	if (argc == 2) {
		char *end;

		limit = strtoul(argv[1], &end, 10);
		if (*end || !limit)
			return gerr_set(e, "'%s' is not a count", argv[1]);
	}
	rc = event_log_drain(s, &log, e);
	format_events(s->out, FMT_TEXT, s, &log, limit);
	if (log.n > limit)
		fprintf(s->out, "(%zu more events kept: \"events\" shows them)\n",
			event_log_keep(s, &log, limit));
	if (!log.n && !rc)
		fprintf(s->out, "no events\n");
	event_log_report_lost(s, &log);
	event_log_free(&log);
	return rc;
}

const struct command cmd_events = {
	.name = "events",
	.run = run,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_LIVE,
	.usage = "events [COUNT]",
	.help = "Drains the events instruments recorded (tsc, regs, argfilter and\n"
		"any other instrument module's), printing them in time order: time,\n"
		"CPU, splice, instrument and payload. With COUNT, the first COUNT; the\n"
		"rest are kept and come first the next time events are read (events,\n"
		"hist, dump events). Events lost because the buffer was full are\n"
		"reported, per splice.",
};
