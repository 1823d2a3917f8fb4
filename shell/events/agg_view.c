/* Aggregation maps merged and written (see agg_view.h). */
#include "events/agg_view.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "events/histogram.h"
#include "output/quote.h"

uint32_t agg_stack_depth(const struct agg_entry *a, bool *more)
{
	uint32_t n, m;

	memcpy(&n, a->key + 8, sizeof(n));
	memcpy(&m, a->key + 12, sizeof(m));
	if (more)
		*more = m != 0;
	return n < GILK_AGG_STACK_FRAMES ? n : GILK_AGG_STACK_FRAMES;
}

/* By key, and two stacks of one hash by their frames: never merged by the
 * hash alone. */
static int by_key(const void *a, const void *b)
{
	const struct agg_entry *x = a, *y = b;
	int c = memcmp(x->key, y->key, GILK_AGG_KEY_LEN);

	if (c || !x->frames || !y->frames)
		return c;
	return memcmp(x->frames, y->frames, agg_stack_depth(x, NULL) * sizeof(*x->frames));
}

static int by_hits(const void *a, const void *b)
{
	const struct agg_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return by_key(a, b);
}

void agg_view_free(struct agg_view *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->e[i].bucket);
		free(v->e[i].frames);
	}
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
		to->frames = NULL;
		v->n++;
		if (v->nframes) {
			to->frames = malloc(v->nframes * sizeof(*to->frames));
			if (!to->frames)
				return -1;
			memcpy(to->frames, sl->bucket + v->nbuckets, v->nframes * sizeof(*to->frames));
		}
		if (v->nbuckets) {
			to->bucket = malloc(v->nbuckets * sizeof(*to->bucket));
			if (!to->bucket)
				return -1;
			memcpy(to->bucket, sl->bucket, v->nbuckets * sizeof(*to->bucket));
		}
	}
	return 0;
}

void agg_view_merge(struct agg_view *v)
{
	size_t out = 0;

	qsort(v->e, v->n, sizeof(*v->e), by_key);
	for (size_t i = 0; i < v->n; i++) {
		struct agg_entry *a = &v->e[i];

		if (out && !by_key(&v->e[out - 1], a)) {
			struct agg_entry *to = &v->e[out - 1];

			to->min = a->min < to->min ? a->min : to->min;
			to->max = a->max > to->max ? a->max : to->max;
			to->count += a->count;
			to->sum += a->sum;
			for (uint32_t k = 0; k < v->nbuckets; k++)
				to->bucket[k] += a->bucket[k];
			free(a->bucket);
			free(a->frames);
			continue;
		}
		v->e[out++] = *a;
	}
	v->n = out;
}

static const struct agg_entry *find(const struct agg_view *v, const struct agg_entry *a)
{
	return bsearch(a, v->e, v->n, sizeof(*v->e), by_key);
}

void agg_view_subtract(struct agg_view *v, const struct agg_view *base)
{
	size_t out = 0;

	for (size_t i = 0; i < v->n; i++) {
		struct agg_entry *a = &v->e[i];
		const struct agg_entry *b = find(base, a);

		if (b) {
			a->count -= b->count;
			a->sum -= b->sum;
			for (uint32_t k = 0; k < v->nbuckets; k++)
				a->bucket[k] -= b->bucket[k];
		}
		if (!a->count) {
			free(a->bucket);
			free(a->frames);
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

	bool fetched = a->key >= GILK_AGG_KEY_FETCH && a->key < GILK_AGG_KEY_FETCH + GILK_FETCH_MAX;

	memcpy(&v, key, sizeof(v));
	if (a->key == GILK_AGG_KEY_NONE)
		snprintf(buf, len, "%s", "");
	else if (fetched && key[GILK_AGG_KEY_LEN - 1] == GILK_AGG_KEY_FAULT)
		snprintf(buf, len, "%s", "<fault>");	/* as events show a value not read */
	else if (a->key == GILK_FF_COMM || (fetched && !a->key_size))
		/* a fetched string has no size: a number has its type's */
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

/* A key's text in a CSV cell or a JSON string: a stack's frames from the
 * outermost, as folded stacks have them, with their offsets. */
#define FRAME_TEXT_MAX 288	/* a symbol's name, '+' and an offset */
#define KEY_TEXT_MAX (GILK_AGG_STACK_FRAMES * FRAME_TEXT_MAX)

/*
 * A frame as bpftrace names it, "sym+off" (offsets in decimal; none when
 * !offset), or its address where no symbol is. A return address is named
 * by the call before it: a call that never returns ends its function.
 */
static void frame_name(const struct symbolizer *y, uint64_t addr, bool ret, bool offset,
		       char *buf, size_t len)
{
	char name[256];
	uint64_t off;

	if (!y || !symbolizer_near(y, addr - ret, false, name, sizeof(name), &off))
		snprintf(buf, len, "0x%" PRIx64, addr);
	else if (offset)
		snprintf(buf, len, "%s+%" PRIu64, name, off + ret);
	else
		snprintf(buf, len, "%s", name);
}

/* A stack from its outermost frame ("..." first where the walk stopped
 * short of it), ';' between frames. */
static void stack_text(const struct symbolizer *y, const struct agg_entry *a, bool offsets,
		       char *buf, size_t len)
{
	bool more;
	uint32_t n = agg_stack_depth(a, &more);
	size_t used = 0;

	buf[0] = '\0';
	if (more)
		used = (size_t)snprintf(buf, len, "...");
	for (uint32_t i = n; i-- > 0 && used < len; ) {
		char f[FRAME_TEXT_MAX];

		frame_name(y, a->frames[i], i > 0, offsets, f, sizeof(f));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ";" : "", f);
	}
}

static void key_cell(const struct agg_view *v, const struct agg_entry *a,
		     const struct symbolizer *y, char *buf, size_t len)
{
	if (v->splice.agg.key == GILK_AGG_KEY_STACK && a->frames)
		stack_text(y, a, true, buf, len);
	else
		key_text(&v->splice.agg, a->key, buf, len);
}

/* A stack key as bpftrace prints @[kstack]: a frame a line, innermost
 * first. */
static void text_stack(FILE *out, const struct agg_entry *a, const struct symbolizer *y)
{
	bool more;
	uint32_t n = agg_stack_depth(a, &more);

	fputs("@[\n", out);
	for (uint32_t i = 0; i < n; i++) {
		char f[FRAME_TEXT_MAX];

		frame_name(y, a->frames[i], i > 0, true, f, sizeof(f));
		fprintf(out, "    %s\n", f);
	}
	if (more)
		fprintf(out, "    ... (more than %d frames)\n", GILK_AGG_STACK_FRAMES);
	fputc(']', out);
}

static void text_entry(FILE *out, const struct agg_view *v, const struct agg_entry *a,
		       const struct symbolizer *y)
{
	const struct gilk_agg *g = &v->splice.agg;
	char key[64];

	key_text(g, a->key, key, sizeof(key));
	if (g->key == GILK_AGG_KEY_NONE)
		fputs("@", out);
	else if (g->key == GILK_AGG_KEY_STACK && a->frames)
		text_stack(out, a, y);
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

static void text_view(FILE *out, const struct agg_view *v, const struct symbolizer *y)
{
	const struct gilk_splice_info *sp = &v->splice;

	fprintf(out, "splice %u (%s): %" PRIu64 " hits in %zu key%s%s\n", sp->id, sp->agg.text,
		v->hits, v->n, v->n == 1 ? "" : "s", v->cleared ? " since cleared" : "");
	for (size_t i = 0; i < v->n; i++) {
		if (i && (sp->agg.kind != GILK_AGG_COUNT || sp->agg.key == GILK_AGG_KEY_STACK))
			fputc('\n', out);
		text_entry(out, v, &v->e[i], y);
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

static void csv_view(FILE *out, const struct agg_view *v, const struct symbolizer *y)
{
	const struct gilk_agg *g = &v->splice.agg;
	char key[KEY_TEXT_MAX];

	fprintf(out, g->kind == GILK_AGG_COUNT ? "key,count\n" : "key,low,high,count\n");
	for (size_t i = 0; i < v->n; i++) {
		const struct agg_entry *a = &v->e[i];

		key_cell(v, a, y, key, sizeof(key));
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

/* A stack's frames innermost first, as text shows them. */
static void json_stack(FILE *out, const struct agg_entry *a, const struct symbolizer *y)
{
	bool more;
	uint32_t n = agg_stack_depth(a, &more);

	fputs(", \"stack\": [", out);
	for (uint32_t k = 0; k < n; k++) {
		char f[FRAME_TEXT_MAX];

		frame_name(y, a->frames[k], k > 0, true, f, sizeof(f));
		fputs(k ? ", " : "", out);
		quote_string(out, f, true);
	}
	fprintf(out, "], \"truncated\": %s", more ? "true" : "false");
}

static void json_view(FILE *out, const struct agg_view *v, const struct symbolizer *y)
{
	const struct gilk_agg *g = &v->splice.agg;
	char key[KEY_TEXT_MAX];

	fprintf(out, "{\"splice\": %u, \"aggregation\": ", v->splice.id);
	quote_string(out, g->text, true);
	fprintf(out, ", \"hits\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"nested\": %" PRIu64
		", \"keys\": [", v->hits, v->dropped, v->nested);
	for (size_t i = 0; i < v->n; i++) {
		const struct agg_entry *a = &v->e[i];

		key_cell(v, a, y, key, sizeof(key));
		fprintf(out, "%s\n  {\"key\": ", i ? "," : "");
		quote_string(out, key, true);
		if (g->key == GILK_AGG_KEY_STACK && a->frames)
			json_stack(out, a, y);
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

void agg_view_write(FILE *out, enum format f, const struct agg_view *v,
		    const struct symbolizer *y)
{
	if (f == FMT_CSV)
		csv_view(out, v, y);
	else if (f == FMT_JSON)
		json_view(out, v, y);
	else
		text_view(out, v, y);
}

/* A folded line's text and its hits, lines of one text added up. */
struct folded {
	char *text;
	uint64_t hits;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->text, ((const struct folded *)b)->text);
}

int agg_view_write_folded(FILE *out, const struct agg_view *v, const struct symbolizer *y)
{
	struct folded *l = calloc(v->n ? v->n : 1, sizeof(*l));
	bool stack = v->splice.agg.key == GILK_AGG_KEY_STACK;
	char text[KEY_TEXT_MAX];
	size_t n = 0;
	int rc = -1;

	if (!l)
		return -1;
	for (size_t i = 0; i < v->n; i++) {
		const struct agg_entry *a = &v->e[i];

		/* flame graphs want a frame's function, not where in it */
		if (stack && a->frames)
			stack_text(y, a, false, text, sizeof(text));
		else if (v->splice.agg.key == GILK_AGG_KEY_NONE)
			snprintf(text, sizeof(text), "all");
		else
			key_text(&v->splice.agg, a->key, text, sizeof(text));
		/* a space or (in a one-frame key) a ';' would split the line */
		for (char *c = text; *c; c++)
			if (*c == ' ' || (*c == ';' && !stack))
				*c = '_';
		l[n].text = strdup(text);
		if (!l[n].text)
			goto out;
		l[n++].hits = a->count;
	}
	qsort(l, n, sizeof(*l), by_text);
	for (size_t i = 0; i < n; i++) {
		uint64_t hits = l[i].hits;

		while (i + 1 < n && !strcmp(l[i].text, l[i + 1].text))
			hits += l[++i].hits;
		fprintf(out, "%s %" PRIu64 "\n", l[i].text, hits);
	}
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(l[i].text);
	free(l);
	return rc;
}
