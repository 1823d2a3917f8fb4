/*
 * location: what a LOCATION names. "sym", "sym+off" and "0xADDR" name one
 * address. FUNC:entry, FUNC:exit, FUNC:blocks and FUNC:block N name splice
 * sites of FUNC (any of the above forms naming an address inside it), from
 * its CFG: its entry block's (past ftrace), every return point (core/exits),
 * every block's, and block N's as "blocks" numbers them. splice, plan,
 * disas, blocks and latency take them all.
 */
#ifndef GILK_LOCATION_H
#define GILK_LOCATION_H

#include <stddef.h>
#include <stdint.h>

#include "exits.h"
#include "session/session.h"

enum loc_kind { LOC_ADDR, LOC_ENTRY, LOC_EXIT, LOC_BLOCKS, LOC_BLOCK };

struct location {
	enum loc_kind kind;
	uint64_t addr;          /* the address named (LOC_ADDR), or one in FUNC */
	size_t block;           /* LOC_BLOCK: N */
	int words;              /* command-line words it took: 1, or 2 for
				 * "FUNC:block N" */
	char func[256];         /* the name or address before the colon */
};

/* A site a location names, in FUNC's CFG (s->cfg after location_sites()). */
struct loc_site {
	uint64_t site;          /* where to splice */
	size_t block;           /* the block it instruments */
	struct block_exit exit; /* LOC_EXIT: which return point */
};

/* The suffixes Tab offers after a function name. */
extern const char *const location_suffixes[];

/* How many command-line words a location starting with word takes: 2 for
 * "FUNC:block N", else 1. Commands check their arity with it first. */
int location_nwords(const char *word);
/* Parses words[0] (and words[1] after ":block"); nwords is how many there
 * are. 0, or -1 with a message naming what is wrong. */
int location_parse(struct session *s, char *const *words, int nwords,
		   struct location *loc, struct gerr *e);
/* Whether loc names one site rather than a set (entry, block N, an address). */
int location_is_single(const struct location *loc);
/* The sites of a FUNC:... location, after decoding FUNC into s->cfg: malloc'd
 * into *out. For LOC_EXIT, *nconditional counts the conditional exits left
 * out (may be NULL); a function with no return point is an error. */
int location_sites(struct session *s, const struct location *loc,
		   struct loc_site **out, size_t *n, size_t *nconditional,
		   struct gerr *e);

#endif
