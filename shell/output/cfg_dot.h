/*
 * cfg_dot: a function's control flow graph in Graphviz's dot language, for
 * slides, labs and papers: one box per block with its instructions and how
 * it splices, its edges (taken branches labelled, entries from outside the
 * function dashed), and, live, each spliced block's hits as a heat colour.
 */
#ifndef GILK_CFG_DOT_H
#define GILK_CFG_DOT_H

#include <stdio.h>

#include "session/session.h"

/* g is name's CFG (s->cfg); the splices are s's, as last refreshed. */
void cfg_dot(FILE *out, struct session *s, const struct cfg *g, const char *name);

#endif
