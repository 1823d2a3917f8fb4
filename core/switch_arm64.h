/*
 * switch_arm64: the tables of an arm64 function's switch dispatches, read
 * from the image, so that each br through one leads to the cases it sends to.
 *
 * GCC ends a dispatch with
 *     ldrb  Wk, [Xt, Wi, uxtw]    (ldrh Wk, [Xt, Wi, uxtw #1])
 *     adr   Xb, base
 *     add   Xd, Xb, Wk, sxtb #2   (sxth; uxtb, uxth)
 *     br    Xd
 * and each entry sends to base + 4 * entry. The table's address in Xt and
 * the bound on Wi are set before, anywhere: adrp/add right above, or once
 * in the prologue and kept in a callee-saved register or a stack slot
 * across a loop; the bound by a cmp and b.hi (b.ls, b.hs, b.lo) in the
 * same block or another. A forward dataflow over the function's blocks
 * finds both: the address every path into the ldr leaves in Xt (from
 * adrp, add, mov, and str/ldr or stp/ldp of sp slots), and the bound every
 * path has put on Wi (from the branch's edge, kept by mov). What a path
 * does not show, or shows otherwise, leaves the table unread: the function
 * keeps jumping through a table whose targets are unseen.
 */
#ifndef GILK_SWITCH_ARM64_H
#define GILK_SWITCH_ARM64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "decode.h"
#include "gerr.h"

/* What the reader asks of the kernel around the function. */
struct switch_image {
	/* The image's bytes at [addr, addr + len), or NULL where it holds none. */
	const uint8_t *(*bytes)(void *ctx, uint64_t addr, size_t len);
	/* Whether a call to target never returns (__stack_chk_fail(), panic()):
	 * the CFG goes on after it, to code other paths branch to. */
	bool (*noreturn)(void *ctx, uint64_t target);
	void *ctx;
};

/*
 * Reads the table of each of g's table jumps that the dataflow shows, and
 * builds g again with them (cfg_build_tables(), from code and the external
 * targets ext). Each entry must send to an instruction of the function, or
 * the table is not read. 0, or -1 with e set.
 */
int switch_arm64_read(struct decoder *d, struct cfg *g, const uint8_t *code,
		      const uint64_t *ext, size_t next, const struct switch_image *img,
		      struct gerr *e);

#endif
