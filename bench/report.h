/*
 * report: how make bench says what it measured. Every figure is one line,
 *   bench: NAME VALUE UNIT (vs REFERENCE: RATIO)
 * with RATIO = VALUE / the reference's value measured in the same run, so
 * the README's table and a reader's grep see one format whatever measured it.
 */
#ifndef GILK_BENCH_REPORT_H
#define GILK_BENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* The median of v[0..n) (n >= 1); sorts v. */
double bench_median(double *v, size_t n);

/* Writes a figure's line. A reference of 0 (or one that could not be
 * measured, NaN) gives the ratio "n/a" rather than a division by zero. */
void bench_line(FILE *f, const char *name, double value, const char *unit,
		const char *ref, double ref_value);

#endif
