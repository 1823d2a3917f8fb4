/*
 * kernel_lines: a kernel's source lines, from the line index (lineindex.h)
 * made for its very build. The index is found by the kernel's GNU build id
 * (DIR/ID.lines) in the folders kernel_lines_dirs() names, so an index of
 * another build is never used; its link-time addresses are moved to where
 * the kernel runs (KASLR) by the distance between the two _texts.
 */
#ifndef GILK_KERNEL_LINES_H
#define GILK_KERNEL_LINES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gerr.h"
#include "kernel.h"
#include "lineindex.h"

struct kernel_lines {
	struct lineindex *li;
	int64_t slide;		/* running address - link-time address */
	char path[PATH_MAX];	/* the index file */
	char source[PATH_MAX];	/* its source tree, "" when none */
};

/* The kernel's GNU build id: from its image's .notes, or live from
 * /sys/kernel/notes. Returns its length, or -1. */
int kernel_build_id(struct kernel *k, bool live, uint8_t *id, size_t size,
		    struct gerr *e);

/* The folders searched, in order, ':'-separated into buf: $GILK_DEBUG_DIR
 * when set, then (offline) the folder "debug" beside the image, then
 * /var/cache/gilk/debug. */
void kernel_lines_dirs(const char *image, char *buf, size_t size);

/* Finds and opens the index of k (image: the offline image's path, or
 * NULL live). The error says what is missing and how to make it. */
int kernel_lines_open(struct kernel_lines *kl, struct kernel *k, bool live,
		      const char *image, struct gerr *e);
void kernel_lines_close(struct kernel_lines *kl);

/* The row in force at a running address (lineindex_row_at), or -1. */
int64_t kernel_lines_row_at(const struct kernel_lines *kl, uint64_t addr,
			    struct line_row *r);
/* A row's running address. */
static inline uint64_t kernel_lines_addr(const struct kernel_lines *kl,
					 const struct line_row *r)
{
	return r->addr + (uint64_t)kl->slide;
}
/* The end of the code row i starts: the next row's address at a higher
 * address (running). */
uint64_t kernel_lines_row_end(const struct kernel_lines *kl, size_t i);

/* lineindex_extent at a running address (a symtab_extent_fn; ctx kl). */
bool kernel_lines_extent(const void *ctx, uint64_t addr, uint64_t *start, uint64_t *size);

#endif
