/* Unit tests: text facts finished a few at a time, as live planning adds
 * them (core/textfacts.c, core/u64set.c), agree with facts finished at
 * once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "textfacts.h"
#include "u64set.h"
#include "unit.h"

/* A small deterministic generator: the same sets every run. */
static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void merge_unique_matches_sort(void **st)
{
	enum { N = 2000 };
	uint64_t a[N], b[N], x = 88172645463325252ull;

	(void)st;
	for (size_t round = 0; round < 40; round++) {
		size_t n = 1 + next(&x) % N, sorted = next(&x) % (n + 1), m;

		for (size_t i = 0; i < n; i++)
			a[i] = next(&x) % 500;	/* many duplicates */
		sorted = u64_sort_unique(a, sorted);
		/* the unsorted rest follows the sorted prefix */
		for (size_t i = sorted; i < n; i++)
			a[i] = next(&x) % 500;
		memcpy(b, a, n * sizeof(*a));
		m = u64_merge_unique(a, sorted, n);
		assert_int_equal(m, u64_sort_unique(b, n));
		assert_memory_equal(a, b, m * sizeof(*a));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first index sort_tail_in() reports changed: everything below it
 * is as it was, and it moved nothing it need not. */
static void tail_in_reports_first_change(void **st)
{
	uint64_t a[] = { 10, 20, 30, 40, 50, 35, 45 }, b[] = { 10, 20, 30, 60, 55 };
	const uint64_t want_a[] = { 10, 20, 30, 35, 40, 45, 50 }, want_b[] = { 10, 20, 30, 55, 60 };

	(void)st;
	assert_int_equal(sort_tail_in(a, 5, 7, sizeof(*a), cmp_u64), 3);
	assert_memory_equal(a, want_a, sizeof(a));
	assert_int_equal(sort_tail_in(b, 3, 5, sizeof(*b), cmp_u64), 3);
	assert_memory_equal(b, want_b, sizeof(b));
	assert_int_equal(sort_tail_in(b, 5, 5, sizeof(*b), cmp_u64), 5);
}

/* Ranges, targets and BUG/WARN sites added after a first finish are found,
 * overlaps through the running maximum of ends included: a long range
 * merged in low must still be seen from above its start. */
static void finish_again_finds_added(void **st)
{
	struct textfacts *tf = textfacts_new(), *ref = textfacts_new();
	const struct res_range *r;
	const uint64_t *t;
	uint64_t x = 42;

	(void)st;
	assert_non_null(tf);
	assert_non_null(ref);
	for (int i = 0; i < 3000; i++) {
		uint64_t at = next(&x) % 1000000, len = 1 + next(&x) % 8;

		textfacts_add_range(tf, at, at + len, RES_JUMP_LABEL);
		textfacts_add_range(ref, at, at + len, RES_JUMP_LABEL);
	}
	textfacts_add_target(tf, 500000);
	textfacts_add_bug(tf, 700000, 2, false);
	textfacts_finish(tf);
	/* nothing was added at 2000000.. yet */
	assert_null(textfacts_reserved(tf, 2000000, 2000001, RES_NKINDS));
	/* a long one from low down, and short ones, added and finished again */
	textfacts_add_range(tf, 100, 3000000, RES_KPROBE);
	textfacts_add_range(tf, 2500000, 2500005, RES_FTRACE);
	textfacts_add_target(tf, 400000);
	textfacts_add_target(tf, 500000);	/* twice: kept once */
	textfacts_add_bug(tf, 600000, 2, true);	/* a WARN: a target after it */
	/* not yet finished: queries see what was */
	assert_int_equal(textfacts_bug(tf, 600000), BUG_NONE);
	textfacts_finish(tf);
	r = textfacts_reserved(tf, 2000000, 2000001, RES_NKINDS);
	assert_non_null(r);
	assert_int_equal(r->kind, RES_KPROBE);
	assert_true(textfacts_overlaps(tf, 2500004, 2500006, RES_FTRACE));
	assert_false(textfacts_overlaps(tf, 2500005, 2500006, RES_FTRACE));
	assert_int_equal(textfacts_targets(tf, 400000, 500001, &t), 2);
	assert_int_equal(t[0], 400000);
	assert_int_equal(t[1], 500000);
	assert_int_equal(textfacts_targets(tf, 600002, 600003, &t), 1);
	assert_int_equal(textfacts_bug(tf, 600000), BUG_WARN);
	assert_int_equal(textfacts_bug(tf, 700000), BUG_BUG);
	/* and the jump labels agree with ref's, finished at once, byte by byte
	 * over a stretch (the KPROBE range skipped) */
	textfacts_finish(ref);
	for (uint64_t a = 0; a < 1000000; a += 7) {
		const struct res_range *p = textfacts_reserved(tf, a, a + 1, RES_KPROBE);
		const struct res_range *q = textfacts_reserved(ref, a, a + 1, RES_NKINDS);

		assert_true((p == NULL) == (q == NULL));
	}
	textfacts_free(tf);
	textfacts_free(ref);
}

const struct CMUnitTest textfacts_tests[] = {
	cmocka_unit_test(merge_unique_matches_sort),
	cmocka_unit_test(tail_in_reports_first_change),
	cmocka_unit_test(finish_again_finds_added),
};
const size_t textfacts_ntests = sizeof(textfacts_tests) / sizeof(textfacts_tests[0]);
