/*
 * request: the /dev/gilk SPLICE request for an emitted plan. It is the one
 * place where core/'s plan and code become the ABI's struct gilk_splice, so
 * live splicing and the tests of gilk.ko's code checker send the same bytes.
 */
#ifndef GILK_REQUEST_H
#define GILK_REQUEST_H

#include <stdbool.h>

#include "splice.h"
#include "uapi/gilk.h"

/*
 * The inline test of TT_COUNT_TASK for filter f (uapi
 * gilk_filter_task_test()), with the task's offsets r gives: false when f is
 * not one test of the task, or its offsets do not fit the template.
 */
bool request_task_test(struct splice_params *sp, const struct gilk_filter *f,
		       const struct gilk_reserve *r);

/* r: the reservation the code was emitted for (id, trampoline addresses). */
void request_from_plan(const struct splice_plan *p, const struct splice_code *c,
		       const struct gilk_reserve *r, struct gilk_splice *req);

#endif
