/* Power-of-two histograms (see histogram.h). */
#include "events/histogram.h"

#include <inttypes.h>

#define BAR 52

static unsigned bucket_of(uint64_t v)
{
	unsigned i = 0;

	while (v) {
		v >>= 1;
		i++;
	}
	return i;	/* 0 for 0, 1 for 1, 2 for 2..3, ... */
}

void histogram_add(struct histogram *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->bucket[bucket_of(v)]++;
}

/* 2^shift as bpftrace writes it: 512, 1K, 2K, ... 1M, ... */
static void power(char *buf, size_t len, unsigned shift)
{
	static const char units[] = "KMGTPE";

	if (shift < 10)
		snprintf(buf, len, "%u", 1u << shift);
	else
		snprintf(buf, len, "%u%c", 1u << (shift % 10), units[shift / 10 - 1]);
}

static void bar_line(FILE *out, const char *label, uint64_t count, uint64_t most)
{
	unsigned bar = most ? (unsigned)(count * BAR / most) : 0;

	fprintf(out, "%-16s %10" PRIu64 " |%.*s%*s|\n", label, count, bar,
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", BAR - bar, "");
}

void histogram_print_linear(FILE *out, const uint64_t *bucket, uint32_t n, int64_t min,
			    uint64_t step)
{
	uint32_t lo = n, hi = 0;
	uint64_t most = 0;

	for (uint32_t k = 0; k < n; k++)
		if (bucket[k]) {
			lo = lo == n ? k : lo;
			hi = k;
			most = bucket[k] > most ? bucket[k] : most;
		}
	for (uint32_t k = lo; k <= hi && lo < n; k++) {
		int64_t from = min + (int64_t)((k ? k - 1 : 0) * step);
		char label[64];

		if (k == 0)
			snprintf(label, sizeof(label), "(..., %" PRId64 ")", min);
		else if (k == n - 1)
			snprintf(label, sizeof(label), "[%" PRId64 ", ...)", from);
		else
			snprintf(label, sizeof(label), "[%" PRId64 ", %" PRId64 ")", from,
				 from + (int64_t)step);
		bar_line(out, label, bucket[k], most);
	}
}

void histogram_print(FILE *out, const struct histogram *h)
{
	unsigned lo = bucket_of(h->min), hi = bucket_of(h->max);
	uint64_t most = 0;

	if (!h->count)
		return;
	for (unsigned i = lo; i <= hi; i++)
		most = h->bucket[i] > most ? h->bucket[i] : most;
	for (unsigned i = lo; i <= hi; i++) {
		char label[32], a[8], b[8];
		if (i < 2) {
			snprintf(label, sizeof(label), "[%u]", i);
		} else {
			power(a, sizeof(a), i - 1);
			if (i == 64)
				snprintf(b, sizeof(b), "...");
			else
				power(b, sizeof(b), i);
			snprintf(label, sizeof(label), "[%s, %s)", a, b);
		}
		bar_line(out, label, h->bucket[i], most);
	}
}
