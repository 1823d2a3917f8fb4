/*
 * reloc_arm64: one AArch64 instruction written again at another address (a
 * trampoline's) so that it does the same thing there. A site on arm64 is one
 * instruction; its trampoline lies within a B's ±128 MiB of every address
 * of the kernel text it serves (docs/kernels.md), so B and BL reach their
 * targets from it and no register is taken for a branch:
 *  - b                        -> the same, to the same target
 *  - bl, blr Xn               -> x30 loaded with the original return address
 *    from a literal, then b target (blr: mov x16, Xn first, then br x16):
 *    the callee returns to the original code, never into the trampoline,
 *    so one that sleeps cannot come back into freed memory, and unwinders
 *    see the return address they would have seen. blr takes x16, which the
 *    procedure call standard leaves to veneers at every call, and br x16
 *    lands on a callee's "bti c" as blr would.
 *  - b.cond, cbz/cbnz, tbz/tbnz (±1 MiB, ±32 KiB) -> the inverted test over
 *    the next word, then b target
 *  - adr, adrp                -> ldr Xd from a literal holding the value
 *  - ldr Wt/Xt, ldrsw literal -> ldr Xt from a literal holding the address,
 *    then the load through Xt (the destination is written anyway)
 *  - prfm literal             -> nop (a prefetch changes nothing architectural)
 *  - everything without an address dependence -> copied
 *  - ldxr and the other exclusive loads -> copied (nothing but the b back
 *    runs between the load and its store)
 * Refused: the pointer-authenticating calls (blraa, ...), the SIMD&FP
 * literal loads (no general register to spare), the exclusive stores (a
 * trampoline's instrument between a load and its store would clear the
 * monitor: the loop around them would never end), and the traps
 * and exception returns (brk, udf, hlt, svc, hvc, smc, eret, drps, dcps),
 * which handlers find by address, and Armv8.8's bc.cond. A site between an
 * exclusive load and its store is as bad for the same reason: the planner,
 * not the relocator, refuses those (splice_arm64.h), as kprobes did.
 * A literal is 8-byte aligned, jumped over: the output is self-contained and
 * falls through at its end.
 */
#ifndef GILK_RELOC_ARM64_H
#define GILK_RELOC_ARM64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reloc.h"

/* Words the relocated form of any instruction takes, at most. */
#define RELOC_ARM64_MAX 6

/* Writes the relocated form of the word w, which sat at from, to out[] for
 * address to (4-byte aligned); *n gets its length in words. */
enum reloc_status reloc_arm64(uint32_t w, uint64_t from, uint64_t to, uint32_t *out,
			      size_t *n);

/* The encodings the relocator writes, for the trampoline templates too. */
uint32_t a64_b(uint64_t from, uint64_t to);	/* b to, at from: in range */
bool a64_b_reaches(uint64_t from, uint64_t to);

#endif
