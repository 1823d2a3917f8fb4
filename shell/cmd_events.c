/* events: drain and print the events instruments recorded. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* Each built-in's payload, by instrument name. */
static void print_payload(FILE *out, const char *ins, const uint8_t *p, size_t len)
{
	static const char *const regs[] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "rip", "rflags",
	};
	uint64_t v[18];

	if (!strcmp(ins, "tsc") && len == 8) {
		memcpy(v, p, 8);
		fprintf(out, "tsc=%" PRIu64, v[0]);
	} else if (!strcmp(ins, "regs") && len == sizeof(v)) {
		memcpy(v, p, sizeof(v));
		for (int i = 0; i < 18; i++)
			fprintf(out, "%s%s=%" PRIx64, i ? " " : "", regs[i], v[i]);
	} else if (!strcmp(ins, "argfilter") && len == 48) {
		memcpy(v, p, 48);
		for (int i = 0; i < 6; i++)
			fprintf(out, "%sarg%d=%" PRIx64, i ? " " : "", i, v[i]);
	} else {
		for (size_t i = 0; i < len; i++)
			fprintf(out, "%02x", p[i]);
	}
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	static const size_t cap = 1 << 20;
	struct gilk_splice_info *all;
	uint8_t *buf;
	size_t n, shown = 0, limit = SIZE_MAX;
	ssize_t got;

	if (!s->live)
		return gerr_set(e, "events needs live mode (/dev/gilk)");
	if (argc > 2)
		return gerr_set(e, "usage: %s", cmd_events.usage);
	if (argc == 2) {
		char *end;

		limit = strtoul(argv[1], &end, 10);
		if (*end || !limit)
			return gerr_set(e, "'%s' is not a count", argv[1]);
	}
	if (live_list(&s->lv, &all, &n, e))
		return -1;
	buf = malloc(cap);
	if (!buf) {
		free(all);
		return gerr_set(e, "out of memory");
	}
	while ((got = live_read_events(&s->lv, buf, cap, e)) > 0) {
		for (size_t off = 0; off + sizeof(struct gilk_event) <= (size_t)got;) {
			const struct gilk_event *h = (const void *)(buf + off);
			/* events outlive their splice in the buffer */
			const char *ins = "(removed splice)";

			for (size_t i = 0; i < n; i++)
				if (all[i].id == h->splice)
					ins = all[i].instrument;
			if (shown++ < limit) {
				fprintf(s->out, "%" PRIu64 ".%09" PRIu64 " cpu%u splice %u %s: ",
					(uint64_t)h->ns / 1000000000, (uint64_t)h->ns % 1000000000,
					h->cpu, h->splice, ins);
				print_payload(s->out, ins, (const uint8_t *)(h + 1), h->len);
				fprintf(s->out, "\n");
			}
			off += sizeof(*h) + h->len;
		}
	}
	if (shown > limit)
		fprintf(s->out, "(%zu more events drained, not shown)\n", shown - limit);
	if (!shown)
		fprintf(s->out, "no events\n");
	/* Lost events are always said, never silent. */
	for (size_t i = 0; i < n; i++) {
		uint32_t id = all[i].id;
		uint64_t seen = id < 1024 ? s->lost_seen[id] : 0;

		if (all[i].lost > seen) {
			fprintf(s->out, "Lost %" PRIu64 " events (splice %u, buffer full)\n",
				(uint64_t)all[i].lost - seen, id);
			if (id < 1024)
				s->lost_seen[id] = all[i].lost;
		}
	}
	free(buf);
	free(all);
	return got < 0 ? -1 : 0;
}

const struct command cmd_events = {
	.name = "events",
	.run = run,
	.usage = "events [COUNT]",
	.help = "Drains the events instruments recorded (tsc, regs, argfilter and\n"
		"any other instrument module's), printing the first COUNT: time, CPU,\n"
		"splice, instrument and payload. Events lost because the buffer was\n"
		"full are reported, per splice.",
};
