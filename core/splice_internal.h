/*
 * splice_internal: what the planner's generic part (splice.c) gives each
 * instruction set's planner and emitter (splice_x86_64.c, splice_arm64.c),
 * and what those give arch.h's tables. Not for use outside core/'s
 * splice*.c and arch_*.c.
 */
#ifndef GILK_SPLICE_INTERNAL_H
#define GILK_SPLICE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "reloc.h"
#include "splice.h"

static inline bool splice_overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* The CFG of env's that holds addr, or NULL. */
const struct cfg *splice_cfg_for(const struct splice_env *env, uint64_t addr);
/* Whether another splice owns any of [lo, lo + len). */
bool splice_is_occupied(const struct splice_env *env, uint64_t lo, uint64_t len);
/* Whether the kernel's tables reserve any of [lo, lo + len); *why (when
 * not NULL) gets the reason to give. */
bool splice_is_reserved(const struct splice_env *env, uint64_t lo, uint64_t len,
			enum splice_reason *why);
/* Whether r covers an alternative's bytes (the plan is then image-only). */
bool splice_touches_alternative(const struct splice_env *env, const struct splice_region *r);
enum splice_reason splice_reason_of_reloc(enum reloc_status s);
/* Refuses p for r at at: -1. */
int splice_refuse(struct splice_plan *p, enum splice_reason r, uint64_t at);

/* Each instruction set's plan of the site g->insns[idx] once splice_plan()'s
 * checks pass, its landing pads, and its emitter (arch.h). */
int splice_plan_x86_64(const struct splice_env *env, const struct cfg *g, size_t idx,
		       struct splice_plan *p);
bool splice_x86_64_landing_pad(const struct cfg *g, const struct insn *in, uint64_t addr);
size_t splice_x86_64_tramp_size(const struct splice_plan *p, size_t header_max);
size_t splice_x86_64_evict_tramp_size(const struct splice_plan *p);
unsigned int splice_emit_x86_64(const struct splice_plan *p, const struct splice_params *sp,
				struct splice_code *out);
int splice_plan_arm64(const struct splice_env *env, const struct cfg *g, size_t idx,
		      struct splice_plan *p);

#endif
