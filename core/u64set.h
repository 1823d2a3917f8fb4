/* u64set: sorted arrays of addresses (branch targets, extra edges): sorting
 * with duplicates dropped, and lower-bound search; and the one binary search
 * of core/, which every sorted table (instructions, blocks, symbols by
 * address and by name, reserved ranges) goes through. */
#ifndef GILK_U64SET_H
#define GILK_U64SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n) ascending, drops duplicates, returns the new count. */
size_t u64_sort_unique(uint64_t *a, size_t n);
/* The first i in [0, n) for which below(ctx, i) is false (n when none):
 * below must hold for a prefix of the indices and not after it. */
size_t u64_partition(size_t n, bool (*below)(const void *ctx, size_t i),
		     const void *ctx);
/* Index of the first element >= key (n when none). */
size_t u64_lower_bound(const uint64_t *a, size_t n, uint64_t key);

#endif
