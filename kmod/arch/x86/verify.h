/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gilk.ko's code checker. User space plans a splice and proposes every byte
 * of it; before anything is written, gilk_verify() accepts the proposal only
 * if each byte that will run is one of:
 *  - gilk's own trampoline header (tramp.c), byte for byte: the template
 *    the instrument's needs and the request's flags choose, count without
 *    its pushfq/popfq only where the checker finds the flags dead (flags.h);
 *  - the displaced original instructions, decoded with the kernel's own
 *    decoder from the live bytes and relocated the one faithful way: copied
 *    when position-independent, RIP-relative operands and branch targets
 *    rebased to the same absolute address, rel8 widened to rel32, `call`
 *    as `push <return address>; jmp`, loop/jrcxz through a short hop; a
 *    replayed BUG/WARN ud2 left out;
 *  - the jump back to the end of the region;
 *  - the site's `jmp rel32` to the trampoline or `jmp rel8` to the bounce
 *    slot, int3 after it;
 *  - a bounce slot's `jmp rel32` to the trampoline, over dead int3/nop
 *    padding or in the dead tail of the neighbour the same splice evicts
 *    (whose own trampoline passes the same checks).
 * It also checks that the site and an evicted neighbour start at
 * instruction boundaries (decoding their function from its start, as
 * kprobes' can_probe() does, or within a batch from a point an earlier
 * request's decoding found: env->memo), that a call only ends a region (a
 * sleeping callee returns to the byte after it), and that nothing in a region is
 * an instruction that must not move or run elsewhere (int3 and other traps,
 * ud0/ud1/ud2, xbegin, far transfers, hlt and mwait, sys* instructions).
 *
 * No edge may land past a region's start or in a bounce slot: the direct
 * branches of the function, of the symbols within GILK_NEIGHBOUR_REACH either
 * side (assembly jumps to its neighbours' labels), the labels in a
 * computed goto's table, and the edges the kernel's tables know of
 * wherever they come from (env->hidden_edge: jump label targets, exception
 * fixup landings, the branches between a function and its .cold parts
 * both ways). What it cannot see, an indirect branch's target through
 * anything but such a table or an assembly jump from farther away (none in
 * the kernels tested), is the planner's CFG alone; a wrong answer there
 * meets int3 fill, a trap, never code of the caller's choosing.
 */
#ifndef _GILK_VERIFY_H
#define _GILK_VERIFY_H

#include "gilk_tramp.h"
#include "verify_env.h"

/*
 * 0, or -EBADMSG with a GILK_REFUSED_UNVERIFIED_* code and the sentence
 * "unverified code at PART+OFFSET: why" in *why (PART is the trampoline, the
 * evicted trampoline, a patch or the site; OFFSET the first byte refused).
 * On success *kind is the template accepted.
 */
int gilk_verify(const struct gilk_splice *req,
		const struct gilk_verify_env *env, struct gilk_why *why,
		enum gilk_tramp_kind *kind);

/* Whether the instruction at a is a direct jmp, jcc, loop or call: *t its target. */
bool gilk_branch_target(const struct insn *in, unsigned long a, unsigned long *t);
/*
 * The address of the table of 8-byte words the instruction loads from by
 * [disp32 + index*8] (no base, no fs or gs), or 0: a computed goto's.
 */
unsigned long gilk_table_at(const struct insn *in);
/*
 * Calls each(ctx, w) for the words of the table at t, loaded by the
 * function at func, where env->table_data() allows it: from its first word
 * on while they are text (some land in a .cold part; a 0 is a label left
 * out, 64 in a row are zeroed data) or readable. each's non-zero return
 * stops it and is returned; -E2BIG when GILK_TABLE_MAX words were all
 * labels (the rest unread); else 0. The planner reads the same tables
 * (core/kernel.c).
 */
int gilk_table_words(const struct gilk_verify_env *env, unsigned long t,
		     unsigned long func, int (*each)(void *ctx, unsigned long w),
		     void *ctx);

#endif
