/*
 * quote: strings written for a reader that parses them: JSON's quoted and
 * escaped strings, text's (a fetched string, control bytes as \xXX), and
 * CSV's cells (RFC 4180).
 */
#ifndef GILK_QUOTE_H
#define GILK_QUOTE_H

#include <stdbool.h>
#include <stdio.h>

/* s quoted and escaped: for JSON, a control character as \uXXXX; for text,
 * anything not printable as \xXX. */
void quote_string(FILE *out, const char *s, bool json);
/* A CSV cell, quoted when it holds a comma, a quote or a line break. */
void quote_csv_cell(FILE *out, const char *s);

#endif
