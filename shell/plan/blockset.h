/*
 * blockset: every block of several functions, named or matched by glob
 * patterns ("tcp_*"), planned together, and what became of each function's
 * blocks. "splice --blocks" splices a block set in one batch; "plan
 * --blocks" shows what it would do, offline too.
 */
#ifndef GILK_BLOCKSET_H
#define GILK_BLOCKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gerr.h"
#include "output/progress.h"
#include "session/session.h"

struct blockset_fn {
	const struct ksym *sym;
	bool some;                 /* only its blocks of the lines asked */
	size_t first, nblocks;     /* its sites: sites[first .. first + nblocks) */
	size_t ok, refused[SR_NREASONS];
};

struct blockset {
	struct live *lv;           /* live: in a batch until blockset_free() */
	struct progress pr;        /* from blockset_collect() on, on stderr */
	struct blockset_fn *fns;
	size_t nfns;
	uint64_t *sites;
	struct splice_plan *plans; /* after blockset_plan(): the good ones first */
	size_t nsites, ngood;
	struct range *lines;       /* the code of the FILE:LINE arguments */
	size_t nlines;
};

/* The functions that the names and patterns in args name (each once, in
 * address order) and their blocks' sites; a pattern leaves out functions
 * that are not text now (init code, freed after boot). FILE:LINE (or FILE,
 * FILE:FIRST-LAST) adds the blocks its code is in, in every function it is
 * compiled into (inlined copies too). A pattern that matches no function,
 * or a name that is not one, is an error and nothing is kept. */
int blockset_collect(struct session *s, char *const *args, int nargs,
		     struct blockset *bs, struct gerr *e);
/* Plans every site (live: all together, so that they leave each other's
 * bytes alone); the plans that succeeded are moved to the front. */
int blockset_plan(struct session *s, struct blockset *bs, struct gerr *e);
/* One line per function: "NAME: N of M blocks VERB", and its refusals. */
void blockset_report(struct session *s, const struct blockset *bs,
		     const char *verb);
/* Says on stderr, past the command's first second, what it does now
 * ("splicing 9000 blocks"). */
void blockset_progress(struct blockset *bs, const char *what);
void blockset_free(struct blockset *bs);

#endif
