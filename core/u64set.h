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
/* The same when a[0..sorted) is already so: only the rest is sorted, then
 * merged in, so adding a few to a large set costs the few and a move of what
 * lies above them, not a sort of the whole. */
size_t u64_merge_unique(uint64_t *a, size_t sorted, size_t n);
/* Elements of size bytes, a[0..sorted) in cmp's order: sorts a[sorted..n)
 * and merges it in (ties keep the older first). Returns the first index
 * whose element may have changed (n when none did). */
size_t sort_tail_in(void *a, size_t sorted, size_t n, size_t size,
		    int (*cmp)(const void *, const void *));
/* The first i in [0, n) for which below(ctx, i) is false (n when none):
 * below must hold for a prefix of the indices and not after it. Inline, so
 * that each caller's below is too: a scan asks it tens of millions of times
 * (the reserved ranges, for every instruction a flags walk passes). */
static inline size_t u64_partition(size_t n, bool (*below)(const void *ctx, size_t i),
				   const void *ctx)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (below(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
/* Index of the first element >= key (n when none). */
size_t u64_lower_bound(const uint64_t *a, size_t n, uint64_t key);

#endif
