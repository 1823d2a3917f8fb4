/*
 * report: how make bench says what it measured. Every figure is one line,
 *   bench: NAME VALUE UNIT (vs REFERENCE: RATIO)
 * with RATIO = VALUE / the reference's value measured in the same run, so
 * the README's table and a reader's grep see one format whatever measured it.
 * A figure taken over rounds, in turn with its reference, gives its spread
 * after the unit:
 *   bench: NAME VALUE UNIT ±SPREAD (vs REFERENCE: RATIO)
 * and one no bigger than its spread (or its reference's) says so, with no
 * ratio, rather than a cost the noise made:
 *   bench: NAME VALUE UNIT ±SPREAD, inside the noise (vs REFERENCE: n/a)
 */
#ifndef GILK_BENCH_REPORT_H
#define GILK_BENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* The median of v[0..n) (n >= 1); sorts v. */
double bench_median(double *v, size_t n);

/* A figure over rounds: the median, and the spread, the median of the
 * rounds' distances from it (v is not changed). */
struct bench_fig {
	double value, spread;
};
struct bench_fig bench_fig_of(const double *v, size_t n);

/* Whether a figure is no bigger than its spread: not told from nothing. */
int bench_in_noise(struct bench_fig f);

/* Writes a figure's line. A reference of 0 (or one that could not be
 * measured, NaN) gives the ratio "n/a" rather than a division by zero. */
void bench_line(FILE *f, const char *name, double value, const char *unit,
		const char *ref, double ref_value);
/* The same for figures over rounds (NAN values: not measured). */
void bench_line_fig(FILE *f, const char *name, struct bench_fig value, const char *unit,
		    const char *ref, struct bench_fig ref_value);

#endif
