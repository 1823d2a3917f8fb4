/*
 * event_log: the events gilk.ko's buffer held, drained in one go, each with
 * the splice it came from (its site and instrument), for the events and dump
 * commands to show or write in any format.
 */
#ifndef GILK_EVENT_LOG_H
#define GILK_EVENT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/payload.h"
#include "session/session.h"

struct event_rec {
	uint64_t ns;
	uint32_t splice;
	uint16_t cpu;
	uint16_t len;
	uint32_t tid, pid;	/* of the task that ran the site */
	uint8_t context;	/* GILK_CTX_*: it, or an interrupt of it */
	bool task_gone;		/* exited before a tsc hit was drained */
	bool fetched;		/* the payload ends with its splice's fetch */
	char comm[GILK_COMM_LEN];
	size_t off;		/* payload: log->bytes + off */
	char instrument[GILK_NAME_MAX];	/* "(removed splice)" when unknown */
	uint64_t site;		/* 0 when the splice is unknown */
};

/* A splice at a function's entry: the function's parameters by name, from
 * its BTF prototype, as its argument registers hold them at the hit; at one
 * of its return points (FUNC:exit): its return value's type. */
struct event_args {
	uint32_t splice;
	bool exit;              /* at a return point: rax is the return value */
	bool block;             /* mid-function: locals in registers, reg[k] */
	char reg[6][4];         /* block: the register each is in ("rbx") */
	uint8_t n;
	bool ptr[6];
	bool sgn[6];            /* a signed integer of size[k] bytes */
	uint8_t size[6];
	char name[6][32];
	char func[64];
	/* exit: the return type's kind, size and name */
	bool ret_ptr, ret_signed, ret_void;
	uint8_t ret_size;
	char ret_type[64];
};

struct event_log {
	struct event_rec *ev;
	size_t n, cap;
	uint8_t *bytes;
	size_t nbytes, capbytes;
	struct gilk_splice_info *splices;	/* as listed when drained */
	size_t nsplices;
	struct payload_layouts layouts;	/* its instruments' payloads */
	struct event_args *args;	/* splices at a function's entry */
	size_t nargs;
};

/* The parameters of the function a splice is at the entry of, or NULL. */
const struct event_args *event_log_args(const struct event_log *log, uint32_t splice);

/*
 * Begins a drain (live mode only): the splices, and the payload layouts the
 * instruments publish, as they are now, so that a filter is checked against
 * them before anything is drained. event_log_free() it either way.
 */
int event_log_open(struct session *s, struct event_log *log, struct gerr *e);
/* Drains every event into a log event_log_open() began, those an earlier
 * drain kept (event_log_keep) first. On error the log holds what was read
 * before it. */
int event_log_drain(struct session *s, struct event_log *log, struct gerr *e);
/* Drains the events gilk.ko holds now, leaving those an earlier drain kept
 * where they are (events --follow keeps what it does not show there). */
int event_log_drain_new(struct session *s, struct event_log *log, struct gerr *e);
/* Keeps log's events flagged in keep for the session's next drain (they
 * were drained from gilk.ko, not shown), in place of those kept before;
 * the number kept. */
size_t event_log_keep(struct session *s, const struct event_log *log, const bool *keep);
/* The same, after those kept before, until most are kept in all. */
size_t event_log_keep_more(struct session *s, const struct event_log *log, const bool *keep,
			   size_t most);
/* Drops the events kept (the session ends). */
void event_log_drop_held(struct session *s);
/* Says, on s->out, how many events each splice lost since last said. */
void event_log_report_lost(struct session *s, const struct event_log *log);
void event_log_free(struct event_log *log);

#endif
