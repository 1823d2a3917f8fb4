/* Sorted address arrays (see u64set.h). */
#include "u64set.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t u64_sort_unique(uint64_t *a, size_t n)
{
	size_t m = 0;

	if (!n)
		return 0;	/* a may be NULL, which qsort must not see */
	qsort(a, n, sizeof(*a), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!m || a[m - 1] != a[i])
			a[m++] = a[i];
	return m;
}

size_t sort_tail_in(void *a, size_t sorted, size_t n, size_t size,
		    int (*cmp)(const void *, const void *))
{
	unsigned char *b = a, *tail;
	size_t k = n - sorted, i = sorted, j = k, w = n;

	if (!k)
		return n;
	tail = malloc(k * size);
	if (!sorted || !tail) {	/* the whole, without a buffer */
		free(tail);
		qsort(a, n, size, cmp);
		return 0;
	}
	memcpy(tail, b + sorted * size, k * size);
	qsort(tail, k, size, cmp);
	/* From the top down: what the tail's smallest stays under is not moved. */
	while (j > 0) {
		w--;
		if (i > 0 && cmp(b + (i - 1) * size, tail + (j - 1) * size) > 0)
			memcpy(b + w * size, b + --i * size, size);
		else
			memcpy(b + w * size, tail + --j * size, size);
	}
	free(tail);
	return i;
}

size_t u64_merge_unique(uint64_t *a, size_t sorted, size_t n)
{
	size_t m = sort_tail_in(a, sorted, n, sizeof(*a), cmp_u64);

	if (m == n)
		return n;
	for (size_t i = m; i < n; i++)
		if (!m || a[m - 1] != a[i])
			a[m++] = a[i];
	return m;
}

struct key_in {
	const uint64_t *a;
	uint64_t key;
};

static bool less_than_key(const void *ctx, size_t i)
{
	const struct key_in *k = ctx;

	return k->a[i] < k->key;
}

size_t u64_lower_bound(const uint64_t *a, size_t n, uint64_t key)
{
	struct key_in k = { a, key };

	return u64_partition(n, less_than_key, &k);
}
