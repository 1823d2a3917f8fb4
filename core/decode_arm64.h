/*
 * decode_arm64: one AArch64 instruction, through Capstone, into the same
 * record x86-64's decoder fills (decode.h), so the CFG, the blocks and the
 * shell read both. Every instruction is 4 bytes at a 4-byte boundary.
 *
 * Kinds: B is a jmp; B.cond, CBZ/CBNZ and TBZ/TBNZ are conditional branches;
 * BL is a call, BLR an indirect one; BR an indirect jump; RET a return;
 * ERET leaves like iret; BRK (the kernel's BUG() and WARN(), kgdb) and HLT
 * are traps that do not fall through, as ud2 on x86; so is udf.
 */
#ifndef GILK_DECODE_ARM64_H
#define GILK_DECODE_ARM64_H

#include <capstone/capstone.h>
#include <stdbool.h>

#include "decode.h"

/* Decodes the word at code (avail >= 4) with an AArch64 Capstone handle
 * that has detail on. 0, or -1 when it is not an instruction Capstone
 * knows. */
int arm64_decode(csh cs, cs_insn *ci, const uint8_t *code, size_t avail,
		 uint64_t addr, struct insn *out);

/* Formats an instruction Capstone 4 does not know (ARMv8.1's atomics, udf)
 * that arm64_decode() took; -1 for any other. */
int arm64_format_extra(const struct insn *in, char *buf, size_t len);

/* The name of a hint Capstone 4 prints as "hint #N" (paciasp, bti c, ...),
 * or NULL. */
const char *arm64_hint_name(const struct insn *in);

/* Marks table_jump on each br of insns[0..n) that ends the compiler's
 * switch dispatch: "add Xd, Xbase, Wk, sxtb|sxth|uxtw... #2" into the
 * register br jumps through, a few instructions before it (after adr of
 * the table's base and the load of the entry). A br through a register set
 * otherwise is a tail call. */
void arm64_mark_table_jumps(struct insn *insns, size_t n);

/* The word w is an exclusive load (ldxr, ldaxr, ldxp, ldaxp and their byte
 * and halfword forms; load true) or store (stxr, stlxr, stxp, stlxp): the
 * kernel's aarch64_insn_is_exclusive() class without casp, which is an
 * atomic of its own. */
bool arm64_is_exclusive(uint32_t w, bool load);

/* The general registers in writes: bit n for Xn (or Wn), bit 31 for sp;
 * a call's also clobbers x0-x18 and x30, as the procedure call standard
 * lets the callee. Every bit for a word Capstone does not know. */
#define ARM64_WRITES_ALL 0xffffffffu
uint32_t arm64_writes(csh cs, cs_insn *ci, const struct insn *in);

/* wfi, wfe: a CPU idling, where RCU-tasks does not wait. */
bool arm64_is_idle(const struct insn *in);
/* svc, hvc, smc, eret, brk, hlt, dcps: they trap or switch exception level. */
bool arm64_is_trap_or_sys(const struct insn *in);

#endif
