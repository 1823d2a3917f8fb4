/*
 * reloc_x86_64: writes one decoded x86-64 instruction again at another address so that it
 * does the same thing there. Only what depends on the address changes:
 *  - jmp/jcc rel8 or rel32   -> the rel32 form to the same target
 *  - call rel32              -> push <original return address>; jmp target
 *  - call reg/mem            -> push <original return address>; jmp reg/mem
 *    (the callee returns to the original code, never into the trampoline, so
 *    a sleeping callee cannot come back into freed memory, and the unwinder
 *    sees the same return address it would have seen)
 *  - loop/loopcc/jrcxz/jecxz -> the same instruction hopping to a jmp rel32,
 *    which keeps their exact semantics (no flags written, address size kept)
 *  - RIP-relative operands   -> displacement re-based; refused beyond ±2 GiB
 *  - everything else         -> copied
 */
#ifndef GILK_RELOC_X86_64_H
#define GILK_RELOC_X86_64_H

#include "decode.h"
#include "reloc.h"
#include "x86emit.h"

/* Writes the relocated form of in at xw_pc(w). */
enum reloc_status reloc_insn(struct x86w *w, const struct insn *in);
/* The most bytes reloc_insn can write for in. */
size_t reloc_max_len(const struct insn *in);

#endif
