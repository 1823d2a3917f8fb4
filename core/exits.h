/*
 * exits: how each basic block of a function ends, as far as leaving the
 * function goes, for FUNC:exit splices and for "blocks". A return point is
 * where the function hands control back to its caller: a ret, a jmp to a
 * return thunk (the image's form of every return on RETHUNK kernels; at boot
 * alternatives may turn it into ret; int3), or a tail call (a jmp to another
 * function's start, through a register or through a retpoline thunk).
 * A splice there runs before control leaves, with the return value in rax.
 * Not return points: a jcc out of the function (a conditional return or tail
 * call: a splice before it would also run on the path that stays), a call
 * that never returns (panic(), __stack_chk_fail(): the block before it ends
 * the function but nothing comes back), and a jmp into the function's .cold
 * part (the function goes on there).
 */
#ifndef GILK_EXITS_H
#define GILK_EXITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "symtab.h"

enum exit_kind {
	EXIT_NONE,            /* control stays in the function */
	EXIT_RET,             /* ret */
	EXIT_RETURN_THUNK,    /* jmp __x86_return_thunk (or another return thunk) */
	EXIT_TAIL_CALL,       /* jmp to another function's start */
	EXIT_TAIL_INDIRECT,   /* jmp through a register or a retpoline thunk */
	EXIT_CONDITIONAL,     /* jcc out of the function: not a return point */
	EXIT_NORETURN,        /* ends in a call that never returns */
	EXIT_COLD,            /* goes on in the function's .cold part */
	EXIT_BUG,             /* ends in a BUG() or other trap */
	EXIT_NKINDS
};

struct block_exit {
	enum exit_kind kind;
	uint64_t addr;        /* the instruction that leaves (0 for EXIT_NONE) */
	uint64_t target;      /* where it goes, when direct; 0 otherwise */
};

/* How block b of g ends; st names the targets (thunks, function starts). */
struct block_exit exit_of_block(const struct cfg *g, size_t b,
				const struct symtab *st);
/* Whether a splice at the exit's instruction sees every return there. */
bool exit_is_return_point(enum exit_kind kind);
/* "ret", "return thunk", "tail call", ... */
const char *exit_kind_str(enum exit_kind kind);

#endif
