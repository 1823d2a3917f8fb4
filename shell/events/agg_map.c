/* An aggregating splice's maps read for a session (see agg_map.h). */
#include "events/agg_map.h"

#include <stdlib.h>
#include <string.h>

/* What a clear kept of a splice: its id, and which splice had it then
 * (gilk.ko gives a gone splice's id to the next). */
struct agg_clear {
	uint32_t id;
	uint64_t site, tramp;
	struct agg_view v;
};

static struct agg_clear *clear_of(struct session *s, const struct gilk_splice_info *in)
{
	for (size_t i = 0; i < s->nagg_clears; i++) {
		struct agg_clear *c = &s->agg_clears[i];

		if (c->id == in->id && c->site == in->site && c->tramp == in->tramp)
			return c;
	}
	return NULL;
}

/* Every CPU's slots, one entry each (a key on many CPUs many times). */
static int read_cpus(struct session *s, uint32_t id, struct agg_view *v, struct gerr *e)
{
	for (uint32_t cpu = 0, cpus = 1; cpu < cpus; cpu++) {
		uint8_t *slots;
		size_t n;
		uint32_t len;
		uint64_t dropped;
		int rc;

		if (live_agg_read(&s->lv, id, cpu, &slots, &n, &len, &dropped, &cpus, e))
			return -1;
		v->cpus = cpus;
		v->dropped += dropped;
		rc = agg_view_add(v, slots, n, len);
		free(slots);
		if (rc)
			return gerr_set(e, "out of memory");
	}
	return 0;
}

/* The maps as they are, merged and sorted by key, nothing subtracted. */
static int read_raw(struct session *s, uint32_t id, struct agg_view *v, struct gerr *e)
{
	memset(v, 0, sizeof(*v));
	if (live_info(&s->lv, id, &v->splice, e))
		return -1;
	if (!v->splice.agg.kind)
		return gerr_set(e, "splice %u aggregates nothing: its %s events are read by "
				"events and hist FIELD", id, v->splice.instrument);
	v->nbuckets = gilk_agg_buckets(&v->splice.agg);
	v->nframes = gilk_agg_frames(&v->splice.agg);
	v->nested = v->splice.missed;
	if (read_cpus(s, id, v, e)) {
		agg_view_free(v);
		return -1;
	}
	agg_view_merge(v);
	return 0;
}

int agg_view_read(struct session *s, uint32_t id, struct agg_view *v, struct gerr *e)
{
	const struct agg_clear *c;

	if (read_raw(s, id, v, e))
		return -1;
	c = clear_of(s, &v->splice);
	if (c)
		agg_view_subtract(v, &c->v);
	agg_view_finish(v);
	return 0;
}

void agg_view_print(struct session *s, FILE *out, enum format f, const struct agg_view *v)
{
	const struct symbolizer y = session_symbolizer(s);

	agg_view_write(out, f, v, &y);
}

int agg_clear(struct session *s, uint32_t id, struct gerr *e)
{
	struct agg_view v;
	struct agg_clear *c;

	if (read_raw(s, id, &v, e))
		return -1;
	c = clear_of(s, &v.splice);
	if (!c) {
		struct agg_clear *more = realloc(s->agg_clears,
						 (s->nagg_clears + 1) * sizeof(*more));

		if (!more) {
			agg_view_free(&v);
			return gerr_set(e, "out of memory");
		}
		s->agg_clears = more;
		c = &s->agg_clears[s->nagg_clears++];
		memset(c, 0, sizeof(*c));
		c->id = v.splice.id;
		c->site = v.splice.site;
		c->tramp = v.splice.tramp;
	}
	agg_view_free(&c->v);
	c->v = v;
	return 0;
}

void agg_clears_free(struct session *s)
{
	for (size_t i = 0; i < s->nagg_clears; i++)
		agg_view_free(&s->agg_clears[i].v);
	free(s->agg_clears);
	s->agg_clears = NULL;
	s->nagg_clears = 0;
}

