/*
 * decode: one instruction at a time into the small record the rest of core/
 * works with: x86-64 through Zydis, which decodes without formatting text,
 * arm64 through Capstone; an instruction's text through Capstone on both. Only what matters for splicing is kept:
 * where the instruction is, how long, what kind of control transfer it is, the
 * direct target, and where a RIP-relative displacement sits in its bytes.
 * x86-64 unless the decoder is opened for arm64 (decode_arm64.h says how its
 * instructions map onto the same kinds).
 */
#ifndef GILK_DECODE_H
#define GILK_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "gerr.h"

#define INSN_MAX 15

enum insn_kind {
	IK_PLAIN,     /* falls through, no address dependence but RIP-relative */
	IK_JMP,       /* jmp rel8/rel32 */
	IK_JCC,       /* jcc rel8/rel32 */
	IK_LOOP,      /* loop, loope, loopne, jrcxz, jecxz: rel8 only, no flags */
	IK_CALL,      /* call rel32 */
	IK_RET,       /* ret, ret imm16 */
	IK_JMP_IND,   /* jmp reg/mem */
	IK_CALL_IND,  /* call reg/mem */
	IK_INT3,      /* int3 (breakpoint or SLS/padding byte) */
	IK_UD2,       /* ud2: BUG()/WARN() sites, found by address in __bug_table */
	IK_TRAP_EXIT, /* iret, sysret, sysexit, int n, hlt-free exits: end a block */
	IK_XBEGIN,    /* xbegin rel: a second, hidden target */
	IK_NKINDS
};

struct insn {
	uint64_t addr;
	uint64_t target;   /* direct branch target (JMP, JCC, LOOP, CALL, XBEGIN) */
	uint16_t id;       /* x86-64: Zydis's mnemonic; arm64: Capstone's id */
	uint8_t len;
	uint8_t kind;      /* enum insn_kind */
	uint8_t disp_off;  /* offset of the RIP-relative disp32; 0 when none */
	uint8_t imm_off;   /* offset of the branch displacement (rel8/rel32) */
	uint8_t imm_size;  /* 1 or 4 for relative branches */
	uint8_t nop : 1;   /* a no-op of any length (padding candidate) */
	uint8_t mem_rsp : 1; /* a memory operand addressed through rsp */
	uint8_t mem_index : 1; /* a memory operand with an index register */
	/* Behind Xen's or KVM's emulation prefix (ud2; .ascii "xen" or
	 * "kvm"), which bytes and offsets include: the hypervisor finds the
	 * ud2 by address and emulates what follows, so it never moves. */
	uint8_t emulate : 1;
	/* arm64: ADR, ADRP or a literal load, whose operand is an address
	 * relative to the instruction's own */
	uint8_t pcrel : 1;
	/* An indirect jump through a table of the function's own, a switch
	 * whose targets no decoder sees: x86's jmp [table + index*8]; on
	 * arm64 the br after the compiler's table dispatch, which cfg_build()
	 * marks, since it takes the instructions before it to see. */
	uint8_t table_jump : 1;
	uint8_t arch;      /* enum arch */
	/* A memory operand [disp32 + index*8] with no base and no fs/gs:
	 * disp, sign-extended, where a table of 8-byte words may lie (a
	 * computed goto loads its target so); 0 otherwise. */
	uint64_t table;
	uint8_t bytes[INSN_MAX];
};

struct decoder;

/* An x86-64 decoder; decoder_open_arch() for another instruction set. */
int decoder_open(struct decoder **out, struct gerr *e);
int decoder_open_arch(struct decoder **out, enum arch arch, struct gerr *e);
enum arch decoder_arch(const struct decoder *d);
void decoder_close(struct decoder *d);

/* Decodes one instruction at code[0..avail) sitting at address addr.
 * Returns 0 and fills *out, or -1 when the bytes are not a valid instruction. */
int decode_one(struct decoder *d, const uint8_t *code, size_t avail,
	       uint64_t addr, struct insn *out);

/* Formats "mnemonic operands" of the instruction into buf (Capstone's: Intel
 * syntax on x86-64). Returns 0, or -1 when the bytes do not decode. */
int decode_text(struct decoder *d, const struct insn *in, char *buf, size_t len);

/* arm64: the general registers the instruction writes (arm64_writes()). */
uint32_t decode_arm64_writes(struct decoder *d, const struct insn *in);

/* Whether control can continue to the next instruction. */
bool insn_falls_through(const struct insn *in);
/* hlt, mwait, monitor: idle, where RCU-tasks does not wait. */
bool insn_is_idle(const struct insn *in);
/* int n, into, int1 and the sys* instructions: they trap or switch
 * context, and must not move. */
bool insn_is_trap_or_sys(const struct insn *in);
/* Whether the instruction ends a basic block. */
bool insn_ends_block(const struct insn *in);
/* Whether it has a direct target (JMP, JCC, LOOP, CALL, XBEGIN). */
bool insn_has_target(const struct insn *in);

#endif
