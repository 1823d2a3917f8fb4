/*
 * template: the header a splice's trampoline starts with, written by
 * gilk.ko's own template code (kmod/arch/x86/tramp.c, linked into this library), so
 * what the planner proposes and what gilk.ko's checker compares it with
 * come from one producer. Here: which template a splice gets, its
 * parameters from gilk.ko's reservation, and the splice_header through
 * which core/'s splice_emit() writes it.
 */
#ifndef GILK_TEMPLATE_H
#define GILK_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gilk_tramp.h"
#include "splice.h"

/*
 * The template gilk.ko gives a splice of an instrument that needs needs
 * (GILK_NEEDS_*) under filter f, fetch and aggregation agg (NULL: none):
 * what they need together, as gilk_filter_needs(), gilk_fetch_needs() and
 * gilk_agg_needs() say, and
 * count_task where f is one test of the task and the instrument needs
 * nothing. Whether the flags are saved around an
 * inline template is each plan's (template_init()).
 */
enum gilk_tramp_kind template_of(uint32_t needs, const struct gilk_filter *f,
				 const struct gilk_fetch *fetch, const struct gilk_agg *agg);

/* The most trampoline bytes plan p can need with template kind: what to
 * reserve (a BUG()/WARN() replay gets the full template). */
size_t template_tramp_size(const struct splice_plan *p, enum gilk_tramp_kind kind);

struct template {
	struct splice_header header;	/* for splice_params.header */
	struct gilk_tramp_params params;
};

/*
 * t as template kind with the addresses of reservation r, clac where SMAP
 * is on, and for count_task filter f's test of the task. False when
 * count_task cannot test f inline: f is not one test of the task, or the
 * task's fields or the counters are out of the template's reach.
 */
bool template_init(struct template *t, enum gilk_tramp_kind kind,
		   const struct gilk_reserve *r, bool clac, const struct gilk_filter *f);

#endif
