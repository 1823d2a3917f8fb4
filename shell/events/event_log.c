/* Draining gilk.ko's events (see event_log.h). */
#include "events/event_log.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events/fetch.h"
#include "grow.h"
#include "lineindex.h"
#include "session/location.h"
#include "session/types.h"

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return grow_room(p, cap, need, size, 256);
}

/* Appends an event with its payload; its splice named by the caller. */
static struct event_rec *append(struct event_log *log, const struct event_rec *from,
				const uint8_t *payload)
{
	struct event_rec *r;

	if (grow((void **)&log->ev, &log->cap, log->n + 1, sizeof(*log->ev)) ||
	    grow((void **)&log->bytes, &log->capbytes, log->nbytes + from->len, 1))
		return NULL;
	r = &log->ev[log->n++];
	*r = *from;
	r->off = log->nbytes;
	memcpy(log->bytes + log->nbytes, payload, from->len);
	log->nbytes += from->len;
	return r;
}

static const struct gilk_splice_info *find_splice(const struct gilk_splice_info *in, size_t n,
						  uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (in[i].id == id)
			return &in[i];
	return NULL;
}

static int add(struct session *s, struct event_log *log, const struct gilk_event *h)
{
	struct event_rec r = { .ns = h->ns, .splice = h->splice, .cpu = h->cpu, .len = h->len,
			       .tid = h->tid, .pid = h->pid, .context = h->context,
			       .task_gone = h->task_gone, .fetched = h->fetched };
	const struct gilk_splice_info *in = find_splice(log->splices, log->nsplices, h->splice);

	memcpy(r.comm, h->comm, sizeof(r.comm));
	r.comm[sizeof(r.comm) - 1] = '\0';

	/*
	 * Events outlive their splice in the buffer: one removed since the
	 * session last listed the splices is known from that list.
	 */
	if (!in)
		in = find_splice(s->spliced, s->nspliced, h->splice);
	snprintf(r.instrument, sizeof(r.instrument), "%s", in ? in->instrument : "(removed splice)");
	r.site = in ? in->site : 0;
	return append(log, &r, (const uint8_t *)(h + 1)) ? 0 : -1;
}

/* The names held events are read by: log's, which event_log_open() read
 * over the held ones' own. Out of memory costs the names only. */
static void keep_names(struct event_log *held, const struct event_log *log)
{
	struct event_args *args = log->nargs ? malloc(log->nargs * sizeof(*args)) : NULL;

	payload_layouts_free(&held->layouts);
	payload_layouts_copy(&held->layouts, &log->layouts);
	if (!args)
		return;
	memcpy(args, log->args, log->nargs * sizeof(*args));
	free(held->args);
	held->args = args;
	held->nargs = log->nargs;
}

size_t event_log_keep_more(struct session *s, const struct event_log *log, const bool *keep,
			   size_t most)
{
	struct event_log *held = s->held;
	size_t kept = 0, want = 0;

	for (size_t i = 0; i < log->n; i++)
		want += keep[i];
	if (!want)
		return 0;
	if (!held) {
		if (!(held = calloc(1, sizeof(*held))))
			return 0;
		s->held = held;
	}
	keep_names(held, log);
	for (size_t i = 0; i < log->n; i++) {
		if (!keep[i])
			continue;
		if (held->n >= most || !append(held, &log->ev[i], log->bytes + log->ev[i].off))
			break;
		kept++;
	}
	return kept;
}

size_t event_log_keep(struct session *s, const struct event_log *log, const bool *keep)
{
	event_log_drop_held(s);
	return event_log_keep_more(s, log, keep, SIZE_MAX);
}

void event_log_drop_held(struct session *s)
{
	if (s->held) {
		event_log_free(s->held);
		free(s->held);
		s->held = NULL;
	}
}

/* By time; equal times keep the order they were read in (off grows). */
static int by_time(const void *a, const void *b)
{
	const struct event_rec *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* A splice at one of a function's return points: its return type. */
static void exit_type(struct session *s, struct ktypes *t, struct event_log *log,
		      const struct gilk_splice_info *sp, const struct ksym *sym)
{
	struct location loc = { .kind = LOC_EXIT, .addr = sym->addr };
	struct loc_site *sites;
	struct event_args *a, *more;
	struct ktype ret, r;
	struct gerr e;
	bool exit = false;
	size_t n;

	if (ktypes_return(t, sym->name, &ret) || location_sites(s, &loc, &sites, &n, NULL, &e))
		return;
	for (size_t i = 0; i < n; i++)
		exit |= sites[i].site == sp->site;
	free(sites);
	if (!exit || !(more = realloc(log->args, (log->nargs + 1) * sizeof(*more))))
		return;
	log->args = more;
	a = &log->args[log->nargs++];
	memset(a, 0, sizeof(*a));
	a->splice = sp->id;
	a->exit = true;
	snprintf(a->func, sizeof(a->func), "%s", sym->name);
	r = ktypes_resolve(t, &ret);
	ktypes_name(t, &ret, a->ret_type, sizeof(a->ret_type));
	a->ret_void = !r.id && !r.ptr;
	a->ret_ptr = r.ptr > 0;
	a->ret_signed = ktypes_is_signed(t, &r);
	a->ret_size = (uint8_t)(ktypes_size(t, &r) > 0 && ktypes_size(t, &r) <= 8 ? ktypes_size(t, &r) : 8);
}

/* A splice mid-function: the locals the line index puts in a register at
 * its site, numbers and pointers, up to six. */
static void block_locals(struct session *s, struct ktypes *t, struct event_log *log,
			 const struct gilk_splice_info *sp, const struct ksym *sym)
{
	struct cexpr_site site;
	struct event_args *a, *more;
	struct gerr e;

	if (fetch_locals_at(s, sp->site, &site, &e) || !site.nlocals ||
	    !(more = realloc(log->args, (log->nargs + 1) * sizeof(*more))))
		return;
	log->args = more;
	a = &log->args[log->nargs];
	memset(a, 0, sizeof(*a));
	a->splice = sp->id;
	a->block = true;
	snprintf(a->func, sizeof(a->func), "%s", sym->name);
	for (int k = 0; k < site.nlocals && a->n < 6; k++) {
		const struct cexpr_local *l = &site.locals[k];
		struct ktype r = ktypes_resolve(t, &l->type);
		int64_t size = ktypes_size(t, &r);

		if (l->kind != LINE_LOCAL_REG || (!r.ptr && !ktypes_is_integer(t, &r)) || r.array)
			continue;
		snprintf(a->name[a->n], sizeof(a->name[a->n]), "%.31s", l->name);
		snprintf(a->reg[a->n], sizeof(a->reg[a->n]), "%s", fetch_field_name(l->field));
		a->ptr[a->n] = r.ptr > 0;
		a->sgn[a->n] = !r.ptr && ktypes_is_signed(t, &r);
		a->size[a->n] = size > 0 && size < 8 ? (uint8_t)size : 8;
		a->n++;
	}
	if (a->n)
		log->nargs++;
}

/* Which splices are at a function's entry, with the function's parameters
 * (BTF), or at its return points, with its return type; without BTF, none:
 * the registers are shown as they are. */
static void entry_args(struct session *s, struct event_log *log)
{
	struct ktypes *t;
	struct gerr e;

	bool regs = false;

	/* only the registers' events name them: BTF is read for those alone */
	for (size_t i = 0; i < log->nsplices; i++)
		regs |= !strcmp(log->splices[i].instrument, "regs");
	if (!regs || types_get(s, &t, &e))
		return;
	for (size_t i = 0; i < log->nsplices; i++) {
		const struct gilk_splice_info *sp = &log->splices[i];
		const struct ksym *sym;
		struct ktype ty[6];
		char names[6][64];
		struct event_args *a, *more;
		int n;

		if (strcmp(sp->instrument, "regs") ||
		    symtab_function(s->k->syms, sp->site, &sym, NULL, NULL))
			continue;
		if (session_block_site(s, sym->addr) != sp->site) {
			size_t had = log->nargs;

			if (!strchr(sym->name, '.'))
				exit_type(s, t, log, sp, sym);
			if (log->nargs == had)
				block_locals(s, t, log, sp, sym);
			continue;
		}
		if (strchr(sym->name, '.'))
			continue;
		if ((n = ktypes_params(t, sym->name, names, ty)) <= 0)
			continue;
		more = realloc(log->args, (log->nargs + 1) * sizeof(*more));
		if (!more)
			return;
		log->args = more;
		a = &log->args[log->nargs++];
		memset(a, 0, sizeof(*a));
		a->splice = sp->id;
		a->n = (uint8_t)n;
		snprintf(a->func, sizeof(a->func), "%s", sym->name);
		for (int k = 0; k < n; k++) {
			snprintf(a->name[k], sizeof(a->name[k]), "%.31s", names[k][0] ? names[k] : "?");
			int64_t size = ktypes_size(t, &ty[k]);

			a->ptr[k] = ktypes_resolve(t, &ty[k]).ptr > 0;
			a->sgn[k] = !a->ptr[k] && ktypes_is_signed(t, &ty[k]);
			a->size[k] = size > 0 && size < 8 ? (uint8_t)size : 8;
		}
	}
}

const struct event_args *event_log_args(const struct event_log *log, uint32_t splice)
{
	for (size_t i = 0; i < log->nargs; i++)
		if (log->args[i].splice == splice)
			return &log->args[i];
	return NULL;
}

int event_log_open(struct session *s, struct event_log *log, struct gerr *e)
{
	memset(log, 0, sizeof(*log));
	if (session_need_live(s, "dump events", e) ||
	    live_list_recording(&s->lv, &log->splices, &log->nsplices, e))
		return -1;
	entry_args(s, log);
	/* events kept from before an instrument went keep its fields' names */
	if (payload_layouts_read(&log->layouts, &s->lv, s->held ? &s->held->layouts : NULL, e))
		return -1;
	/* and a removed splice's events, the names of what it fetched */
	if (!payload_fetches_add(&log->layouts, log->splices, log->nsplices) ||
	    !payload_fetches_add(&log->layouts, s->spliced, s->nspliced))
		return gerr_set(e, "out of memory");
	return 0;
}

int event_log_drain(struct session *s, struct event_log *log, struct gerr *e)
{
	/* the events an earlier drain kept come first */
	for (size_t i = 0; s->held && i < s->held->n; i++)
		if (!append(log, &s->held->ev[i], s->held->bytes + s->held->ev[i].off))
			return gerr_set(e, "out of memory");
	event_log_drop_held(s);
	return event_log_drain_new(s, log, e);
}

int event_log_drain_new(struct session *s, struct event_log *log, struct gerr *e)
{
	static const size_t cap = 1 << 20;
	struct timespec now;
	uint64_t began;
	uint8_t *buf;
	ssize_t got;

	buf = malloc(cap);
	if (!buf)
		return gerr_set(e, "out of memory");
	/*
	 * Draining may make events itself: a splice on the read path (an exit
	 * of vfs_read) records one per read. Stop after a read that brought
	 * nothing from before the drain began, or it would never end.
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	began = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	while ((got = live_read_events(&s->lv, buf, cap, e)) > 0) {
		bool older = false;

		for (size_t off = 0; off + sizeof(struct gilk_event) <= (size_t)got;) {
			const struct gilk_event *h = (const void *)(buf + off);

			if (add(s, log, h)) {
				free(buf);
				return gerr_set(e, "out of memory");
			}
			older |= h->ns < began;
			off += sizeof(*h) + h->len;
		}
		if (!older)
			break;
	}
	free(buf);
	/* gilk.ko hands them over CPU by CPU: put them in time order. */
	qsort(log->ev, log->n, sizeof(*log->ev), by_time);
	return got < 0 ? -1 : 0;
}

void event_log_report_lost(struct session *s, const struct event_log *log)
{
	/* Lost events are always said, never silent. */
	for (size_t i = 0; i < log->nsplices; i++) {
		uint32_t id = log->splices[i].id;
		uint64_t seen = id < s->nlost_seen ? s->lost_seen[id] : 0;

		if (log->splices[i].lost <= seen)
			continue;
		fprintf(s->out, "Lost %" PRIu64 " events (splice %u, buffer full)\n",
			(uint64_t)log->splices[i].lost - seen, id);
		if (id >= s->nlost_seen) {	/* ids have no fixed limit */
			size_t n = (size_t)id * 2 + 64;
			uint64_t *more = realloc(s->lost_seen, n * sizeof(*more));

			if (!more)
				continue;	/* said again next time: never silent */
			memset(more + s->nlost_seen, 0, (n - s->nlost_seen) * sizeof(*more));
			s->lost_seen = more;
			s->nlost_seen = n;
		}
		s->lost_seen[id] = log->splices[i].lost;
	}
}

void event_log_free(struct event_log *log)
{
	free(log->ev);
	free(log->bytes);
	free(log->splices);
	free(log->args);
	payload_layouts_free(&log->layouts);
	memset(log, 0, sizeof(*log));
}
