/* u64set: sorted arrays of addresses (branch targets, extra edges): sorting
 * with duplicates dropped, and lower-bound search. */
#ifndef GILK_U64SET_H
#define GILK_U64SET_H

#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n) ascending, drops duplicates, returns the new count. */
size_t u64_sort_unique(uint64_t *a, size_t n);
/* Index of the first element >= key (n when none). */
size_t u64_lower_bound(const uint64_t *a, size_t n, uint64_t key);

#endif
