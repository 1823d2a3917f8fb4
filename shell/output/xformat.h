/*
 * xformat: gdb's /FMT letters, shared by x and print: a count, a format
 * (x d u o t c a, and for x also i and s) and a unit size (b h w g).
 */
#ifndef GILK_XFORMAT_H
#define GILK_XFORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session.h"

struct xfmt {
	unsigned count;
	char fmt;		/* x d u o t c a i s */
	unsigned size;		/* 1 2 4 8 */
};

/* Parses spec (what follows the '/' of cmd) into f: formats are the letters
 * cmd takes, size the unit when none is given. 0, or -1 with a message. */
int xfmt_parse(const char *cmd, const char *spec, const char *formats, unsigned size,
	       struct xfmt *f, struct gerr *e);
/* v, its low f->size bytes, in f's format (x d u o t c a); hex padded to
 * the size with zeros, as x shows memory, or not, as print shows a value. */
void xfmt_value(struct session *s, const struct xfmt *f, uint64_t v, bool padded);

#endif
