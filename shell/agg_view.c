/* Aggregation maps merged and written (see agg_view.h). */
#include "agg_view.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "quote.h"

static int by_key(const void *a, const void *b)
{
	return memcmp(((const struct agg_entry *)a)->key, ((const struct agg_entry *)b)->key,
		      GILK_AGG_KEY_LEN);
}

static int by_hits(const void *a, const void *b)
{
	const struct agg_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return memcmp(x->key, y->key, GILK_AGG_KEY_LEN);
}

void agg_view_free(struct agg_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->e[i].bucket);
	free(v->e);
	memset(v, 0, sizeof(*v));
}

int agg_view_add(struct agg_view *v, const uint8_t *slots, size_t n, uint32_t slot_len)
{
	if (v->n + n > v->cap) {
		size_t cap = (v->n + n) * 2;
		struct agg_entry *more = realloc(v->e, cap * sizeof(*more));

		if (!more)
			return -1;
		v->e = more;
		v->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gilk_agg_slot *sl = (const void *)(slots + i * slot_len);
		struct agg_entry *to = &v->e[v->n];

		memcpy(to->key, sl->key, sizeof(to->key));
		to->count = sl->count;
		to->sum = sl->sum;
		to->min = sl->min;
		to->max = sl->max;
		to->bucket = NULL;
		if (v->nbuckets) {
			to->bucket = malloc(v->nbuckets * sizeof(*to->bucket));
			if (!to->bucket)
				return -1;
			memcpy(to->bucket, sl->bucket, v->nbuckets * sizeof(*to->bucket));
		}
		v->n++;
	}
	return 0;
}

void agg_view_merge(struct agg_view *v)
{
	size_t out = 0;

	qsort(v->e, v->n, sizeof(*v->e), by_key);
	for (size_t i = 0; i < v->n; i++) {
		struct agg_entry *a = &v->e[i];

		if (out && !memcmp(v->e[out - 1].key, a->key, sizeof(a->key))) {
			struct agg_entry *to = &v->e[out - 1];

			to->min = a->min < to->min ? a->min : to->min;
			to->max = a->max > to->max ? a->max : to->max;
			to->count += a->count;
			to->sum += a->sum;
			for (uint32_t k = 0; k < v->nbuckets; k++)
				to->bucket[k] += a->bucket[k];
			free(a->bucket);
			continue;
		}
		v->e[out++] = *a;
	}
	v->n = out;
}

static const struct agg_entry *find(const struct agg_view *v, const uint8_t *key)
{
	struct agg_entry probe;

	memcpy(probe.key, key, sizeof(probe.key));
	return bsearch(&probe, v->e, v->n, sizeof(*v->e), by_key);
}

void agg_view_subtract(struct agg_view *v, const struct agg_view *base)
{
	size_t out = 0;

	for (size_t i = 0; i < v->n; i++) {
		struct agg_entry *a = &v->e[i];
		const struct agg_entry *b = find(base, a->key);

		if (b) {
			a->count -= b->count;
			a->sum -= b->sum;
			for (uint32_t k = 0; k < v->nbuckets; k++)
				a->bucket[k] -= b->bucket[k];
		}
		if (!a->count) {
			free(a->bucket);
			continue;
		}
		v->e[out++] = *a;
	}
	v->n = out;
	v->dropped -= base->dropped;
	v->nested -= base->nested;
	v->cleared = 1;
}

void agg_view_finish(struct agg_view *v)
{
	v->hits = 0;
	for (size_t i = 0; i < v->n; i++)
		v->hits += v->e[i].count;
	qsort(v->e, v->n, sizeof(*v->e), by_hits);
}

static const char *const contexts[] = { "task", "softirq", "irq", "nmi" };

/* A key as bpftrace writes it in @[...]: a name, a number, a register in
 * hex. */
static void key_text(const struct gilk_agg *a, const uint8_t *key, char *buf, size_t len)
{
	uint64_t v;

	memcpy(&v, key, sizeof(v));
	if (a->key == GILK_AGG_KEY_NONE)
		snprintf(buf, len, "%s", "");
	else if (a->key == GILK_FF_COMM)
		snprintf(buf, len, "%.*s", GILK_AGG_KEY_LEN, (const char *)key);
	else if (a->key == GILK_FF_CONTEXT)
		snprintf(buf, len, "%s", v < 4 ? contexts[v] : "?");
	else if (a->key_show == GILK_FSHOW_HEX)
		snprintf(buf, len, "0x%" PRIx64, v);
	else if (a->key_size && a->key_size < 8 && a->key_show == GILK_FSHOW_SIGNED)
		snprintf(buf, len, "%" PRId64,
			 (int64_t)(v << (64 - 8 * a->key_size)) >> (64 - 8 * a->key_size));
	else if (a->key_show == GILK_FSHOW_SIGNED)
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else if (a->key_size && a->key_size < 8)
		snprintf(buf, len, "%" PRIu64, v & (((uint64_t)1 << (8 * a->key_size)) - 1));
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* A histogram's range when a clear left min and max unknown: its buckets'. */
static void log2_histogram(const struct agg_view *v, const struct agg_entry *a,
			   struct histogram *h)
{
	int lo = -1, hi = 0;

	memset(h, 0, sizeof(*h));
	memcpy(h->bucket, a->bucket, sizeof(h->bucket));
	h->count = a->count;
	for (int k = 0; k < GILK_AGG_LOG2_BUCKETS; k++)
		if (a->bucket[k]) {
			lo = lo < 0 ? k : lo;
			hi = k;
		}
	if (!v->cleared) {
		h->min = a->min;
		h->max = a->max;
	} else {
		h->min = lo <= 0 ? 0 : (uint64_t)1 << (lo - 1);
		h->max = hi <= 0 ? 0 : (uint64_t)1 << (hi - 1);
	}
}

static void text_entry(FILE *out, const struct agg_view *v, const struct agg_entry *a)
{
	const struct gilk_agg *g = &v->splice.agg;
	char key[64];

	key_text(g, a->key, key, sizeof(key));
	if (g->key == GILK_AGG_KEY_NONE)
		fputs("@", out);
	else
		fprintf(out, "@[%s]", key);
	if (g->kind == GILK_AGG_COUNT) {
		fprintf(out, ": %" PRIu64 "\n", a->count);
		return;
	}
	fprintf(out, ": %" PRIu64 " hits, average %" PRIu64, a->count, a->sum / a->count);
	if (!v->cleared)
		fprintf(out, ", min %" PRIu64 ", max %" PRIu64, a->min, a->max);
	fputc('\n', out);
	if (g->kind == GILK_AGG_HIST) {
		struct histogram h;

		log2_histogram(v, a, &h);
		histogram_print(out, &h);
	} else {
		histogram_print_linear(out, a->bucket, v->nbuckets, g->min, g->step);
	}
}

static void text_view(FILE *out, const struct agg_view *v)
{
	const struct gilk_splice_info *sp = &v->splice;

	fprintf(out, "splice %u (%s): %" PRIu64 " hits in %zu key%s%s\n", sp->id, sp->agg.text,
		v->hits, v->n, v->n == 1 ? "" : "s", v->cleared ? " since cleared" : "");
	for (size_t i = 0; i < v->n; i++) {
		if (i && sp->agg.kind != GILK_AGG_COUNT)
			fputc('\n', out);
		text_entry(out, v, &v->e[i]);
	}
	if (v->dropped)
		fprintf(out, "(%" PRIu64 " hits not counted: their keys found no room among "
			"the %u slots of a CPU's map)\n", v->dropped, sp->agg.keys);
	if (v->nested)
		fprintf(out, "(%" PRIu64 " hits not counted: they came inside another of gilk's "
			"on their CPU, an interrupt's)\n", v->nested);
}

/* Bucket k's bounds, [lo, hi), as numbers (hi 0: unbounded). */
static void bounds(const struct gilk_agg *g, uint32_t nb, uint32_t k, int64_t *lo,
		   int64_t *hi, bool *below)
{
	*below = false;
	if (g->kind == GILK_AGG_HIST) {
		*lo = k < 2 ? (int64_t)k : (int64_t)((uint64_t)1 << (k - 1));
		*hi = k == 0 ? 1 : k == 64 ? 0 : (int64_t)((uint64_t)1 << k);
		return;
	}
	if (k == 0) {
		*below = true;
		*lo = *hi = g->min;
		return;
	}
	*lo = g->min + (int64_t)((k - 1) * g->step);
	*hi = k == nb - 1 ? 0 : *lo + (int64_t)g->step;
}

static void csv_view(FILE *out, const struct agg_view *v)
{
	const struct gilk_agg *g = &v->splice.agg;
	char key[64];

	fprintf(out, g->kind == GILK_AGG_COUNT ? "key,count\n" : "key,low,high,count\n");
	for (size_t i = 0; i < v->n; i++) {
		const struct agg_entry *a = &v->e[i];

		key_text(g, a->key, key, sizeof(key));
		if (g->kind == GILK_AGG_COUNT) {
			quote_csv_cell(out, key);
			fprintf(out, ",%" PRIu64 "\n", a->count);
			continue;
		}
		for (uint32_t k = 0; k < v->nbuckets; k++) {
			int64_t lo, hi;
			bool below;

			if (!a->bucket[k])
				continue;
			bounds(g, v->nbuckets, k, &lo, &hi, &below);
			quote_csv_cell(out, key);
			if (g->kind == GILK_AGG_HIST)
				fprintf(out, ",%" PRIu64 ",", (uint64_t)lo);
			else if (below)
				fprintf(out, ",,");
			else
				fprintf(out, ",%" PRId64 ",", lo);
			if (below)
				fprintf(out, "%" PRId64, hi);
			else if (hi && g->kind == GILK_AGG_HIST)
				fprintf(out, "%" PRIu64, (uint64_t)hi);
			else if (hi)
				fprintf(out, "%" PRId64, hi);
			fprintf(out, ",%" PRIu64 "\n", a->bucket[k]);
		}
	}
}

static void json_view(FILE *out, const struct agg_view *v)
{
	const struct gilk_agg *g = &v->splice.agg;
	char key[64];

	fprintf(out, "{\"splice\": %u, \"aggregation\": ", v->splice.id);
	quote_string(out, g->text, true);
	fprintf(out, ", \"hits\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"nested\": %" PRIu64
		", \"keys\": [", v->hits, v->dropped, v->nested);
	for (size_t i = 0; i < v->n; i++) {
		const struct agg_entry *a = &v->e[i];

		key_text(g, a->key, key, sizeof(key));
		fprintf(out, "%s\n  {\"key\": ", i ? "," : "");
		quote_string(out, key, true);
		fprintf(out, ", \"count\": %" PRIu64, a->count);
		if (g->kind != GILK_AGG_COUNT) {
			const char *sep = "";

			fprintf(out, ", \"sum\": %" PRIu64 ", \"buckets\": [", a->sum);
			for (uint32_t k = 0; k < v->nbuckets; k++) {
				int64_t lo, hi;
				bool below;

				if (!a->bucket[k])
					continue;
				bounds(g, v->nbuckets, k, &lo, &hi, &below);
				fprintf(out, "%s{", sep);
				if (!below)
					fprintf(out, g->kind == GILK_AGG_HIST ? "\"low\": %" PRIu64 ", " :
						"\"low\": %" PRId64 ", ", lo);
				if (hi || below)
					fprintf(out, g->kind == GILK_AGG_HIST ? "\"high\": %" PRIu64 ", " :
						"\"high\": %" PRId64 ", ", hi);
				fprintf(out, "\"count\": %" PRIu64 "}", a->bucket[k]);
				sep = ", ";
			}
			fputc(']', out);
		}
		fputc('}', out);
	}
	fprintf(out, "\n]}\n");
}

void agg_view_write(FILE *out, enum format f, const struct agg_view *v)
{
	if (f == FMT_CSV)
		csv_view(out, v);
	else if (f == FMT_JSON)
		json_view(out, v);
	else
		text_view(out, v);
}
