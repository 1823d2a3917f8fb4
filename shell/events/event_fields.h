/*
 * event_fields: what hist, the filters of events and hist, and the output
 * formats know of an event: its header's fields (time_ns, cpu, pid, tid,
 * comm, context, splice), then its payload's (payload.h).
 */
#ifndef GILK_EVENT_FIELDS_H
#define GILK_EVENT_FIELDS_H

#include <stddef.h>

#include "events/event_log.h"
#include "filter.h"

/* "comm[pid/tid]" ("comm[pid]" for a process's first thread), then
 * " (irq)", " (softirq)" or " (nmi)" when an interrupt of it ran the site. */
void event_task(const struct event_rec *r, char *buf, size_t len);
/* "task", "softirq", "irq" or "nmi". */
const char *event_context_name(unsigned context);

/*
 * Whether name is a header field. A payload's field of the same name (the
 * pid hello and latency record) is "data.NAME", as CSV's column is.
 */
bool event_field_in_header(const char *name);
/* For filter_parse(): what a name is (priv the log's payload_layouts). */
enum filter_kind event_field_kind(void *priv, const char *name);

/* For filter_match(): an event's field, priv a struct event_field_src. */
struct event_field_src {
	const struct event_log *log;
	const struct event_rec *r;
};
bool event_field_value(void *priv, const char *name, uint64_t *num, const char **str);

/*
 * An event's fields: its payload's by its instrument's layout (npayload 0:
 * not known, payload_len bytes shown as they are), then what its splice
 * fetched (fetch.h).
 */
struct event_data {
	struct payload_field f[PAYLOAD_FIELDS_MAX];
	size_t n, npayload;
	size_t payload_len;
};
void event_decode(const struct event_log *log, const struct event_rec *r, struct event_data *d);

/* Whether name's values show in hex: a payload's addresses and registers. */
bool event_field_hex(const struct payload_layouts *pl, const char *name);
/* Every field's name, the header's then each payload's, for messages. */
void event_fields_list(const struct payload_layouts *pl, char *buf, size_t len);

/*
 * Parses "if EXPR" for a command; a typo is refused with the fields listed,
 * before anything is drained.
 */
int event_filter_parse(struct filter *f, const char *expr, const struct payload_layouts *pl,
		       struct gerr *e);
/*
 * Takes "if EXPR" off the end of a CMD_IF command's argv (*argc shrinks)
 * and parses it into f; with none, f matches everything.
 */
int event_filter_args(int *argc, char **argv, const struct payload_layouts *pl,
		      struct filter *f, struct gerr *e);

/*
 * The events of a drained log the session shows: gilk's own left out
 * under "set filter-self on" (counted in self), those f does not match
 * counted in unmatched and flagged in keep (for event_log_keep()). view
 * shares log's payloads: event_view_free() frees only its own.
 */
struct event_view {
	struct event_log log;
	size_t *orig;		/* log.ev[i] is the drained log's ev[orig[i]] */
	bool *keep;		/* by the drained log's index */
	size_t self, unmatched;
};
int event_view_make(struct session *s, const struct event_log *log, const struct filter *f,
		    struct event_view *v, struct gerr *e);
void event_view_free(struct event_view *v);

#endif
