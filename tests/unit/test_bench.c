/* Unit tests: make bench's line format and medians (bench/report.c): the
 * README's table and the guest run are read by this format. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"
#include "unit.h"

static char *line(const char *name, double value, const char *unit, const char *ref,
		  double ref_value)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bench_line(f, name, value, unit, ref, ref_value);
	fclose(f);
	return buf;
}

static void medians(void **st)
{
	double odd[] = { 9, 1, 5 }, even[] = { 4, 1, 3, 2 }, one[] = { -7 };

	(void)st;
	assert_true(bench_median(odd, 3) == 5);
	assert_true(odd[0] == 1 && odd[2] == 9);	/* sorted: the last is the max */
	assert_true(bench_median(even, 4) == 2.5);
	assert_true(bench_median(one, 1) == -7);
}

static void line_format(void **st)
{
	static const struct {
		double value, ref;
		const char *want;
	} cases[] = {
		{ 24, 2631, "bench: hit-count 24.0 ns/hit (vs kprobe-int3: 0.0091)\n" },
		{ 822.5, 1516, "bench: hit-count 822 ns/hit (vs kprobe-int3: 0.543)\n" },
		{ 3.14159, 1, "bench: hit-count 3.14 ns/hit (vs kprobe-int3: 3.14)\n" },
		{ -51, 4753, "bench: hit-count -51.0 ns/hit (vs kprobe-int3: -0.0107)\n" },
		{ 12163536, 4096, "bench: hit-count 12163536 ns/hit (vs kprobe-int3: 2970)\n" },
		{ 0.00002, 1, "bench: hit-count 0.000020 ns/hit (vs kprobe-int3: 0.000020)\n" },
		{ 5, 0, "bench: hit-count 5.00 ns/hit (vs kprobe-int3: n/a)\n" },
		{ 5, NAN, "bench: hit-count 5.00 ns/hit (vs kprobe-int3: n/a)\n" },
		{ NAN, 5, "bench: hit-count nan ns/hit (vs kprobe-int3: n/a)\n" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = line("hit-count", cases[i].value, "ns/hit", "kprobe-int3", cases[i].ref);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

const struct CMUnitTest bench_tests[] = {
	cmocka_unit_test(medians),
	cmocka_unit_test(line_format),
};
const size_t bench_ntests = sizeof(bench_tests) / sizeof(bench_tests[0]);
