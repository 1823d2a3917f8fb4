/* An event's fields (see event_fields.h). */
#include "events/event_fields.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/payload.h"
#include "gilk_reg_index.h"

static const char *const contexts[] = { "task", "softirq", "irq", "nmi" };

const char *event_context_name(unsigned context)
{
	return context < sizeof(contexts) / sizeof(contexts[0]) ? contexts[context] : "?";
}

void event_task(const struct event_rec *r, char *buf, size_t len)
{
	char ctx[16] = "";

	if (r->context != GILK_CTX_TASK)
		snprintf(ctx, sizeof(ctx), " (%s)", event_context_name(r->context));
	if (r->task_gone)
		snprintf(buf, len, "[tid %" PRIu32 ", exited]%s", r->tid, ctx);
	else if (r->pid == r->tid)
		snprintf(buf, len, "%s[%" PRIu32 "]%s", r->comm, r->pid, ctx);
	else
		snprintf(buf, len, "%s[%" PRIu32 "/%" PRIu32 "]%s", r->comm, r->pid, r->tid, ctx);
}

/* The header's fields: strings are comm and context. */
static const char *const header[] = { "time_ns", "cpu", "pid", "tid", "comm", "context",
				      "splice" };
#define NHEADER (sizeof(header) / sizeof(header[0]))

bool event_field_in_header(const char *name)
{
	for (size_t i = 0; i < NHEADER; i++)
		if (!strcmp(header[i], name))
			return true;
	return false;
}

/*
 * The names a splice's filter reads the registers by, as a register event
 * holds them: arg0..arg5 are rdi rsi rdx rcx r8 r9, retval is rax. A
 * payload's own field of that name (argfilter's arg0) comes first. NULL:
 * no such alias.
 */
static const char *register_alias(const char *name)
{
	static const char *const args[] = {
#define GILK_ARG(i, name, member) #name,
#include "gilk_regs.h"
	};
	static const char *const regs[] = {
#define GILK_REG(name, member, dwarf) #name,
#include "gilk_regs.h"
	};

	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '5' && !name[4])
		return args[name[3] - '0'];
	return strcmp(name, "retval") ? NULL : regs[GILK_REG_RETVAL];
}

enum filter_kind event_field_kind(void *priv, const char *name)
{
	const struct payload_layouts *pl = priv;

	if (!strncmp(name, "data.", 5))
		return payload_field_string(pl, name + 5) ? FILTER_STRING :
		       payload_field_known(pl, name + 5) ? FILTER_NUMBER : FILTER_NONE;
	for (size_t i = 0; i < NHEADER; i++)
		if (!strcmp(header[i], name))
			return !strcmp(name, "comm") || !strcmp(name, "context") ? FILTER_STRING :
										  FILTER_NUMBER;
	/* a payload's field of the same name (hello's pid) is the header's */
	if (!payload_field_known(pl, name) && register_alias(name) &&
	    payload_field_known(pl, register_alias(name)))
		return FILTER_NUMBER;
	return payload_field_string(pl, name) ? FILTER_STRING :
	       payload_field_known(pl, name) ? FILTER_NUMBER : FILTER_NONE;
}

bool event_field_value(void *priv, const char *name, uint64_t *num, const char **str)
{
	const struct event_field_src *src = priv;
	const struct event_rec *r = src->r;
	struct event_data d;

	*str = NULL;
	if (!strncmp(name, "data.", 5)) {
		name += 5;
		goto payload;
	}
	if (!strcmp(name, "time_ns"))
		*num = r->ns;
	else if (!strcmp(name, "cpu"))
		*num = r->cpu;
	else if (!strcmp(name, "pid"))
		*num = r->pid;
	else if (!strcmp(name, "tid"))
		*num = r->tid;
	else if (!strcmp(name, "splice"))
		*num = r->splice;
	else if (!strcmp(name, "comm"))
		*str = r->comm;
	else if (!strcmp(name, "context"))
		*str = event_context_name(r->context);
	else
		goto payload;
	/* an exited task's pid and name are not known */
	return !r->task_gone || (strcmp(name, "pid") && strcmp(name, "comm"));
payload:
	event_decode(src->log, r, &d);
	for (size_t k = 0; k < d.n; k++)
		if (!strcmp(d.f[k].name, name)) {
			/* a value whose read faulted is not there to compare */
			if (d.f[k].fault)
				return false;
			*num = d.f[k].value;
			*str = d.f[k].str;
			return true;
		}
	/* arg0..arg5 and retval: the registers they are, as splice's if reads */
	if (register_alias(name)) {
		name = register_alias(name);
		for (size_t k = 0; k < d.npayload; k++)
			if (!strcmp(d.f[k].name, name)) {
				*num = d.f[k].value;
				return true;
			}
	}
	return false;
}

void event_decode(const struct event_log *log, const struct event_rec *r, struct event_data *d)
{
	const struct gilk_fetch *f = r->fetched ? payload_fetch_of(&log->layouts, r->splice) : NULL;
	size_t flen = f ? gilk_fetch_out_len(f) : 0;
	const uint8_t *p = log->bytes + r->off;

	if (flen > r->len) {	/* not the fetch the splice has: bytes */
		f = NULL;
		flen = 0;
	}
	d->payload_len = r->len - flen;
	d->npayload = payload_decode(&log->layouts, r->instrument, p, d->payload_len, d->f);
	d->n = d->npayload;
	if (f)
		d->n += payload_fetch_decode(f, p + d->payload_len, d->f + d->n);
}

bool event_field_hex(const struct payload_layouts *pl, const char *name)
{
	if (!strncmp(name, "data.", 5))
		name += 5;
	else if (event_field_in_header(name))
		return false;
	return payload_field_hex(pl, name);
}

void event_fields_list(const struct payload_layouts *pl, char *buf, size_t len)
{
	size_t used = 0;

	for (size_t i = 0; i < NHEADER; i++)
		used += (size_t)snprintf(buf + used, len > used ? len - used : 0, "%s%s",
					 i ? " " : "every event: ", header[i]);
	if (used + 2 < len) {
		snprintf(buf + used, len - used, "; ");
		payload_fields_list(pl, buf + used + 2, len - used - 2);
	}
}

int event_filter_parse(struct filter *f, const char *expr, const struct payload_layouts *pl,
		       struct gerr *e)
{
	char fields[1024], why[sizeof(e->msg)];

	if (!filter_parse(f, expr, event_field_kind, (void *)pl, e))
		return 0;
	if (!strstr(e->msg, "no field"))
		return -1;
	snprintf(why, sizeof(why), "%s", e->msg);
	event_fields_list(pl, fields, sizeof(fields));
	return gerr_set(e, "%s; the fields: %s", why, fields);
}

int event_filter_args(int *argc, char **argv, const struct payload_layouts *pl,
		      struct filter *f, struct gerr *e)
{
	f->n = 0;
	f->root = -1;
	if (*argc < 3 || strcmp(argv[*argc - 2], "if"))
		return 0;
	*argc -= 2;
	return event_filter_parse(f, argv[*argc + 1], pl, e);
}

int event_view_make(struct session *s, const struct event_log *log, const struct filter *f,
		    struct event_view *v, struct gerr *e)
{
	uint32_t me = (uint32_t)getpid();

	memset(v, 0, sizeof(*v));
	v->log = *log;
	v->log.n = 0;
	v->log.ev = log->n ? malloc(log->n * sizeof(*v->log.ev)) : NULL;
	v->orig = log->n ? malloc(log->n * sizeof(*v->orig)) : NULL;
	v->keep = log->n ? calloc(log->n, sizeof(*v->keep)) : NULL;
	if (log->n && (!v->log.ev || !v->orig || !v->keep)) {
		event_view_free(v);
		return gerr_set(e, "out of memory");
	}
	for (size_t i = 0; i < log->n; i++) {
		const struct event_rec *r = &log->ev[i];
		struct event_field_src src = { log, r };

		if (s->set.filter_self && r->pid == me && !r->task_gone) {
			v->self++;
		} else if (!filter_match(f, event_field_value, &src)) {
			v->unmatched++;
			v->keep[i] = true;
		} else {
			v->orig[v->log.n] = i;
			v->log.ev[v->log.n++] = *r;
		}
	}
	return 0;
}

void event_view_free(struct event_view *v)
{
	free(v->log.ev);
	free(v->orig);
	free(v->keep);
	memset(v, 0, sizeof(*v));
}
