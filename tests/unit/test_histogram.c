/* Unit tests: the shell's power-of-two histograms (shell/events/histogram.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "events/histogram.h"
#include "unit.h"

static char *drawn(const struct histogram *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	histogram_print(f, h);
	fclose(f);
	return buf;
}

static void buckets_and_labels(void **st)
{
	static const uint64_t v[] = { 0, 1, 2, 3, 3, 4, 1023, 1024, 1ull << 40, UINT64_MAX };
	struct histogram h;
	char *out;

	(void)st;
	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		histogram_add(&h, v[i]);
	assert_int_equal(h.count, 10);
	assert_int_equal(h.min, 0);
	assert_true(h.max == UINT64_MAX);
	assert_int_equal(h.bucket[0], 1);
	assert_int_equal(h.bucket[2], 3);	/* 2, 3, 3 */
	assert_int_equal(h.bucket[11], 1);	/* 1024 */
	out = drawn(&h);
	assert_non_null(strstr(out, "[0] "));
	assert_non_null(strstr(out, "[1] "));
	/* the fullest bucket gets the whole bar */
	assert_non_null(strstr(out, "[2, 4)                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|"));
	assert_non_null(strstr(out, "[512, 1K)"));
	assert_non_null(strstr(out, "[1K, 2K)"));
	assert_non_null(strstr(out, "[1T, 2T)"));
	assert_non_null(strstr(out, "[8E, ...)"));
	/* empty buckets between are drawn too: 66 - 1 lines from [0] to [8E, ...) */
	assert_non_null(strstr(out, "[16, 32)                  0 |"));
	{
		size_t lines = 0;

		for (const char *p = out; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 65);
	}
	free(out);
}

static void one_value(void **st)
{
	struct histogram h;
	char *out;

	(void)st;
	memset(&h, 0, sizeof(h));
	histogram_add(&h, 3);
	histogram_add(&h, 2);
	out = drawn(&h);
	assert_string_equal(out, "[2, 4)                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");
	free(out);
	memset(&h, 0, sizeof(h));
	out = drawn(&h);
	assert_string_equal(out, "");
	free(out);
}

const struct CMUnitTest histogram_tests[] = {
	cmocka_unit_test(buckets_and_labels),
	cmocka_unit_test(one_value),
};
const size_t histogram_ntests = sizeof(histogram_tests) / sizeof(histogram_tests[0]);
