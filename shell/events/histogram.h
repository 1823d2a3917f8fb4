/*
 * histogram: values counted in power-of-two buckets and drawn as bpftrace
 * draws hist(): [0], [1], [2, 4), [4, 8), ... with K/M/G/T/P/E suffixes, a
 * bar scaled to the fullest bucket, and the empty buckets between.
 */
#ifndef GILK_HISTOGRAM_H
#define GILK_HISTOGRAM_H

#include <stdint.h>
#include <stdio.h>

struct histogram {
	uint64_t bucket[65];	/* [0], then [2^(i-1), 2^i) for i = 1..64 */
	uint64_t count, min, max;
};

void histogram_add(struct histogram *h, uint64_t v);
void histogram_print(FILE *out, const struct histogram *h);
/* Linear buckets as bpftrace draws lhist(): n of them, the first below
 * min, then steps of step from min, the last at or above the steps' end;
 * from the first bucket with a count to the last. */
void histogram_print_linear(FILE *out, const uint64_t *bucket, uint32_t n, int64_t min,
			    uint64_t step);

#endif
