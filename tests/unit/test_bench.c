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

/* Figures over rounds: the spread is the median distance from the median,
 * and a figure inside it (or against a reference inside its own) gives no
 * ratio: a negative cost is the noise's. */
static void spreads(void **st)
{
	static const double rounds[] = { 10, 12, 30, 11, 9 }, noisy[] = { -60, 40, -5, 90, -70 };
	struct bench_fig f = bench_fig_of(rounds, 5), g = bench_fig_of(noisy, 5);
	struct bench_fig ref = { 100, 5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)st;
	assert_true(f.value == 11 && f.spread == 1);	/* |x - 11|: 1 1 19 0 2 */
	assert_true(rounds[2] == 30);			/* not sorted in place */
	assert_true(g.value == -5 && g.spread == 55);	/* 55 45 0 95 65 */
	assert_false(bench_in_noise(f));
	assert_true(bench_in_noise(g));
	out = open_memstream(&buf, &len);
	bench_line_fig(out, "hit-count", f, "ns/hit", "kprobe-int3", ref);
	bench_line_fig(out, "hit-count-opt", g, "ns/hit", "kprobe-optimized", ref);
	bench_line_fig(out, "hit-kprobe-int3", ref, "ns/hit", "count", g);
	bench_line_fig(out, "splice-batch-100", f, "ms", "bpftrace-attach-100",
		       (struct bench_fig){ 110, NAN });
	fclose(out);
	assert_string_equal(buf,
		"bench: hit-count 11.0 ns/hit ±1.00 (vs kprobe-int3: 0.110)\n"
		"bench: hit-count-opt -5.00 ns/hit ±55.0, inside the noise (vs kprobe-optimized: n/a)\n"
		"bench: hit-kprobe-int3 100 ns/hit ±5.00 (vs count: n/a)\n"
		"bench: splice-batch-100 11.0 ms ±1.00 (vs bpftrace-attach-100: 0.100)\n");
	free(buf);
}

const struct CMUnitTest bench_tests[] = {
	cmocka_unit_test(medians),
	cmocka_unit_test(line_format),
	cmocka_unit_test(spreads),
};
const size_t bench_ntests = sizeof(bench_tests) / sizeof(bench_tests[0]);
