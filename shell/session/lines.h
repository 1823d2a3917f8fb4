/*
 * lines: the session's view of the kernel's source. The line index
 * (core/kernel_lines.h) is found on first use and kept; source files are
 * read from the tree it names, one at a time. What every command that
 * speaks of lines needs: FILE:LINE parsed with the file found by a tail of
 * its path ("namei.c:2371"), the code addresses of lines, the line of an
 * address, a source line's text.
 */
#ifndef GILK_LINES_H
#define GILK_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "kernel_lines.h"
#include "session/session.h"

struct source_text {
	uint32_t file;          /* lineindex file */
	char *text;
	size_t *start;          /* line N (1-based) at text + start[N - 1] */
	size_t nlines;
};

struct session_lines {
	struct kernel_lines kl;
	bool open;
	struct source_text src;         /* the last file read */
	uint32_t list_file, list_next;  /* where "list" goes on */
	uint32_t list_first;            /* and where "list -" goes back from */
};

/* The index, opened on first use; the error says what is missing. */
int lines_index(struct session *s, struct kernel_lines **kl, struct gerr *e);
/* Whether an index is at hand, without an error (for optional columns). */
bool lines_have(struct session *s);
void lines_free(struct session *s);

/* "fs/namei.c:2371" of a running address into buf; false (buf "") when
 * no line is known. */
bool lines_where(struct session *s, uint64_t addr, char *buf, size_t len);

/* The lines whose code lies in [lo, hi) (running addresses), file by file
 * in the order met: "fs/namei.c:2371,2373-2375 include/linux/fs.h:87"
 * (base_only: "namei.c:..."). "" when none is known. */
void lines_span(struct session *s, uint64_t lo, uint64_t hi, bool base_only,
		char *buf, size_t len);

/* Whether word reads as FILE:LINE or FILE:FIRST-LAST (a path and a line
 * number; a function's FUNC:entry does not). */
bool lines_is_fileline(const char *word);
/* A file by its path or a tail of it; the error names the candidates. */
int lines_file(struct session *s, const char *path, uint32_t *file,
	       struct gerr *e);
/* FILE:LINE or FILE:FIRST-LAST. */
int lines_parse(struct session *s, const char *word, uint32_t *file,
		uint32_t *first, uint32_t *last, struct gerr *e);

/* The running address ranges of code from file's lines first..last, sorted
 * and merged, malloc'd into *out. A range of lines with no code is an
 * error naming the nearest lines that have some. */
int lines_ranges(struct session *s, uint32_t file, uint32_t first,
		 uint32_t last, struct range **out, size_t *n, struct gerr *e);

/* Whether word reads as a source file's path ("fs/namei.c", "namei.c"). */
bool lines_is_file(const char *word);
/* The code of FILE (every line) or FILE:LINE / FILE:FIRST-LAST, as
 * lines_ranges() gives it. */
int lines_word_ranges(struct session *s, const char *word, struct range **r,
		      size_t *n, struct gerr *e);
/* Whether [lo, hi) meets one of n sorted, disjoint ranges. */
bool ranges_meet(const struct range *r, size_t n, uint64_t lo, uint64_t hi);
/* The functions code in the ranges lies in (text that can be spliced; init
 * code is gone), each once, in address order; malloc'd into *out. */
int lines_functions(struct session *s, const struct range *r, size_t n,
		    const struct ksym ***out, size_t *nout, struct gerr *e);

/* The text of a source file (read once, then kept until another is). */
int lines_source(struct session *s, uint32_t file, const struct source_text **t,
		 struct gerr *e);
/* Line n of t without its newline, into buf; "" past the end. */
void lines_text(const struct source_text *t, uint32_t n, char *buf, size_t len);

#endif
