/*
 * cfg: the basic blocks of one function and the edges between them.
 * Leaders are the entry, every direct branch target inside the function,
 * external targets (edges from the function's .cold parts, jump-label targets,
 * exception fixup landings), and the instruction after any instruction that
 * ends a block. Runs of int3/nop that nothing reaches (after a jmp, a ret, a
 * ud2) are padding: not blocks, but remembered as dead bytes a bounce may use.
 */
#ifndef GILK_CFG_H
#define GILK_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode.h"
#include "gerr.h"

enum edge_kind { EDGE_FALL, EDGE_JUMP, EDGE_TAKEN, EDGE_EXTERNAL };

struct block {
	uint64_t start, end;
	uint32_t first, count;  /* instruction indices */
	uint32_t edge_first;    /* its outgoing edges: edges[edge_first ..] */
	uint16_t nsucc;         /* how many (0, 1 or 2; a read switch's more) */
	uint8_t reachable;      /* from the entry or an external target */
	uint8_t targeted;       /* some branch lands on its first byte */
};

#define CFG_OUTSIDE UINT32_MAX

struct edge {
	uint32_t from, to;      /* block indices; from == CFG_OUTSIDE for external */
	uint8_t kind;           /* enum edge_kind */
};

struct range {
	uint64_t start, end;
};

/* A switch's table, read (kernel.c): the jump through it and the distinct
 * targets it sends to, sorted. */
struct cfg_table {
	uint64_t jump;
	const uint64_t *targets;
	size_t n;
};

#define CFG_TABLE_MAX 1024      /* targets of one table, at most */

struct cfg {
	uint64_t start, end;
	struct insn *insns;
	size_t ninsn, capinsn;
	struct block *blocks;
	size_t nblocks, capblocks;
	struct edge *edges;
	size_t nedges, capedges;
	uint64_t *targets;      /* sorted, distinct, inside [start, end) */
	size_t ntargets, captargets;
	struct range *padding;
	size_t npadding, cappadding;
	/* Filler not decoded: the middle of each run of int3 longer than
	 * CFG_FILLER_LONG bytes, with CFG_FILLER_KEEP decoded at each end.
	 * Inside padding; no instruction is there. */
	struct range *filler;
	size_t nfiller, capfiller;
	uint64_t bad_addr;      /* first byte that does not decode, 0 if none */
	uint64_t misaligned;    /* a target inside an instruction, 0 if none */
	bool jump_table;        /* has jmp [table+index]: targets we cannot see */
	/* While cfg_build_tables() builds: the tables it was given */
	const struct cfg_table *tables;
	size_t ntables;
};

/*
 * A kernel symbol that ends a section (__entry_text_end, a retpoline
 * alias) reaches up to the next symbol over megabytes of int3: decoded one
 * by one, those took hundreds of megabytes for nothing. A run this long
 * keeps its ends decoded, beyond any reach of an rel8 from the code around
 * it (bounce slots stay where they were), and is padding all through.
 */
#define CFG_FILLER_LONG 4096
#define CFG_FILLER_KEEP 512

/* Builds g for code[0 .. end-start) at [start, end). ext lists targets known
 * from elsewhere (any addresses; those outside the function are ignored).
 * g's buffers are reused across calls; cfg_free() releases them. */
int cfg_build(struct cfg *g, struct decoder *d, const uint8_t *code,
	      uint64_t start, uint64_t end, const uint64_t *ext, size_t next,
	      struct gerr *e);
/* The same, with the tables of the function's table jumps that were read:
 * each makes its targets leaders and its jump's block their predecessor; a
 * table jump without one leaves jump_table set. */
int cfg_build_tables(struct cfg *g, struct decoder *d, const uint8_t *code,
		     uint64_t start, uint64_t end, const uint64_t *ext, size_t next,
		     const struct cfg_table *tables, size_t ntables, struct gerr *e);
void cfg_free(struct cfg *g);

/* How many instructions g's range holds: those decoded and the filler's
 * int3s. */
size_t cfg_insn_count(const struct cfg *g);
/* Index of the instruction starting exactly at addr, or -1. */
ssize_t cfg_insn_at(const struct cfg *g, uint64_t addr);
/* Index of the instruction containing addr (padding included), or -1. */
ssize_t cfg_insn_containing(const struct cfg *g, uint64_t addr);
/* Index of the block containing addr, or -1 (padding, outside). */
ssize_t cfg_block_at(const struct cfg *g, uint64_t addr);
/* Whether some branch (or external edge) lands exactly on addr. */
bool cfg_is_target(const struct cfg *g, uint64_t addr);

/* Appends to *out the direct branch targets found by a linear decode of
 * code[start, end) that fall inside [lo, hi): how a function learns the edges
 * its .cold parts send back into it. */
int cfg_collect_targets(struct decoder *d, const uint8_t *code, uint64_t start,
			uint64_t end, uint64_t lo, uint64_t hi, uint64_t **out,
			size_t *n, size_t *cap);

#endif
