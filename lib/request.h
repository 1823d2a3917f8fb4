/*
 * request: the /dev/gilk SPLICE request for an emitted plan. It is the one
 * place where core/'s plan and code become the ABI's struct gilk_splice, so
 * live splicing and the tests of gilk.ko's code checker send the same bytes.
 */
#ifndef GILK_REQUEST_H
#define GILK_REQUEST_H

#include <stdbool.h>

#include "gilk_tramp.h"
#include "splice.h"
#include "uapi/gilk.h"

/* r: the reservation the code was emitted for (id, trampoline addresses);
 * kind: the template it was emitted with (template.h). */
void request_from_plan(const struct splice_plan *p, const struct splice_code *c,
		       const struct gilk_reserve *r, enum gilk_tramp_kind kind,
		       struct gilk_splice *req);

#endif
