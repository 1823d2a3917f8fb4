/* report: the one line format of make bench's figures (report.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct bench_fig bench_fig_of(const double *v, size_t n)
{
	double c[256], d[256];
	struct bench_fig f = { NAN, NAN };

	if (!n || n > sizeof(c) / sizeof(c[0]))
		return f;
	memcpy(c, v, n * sizeof(*v));
	f.value = bench_median(c, n);
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - f.value);
	f.spread = bench_median(d, n);
	return f;
}

int bench_in_noise(struct bench_fig f)
{
	return !isnan(f.value) && f.value <= f.spread;
}

/* Three significant digits or whole units, whichever is longer: 0.0421,
 * 3.14, 24.5, 822, 12163536; never an exponent a table cannot sort by. */
static void put_number(FILE *f, double v)
{
	double a = fabs(v);
	int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4;

	if (a != 0 && a < 0.0001)
		decimals = 6;
	fprintf(f, "%.*f", decimals, v);
}

void bench_line(FILE *f, const char *name, double value, const char *unit,
		const char *ref, double ref_value)
{
	fprintf(f, "bench: %s ", name);
	put_number(f, value);
	fprintf(f, " %s (vs %s: ", unit, ref);
	if (ref_value == 0 || isnan(ref_value) || isnan(value))
		fputs("n/a", f);
	else
		put_number(f, value / ref_value);
	fputs(")\n", f);
	fflush(f);
}

void bench_line_fig(FILE *f, const char *name, struct bench_fig value, const char *unit,
		    const char *ref, struct bench_fig ref_value)
{
	int noise = bench_in_noise(value) || bench_in_noise(ref_value);

	fprintf(f, "bench: %s ", name);
	put_number(f, value.value);
	fprintf(f, " %s", unit);
	if (!isnan(value.spread)) {
		fputs(" ±", f);
		put_number(f, value.spread);
	}
	fprintf(f, "%s (vs %s: ", bench_in_noise(value) ? ", inside the noise" : "", ref);
	if (noise || ref_value.value == 0 || isnan(ref_value.value) || isnan(value.value))
		fputs("n/a", f);
	else
		put_number(f, value.value / ref_value.value);
	fputs(")\n", f);
	fflush(f);
}
