/* A splice's aggregation compiled for gilk.ko (see aggregate.h). */
#include "events/aggregate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/fetch.h"
#include "lineindex.h"
#include "site_filter.h"
#include "session/types.h"

/* Slots of each CPU's map when nothing says otherwise: many tasks' names
 * or pids for a count, fewer for a histogram's larger slots. */
#define COUNT_KEYS 4096
#define HIST_KEYS 1024
/* a site is reached by few distinct stacks, each slot holding its frames */
#define STACK_KEYS 1024

/* The stack as a key, by its word or bpftrace's. */
static bool stack_word(const char *w)
{
	return !strcmp(w, "stack") || !strcmp(w, "kstack");
}

void agg_take(int *argc, char **argv, struct agg_words *w)
{
	int n = *argc, out = 2;

	memset(w, 0, sizeof(*w));
	for (int i = 2; i < n; i++) {
		if (!strcmp(argv[i], "by") && i + 1 < n) {
			w->key = argv[++i];
		} else if (!strcmp(argv[i], "keys") && i + 1 < n) {
			w->keys = argv[++i];
		} else if (!strcmp(argv[i], "hist") && i + 1 < n && !w->kind) {
			w->kind = argv[i];
			w->value = argv[++i];
		} else if (!strcmp(argv[i], "lhist") && i + 4 < n && !w->kind) {
			w->kind = argv[i];
			w->value = argv[i + 1];
			w->lmin = argv[i + 2];
			w->lmax = argv[i + 3];
			w->lstep = argv[i + 4];
			i += 4;
		} else {
			argv[out++] = argv[i];
		}
	}
	if (n > 2)
		*argc = out;
}

/* The CPU numbers there can be, as gilk.ko sizes its maps: the highest of
 * /sys/devices/system/cpu/possible plus one. */
static unsigned possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	char line[256];
	unsigned hi = 0;

	if (f && fgets(line, sizeof(line), f)) {
		for (char *p = line; *p; ) {
			char *end;
			unsigned long v = strtoul(p, &end, 10);

			if (end == p) {
				p++;
				continue;
			}
			if (v > hi)
				hi = (unsigned)v;
			p = end;
		}
		fclose(f);
		return hi + 1;
	}
	if (f)
		fclose(f);
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned)n : 1;
}

/* How a number of type ty shows: a pointer in hex, an integer signed or
 * not, in its own size. */
static void shown_as(struct session *s, const struct ktype *ty, uint8_t *show, uint8_t *size)
{
	struct ktypes *t;
	struct gerr e;
	struct ktype r;
	int64_t n;

	if (types_get(s, &t, &e))
		return;
	r = ktypes_resolve(t, ty);
	n = ktypes_size(t, &r);
	*size = n == 1 || n == 2 || n == 4 ? (uint8_t)n : 8;
	*show = r.ptr ? GILK_FSHOW_HEX : ktypes_is_signed(t, ty) ? GILK_FSHOW_SIGNED :
		GILK_FSHOW_UNSIGNED;
}

/* A field by the filter's names, or at one site by a parameter's or a
 * register local's, with how its values show (*show, *size). */
static int field_named(struct session *s, const struct location *loc, const char *name,
		       uint8_t *show, uint8_t *size, struct gerr *e)
{
	int f = site_filter_field(name);
	struct cexpr_site site;

	*show = GILK_FSHOW_UNSIGNED;
	*size = 0;
	if (f >= GILK_FF_REGS)
		*show = GILK_FSHOW_HEX;
	if (loc && (f < 0 || !strcmp(name, "retval")))
		fetch_site_at(s, loc, &site);
	if (loc && f >= 0 && !strcmp(name, "retval") && site.have_ret)
		shown_as(s, &site.ret, show, size);
	if (f >= 0)
		return f;
	if (loc) {
		for (int k = 0; k < site.nparams; k++)
			if (!strcmp(site.params[k], name)) {
				shown_as(s, &site.ptypes[k], show, size);
				return GILK_FF_ARG0 + k;
			}
		for (int k = 0; k < site.nlocals; k++)
			if (site.locals[k].kind == LINE_LOCAL_REG && !strcmp(site.locals[k].name, name)) {
				shown_as(s, &site.locals[k].type, show, size);
				return site.locals[k].field;
			}
	}
	return gerr_set(e, "no field '%s' to aggregate by: pid, tid, comm, cpu, context, "
			"stack, arg0..arg5, rax..r15, rip, rflags, retval%s, or the name of a "
			"value the splice fetches (count by NAME fetch NAME=EXPR)", name,
			loc ? ", a parameter's or a register local's name here" : "");
}

static int number(const char *word, int64_t *v, struct gerr *e)
{
	char *end;

	errno = 0;
	*v = strtoll(word, &end, 0);
	if (!*word || *end || errno)
		return gerr_set(e, "lhist: '%s' is not a number", word);
	return 0;
}

static int linear(const struct agg_words *w, struct gilk_agg *out, struct gerr *e)
{
	int64_t min, max, step;

	if (number(w->lmin, &min, e) || number(w->lmax, &max, e) || number(w->lstep, &step, e))
		return -1;
	if (step < 1 || max <= min)
		return gerr_set(e, "lhist FIELD MIN MAX STEP: MAX above MIN and STEP at least 1, "
				"as bpftrace's lhist() takes them");
	/* [min, max) in steps, the last one cut at max if it must be */
	uint64_t n = ((uint64_t)max - (uint64_t)min) / (uint64_t)step + (((uint64_t)max - (uint64_t)min) % (uint64_t)step != 0);

	if (n > GILK_AGG_LHIST_MAX)
		return gerr_set(e, "lhist: %" PRIu64 " buckets; at most %d", n, GILK_AGG_LHIST_MAX);
	out->min = min;
	out->step = (uint64_t)step;
	out->buckets = (uint32_t)n;
	return 0;
}

/* A value the splice fetches, by its name: its index, or -1. */
static int fetched_named(const struct gilk_fetch *fetch, const char *name)
{
	for (uint32_t i = 0; fetch && i < fetch->len && i < GILK_FETCH_MAX; i++)
		if (!strncmp(fetch->value[i].name, name, sizeof(fetch->value[i].name)))
			return (int)i;
	return -1;
}

int agg_compile(struct session *s, const struct location *loc, const struct agg_words *w,
		const char *ins, const struct gilk_fetch *fetch, struct gilk_agg *out,
		struct gerr *e)
{
	int fetched;
	unsigned cpus = possible_cpus();
	int key = GILK_AGG_KEY_NONE, value = 0;
	size_t used;

	memset(out, 0, sizeof(*out));
	if (strcmp(ins, "count"))
		return gerr_set(e, "%s%s aggregates what count counts; %s records events, which "
				"events and hist read: splice LOCATION count by KEY, or hist FIELD",
				w->kind ? w->kind : "by ", w->kind ? "" : w->key, ins);
	if (!w->kind && !w->key)
		return gerr_set(e, "keys %s: the slots of an aggregation's maps: count by KEY "
				"keys N", w->keys);
	fetched = w->key ? fetched_named(fetch, w->key) : -1;
	if (w->key && stack_word(w->key)) {
		key = GILK_AGG_KEY_STACK;
	} else if (fetched >= 0) {
		/* as the fetch read it: a string's bytes, or a number as its type has it */
		const struct gilk_fetch_value *v = &fetch->value[fetched];

		key = GILK_AGG_KEY_FETCH + fetched;
		out->key_show = v->show == GILK_FSHOW_STRING ? 0 : v->show;
		out->key_size = v->show == GILK_FSHOW_STRING ? 0 : v->size;
	} else if (w->key && (key = field_named(s, loc, w->key, &out->key_show, &out->key_size, e)) < 0) {
		return -1;
	}
	if (w->kind) {
		if (stack_word(w->value))
			return gerr_set(e, "%s %s: a stack is a key, not a number: count by stack, or "
					"hist FIELD by stack", w->kind, w->value);
		value = field_named(s, loc, w->value, &out->value_show, &out->value_size, e);
		if (value < 0)
			return -1;
		if (value == GILK_FF_COMM)
			return gerr_set(e, "%s %s: comm is a name, not a number: count by comm",
					w->kind, w->value);
	}
	out->kind = !w->kind ? GILK_AGG_COUNT : !strcmp(w->kind, "hist") ? GILK_AGG_HIST :
		    GILK_AGG_LHIST;
	out->key = (uint8_t)key;
	out->value = (uint8_t)value;
	if (out->kind == GILK_AGG_LHIST && linear(w, out, e))
		return -1;
	out->keys = key == GILK_AGG_KEY_NONE ? 1 : key == GILK_AGG_KEY_STACK ? STACK_KEYS :
		    out->kind == GILK_AGG_COUNT ? COUNT_KEYS : HIST_KEYS;
	if (w->keys) {
		char *end;
		unsigned long n = strtoul(w->keys, &end, 10);

		if (*end || !n || n > GILK_AGG_KEYS_MAX || (n & (n - 1)) || w->keys[0] == '-')
			return gerr_set(e, "keys %s: a power of two up to %d", w->keys,
					GILK_AGG_KEYS_MAX);
		out->keys = (uint32_t)n;
		if ((uint64_t)gilk_agg_slot_len(out) * out->keys * cpus > GILK_AGG_BYTES_MAX)
			return gerr_set(e, "keys %s: %u CPUs' maps of %lu slots of %u bytes are more "
					"than the %u MiB gilk.ko allows", w->keys, cpus, n,
					gilk_agg_slot_len(out), GILK_AGG_BYTES_MAX >> 20);
	}
	/* what gilk.ko allows for every CPU's map together */
	while (out->keys > 1 &&
	       (uint64_t)gilk_agg_slot_len(out) * out->keys * cpus > GILK_AGG_BYTES_MAX)
		out->keys /= 2;
	used = (size_t)snprintf(out->text, sizeof(out->text), "%s", w->kind ? w->kind : "count");
	if (w->kind && used < sizeof(out->text))
		used += (size_t)snprintf(out->text + used, sizeof(out->text) - used, " %s",
					 w->value);
	if (w->lmin && used < sizeof(out->text))
		used += (size_t)snprintf(out->text + used, sizeof(out->text) - used, " %s %s %s",
					 w->lmin, w->lmax, w->lstep);
	if (w->key && used < sizeof(out->text))
		used += (size_t)snprintf(out->text + used, sizeof(out->text) - used, " by %s",
					 w->key);
	if (w->keys && used < sizeof(out->text))
		snprintf(out->text + used, sizeof(out->text) - used, " keys %s", w->keys);
	return 0;
}
