/*
 * Which arithmetic flags an instruction writes, and which of those it leaves
 * undefined (bt/btr after OF, mul after SF, shifts by more than one...).
 * Where the last writer of a flag left it undefined, the original and the
 * spliced runs may differ in it without either being wrong: the emulator's
 * lazy flags compute it from whatever ran before, and so may a CPU. The
 * differential tests leave those flags out of the comparison.
 */
#ifndef GILK_FLAG_DEFS_H
#define GILK_FLAG_DEFS_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

struct flag_def_slot {
	uint64_t addr;
	uint8_t len;
	uint8_t bytes[15];
	uint16_t written, undef;	/* EFLAGS bits */
};

struct flag_defs {
	csh cs;
	struct flag_def_slot *slots;	/* a cache by address and bytes */
	size_t nslots;
};

int flag_defs_open(struct flag_defs *f);
void flag_defs_close(struct flag_defs *f);
/* The flags the instruction at addr (its bytes b, n of them) writes, and
 * of those the ones it leaves undefined; none of either when it does not
 * decode. */
void flag_defs_of(struct flag_defs *f, uint64_t addr, const uint8_t *b, size_t n,
		  uint16_t *written, uint16_t *undef);

#endif
