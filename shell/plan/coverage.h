/*
 * coverage: which blocks of a set of functions ran. Every spliceable block
 * (of those reachable from the entry or an external edge)
 * gets the built-in count (inline in its trampoline: a per-CPU increment,
 * no call); the set remembers each function's blocks, their splices and
 * refusals, and the hits at the last reset, since gilk.ko's counters only
 * grow. One set per session; "coverage stop" removes its splices.
 */
#ifndef GILK_COVERAGE_H
#define GILK_COVERAGE_H

#include <stdint.h>
#include <stdio.h>

#include "output/formats.h"
#include "session/session.h"

struct cov_block {
	uint64_t start, end, site;
	uint32_t id;                /* its splice; 0 when refused */
	enum splice_reason why;     /* why refused */
	uint64_t base;              /* hits at the last reset */
	uint64_t hits;              /* since then, as last read */
};

struct cov_func {
	char name[128];
	uint64_t addr;
	size_t first, n;            /* its blocks: blocks[first .. first + n) */
};

struct coverage {
	struct cov_func *funcs;
	size_t nfuncs, funcs_room;
	struct cov_block *blocks;
	size_t nblocks, blocks_room;
	/* of the functions the last coverage_start named: how many were in
	 * the set already, and how many had no block that can run */
	size_t named_already, named_no_code;
};

/* Adds the functions named by each word (a symbol, or a glob over function
 * names) and splices every spliceable block of theirs: GILK_BATCH_MAX to a
 * batch. FILE, FILE:LINE or FILE:FIRST-LAST adds the blocks those lines'
 * code is in, in every function it is compiled into (lines.h). All or nothing: after an error or Ctrl-C (said in e), the set and
 * the kernel are as they were. filter: gilk.ko's test of each hit, or
 * NULL. */
int coverage_start(struct session *s, struct coverage *c, char **words,
		   size_t n, const struct gilk_filter *filter, struct gerr *e);
/* The argument coverage gives its count splices: any session finds them. */
#define COVERAGE_MARK "coverage"

/* Takes over the coverage an earlier session started (gilk -batch, another
 * shell) into the empty c: its functions and blocks from the splices that
 * carry COVERAGE_MARK, hits counted from each splice's start. */
int coverage_adopt(struct session *s, struct coverage *c, struct gerr *e);
/* The session's set (s->cov), made on first use: one an earlier session
 * started is taken over. running: no set running is an error. */
int coverage_session_set(struct session *s, bool running, struct gerr *e);
/* Reads every block's hits since the last reset. */
int coverage_read(struct session *s, struct coverage *c, struct gerr *e);
/* From now on, hits count from zero. */
int coverage_reset(struct session *s, struct coverage *c, struct gerr *e);
/* Removes every splice of the set, and the set. */
int coverage_stop(struct session *s, struct coverage *c, struct gerr *e);
void coverage_free(struct coverage *c);

/* Per function: blocks hit, spliceable, refused; then the total. Text, CSV
 * (a row per block) or JSON (functions with their blocks). */
void coverage_write(FILE *out, enum format f, const struct coverage *c);

/* Per source line (coverage_lines.c): how often each line of a file or a
 * function ran, beside its text, as gcov annotates a file; and an lcov
 * tracefile of every file the set's blocks hold code of. */
int coverage_report_lines(struct session *s, const struct coverage *c,
			  const char *what, struct gerr *e);
int coverage_write_lcov(struct session *s, FILE *out, const struct coverage *c,
			struct gerr *e);

#endif
