/*
 * quote: strings written for a reader that parses them: JSON's quoted and
 * escaped strings, text's (a fetched string, a control byte as a backslash,
 * x and two hex digits), and CSV's cells (RFC 4180).
 */
#ifndef GILK_QUOTE_H
#define GILK_QUOTE_H

#include <stdbool.h>
#include <stdio.h>

/* s quoted and escaped: for JSON, a control character as backslash, u and
 * four hex digits; for text, anything not printable as backslash, x and
 * two hex digits. */
void quote_string(FILE *out, const char *s, bool json);
/* A CSV cell, quoted when it holds a comma, a quote or a line break. */
void quote_csv_cell(FILE *out, const char *s);

#endif
