/* Generated instruction sequences for the differential tests: random but
 * valid x86-64 code heavy in what relocation rewrites. */
#ifndef GILK_TEST_GEN_H
#define GILK_TEST_GEN_H

#include <stddef.h>
#include <stdint.h>

#define GEN_BASE 0xffffffff81000000ull
#define GEN_MAX 512

/* Writes a function of random instructions for address GEN_BASE into buf;
 * returns its length (instructions, a final ret, then int3 padding). */
size_t gen_function(uint64_t *rng, uint8_t *buf);

#endif
