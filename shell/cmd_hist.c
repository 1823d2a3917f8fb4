/* hist: a payload field's values, as a power-of-two histogram. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "event_log.h"
#include "histogram.h"
#include "payload.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct histogram h;
	struct event_log log;
	uint32_t only = 0;
	bool hex = false;
	int rc;

	/* Checked before anything is drained: a typo loses no event. */
	if (!payload_field_known(argv[1])) {
		char fields[1024];

		payload_fields_list(fields, sizeof(fields));
		return gerr_set(e, "no field '%s' in any known payload (%s)", argv[1], fields);
	}
	if (argc == 3) {
		char *end;

		only = (uint32_t)strtoul(argv[2], &end, 10);
		if (*end || !only)
			return gerr_set(e, "'%s' is not a splice id", argv[2]);
	}
	memset(&h, 0, sizeof(h));
	rc = event_log_drain(s, &log, e);
	if (rc && !log.n) {
		event_log_free(&log);
		return rc;
	}
	for (size_t i = 0; i < log.n; i++) {
		struct payload_field f[PAYLOAD_FIELDS_MAX];
		const struct event_rec *r = &log.ev[i];
		size_t n;

		if (only && r->splice != only)
			continue;
		n = payload_decode(r->instrument, log.bytes + r->off, r->len, f);
		for (size_t k = 0; k < n; k++)
			if (!strcmp(f[k].name, argv[1])) {
				histogram_add(&h, f[k].value);
				hex = f[k].hex;
			}
	}
	if (!h.count) {
		fprintf(s->out, "no events with %s among the %zu drained\n", argv[1], log.n);
	} else {
		/* an address or a register shows in hex, as events shows it */
		fprintf(s->out, hex ? "%s over %" PRIu64 " of %zu drained events: min 0x%" PRIx64
			", max 0x%" PRIx64 "\n" : "%s over %" PRIu64 " of %zu drained events: min %"
			PRIu64 ", max %" PRIu64 "\n", argv[1], h.count, log.n, h.min, h.max);
		histogram_print(s->out, &h);
	}
	event_log_report_lost(s, &log);
	event_log_free(&log);
	return rc;
}

const struct command cmd_hist = {
	.name = "hist",
	.run = run,
	.min_args = 1,
	.max_args = 2,
	.flags = CMD_LIVE,
	.usage = "hist FIELD [SPLICE]",
	.help = "Drains the events (as \"events\" does) and draws FIELD's values in\n"
		"power-of-two buckets, as bpftrace's hist(): FIELD is a payload field\n"
		"(tsc; rax..r15, rip, rflags of regs; arg0..arg5 of argfilter; pid of\n"
		"hello; ns, the duration of a call, of latency; len of skb; ...: a\n"
		"name no payload has is refused with the list). With SPLICE, only\n"
		"that splice's events count.",
	.complete = COMPLETE_NONE,
	.complete2 = COMPLETE_SPLICE,
};
