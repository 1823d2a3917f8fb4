/* verdict: a plan in a few words, as blocks, plan and splice print it. */
#ifndef GILK_VERDICT_H
#define GILK_VERDICT_H

#include <stddef.h>

#include "splice.h"

void plan_verdict(const struct splice_plan *p, int ok, char *buf, size_t len);

#endif
