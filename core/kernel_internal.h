/*
 * What the opening of a kernel shares with each architecture's own
 * (kernel.c, kernel_arm64.c).
 */
#ifndef GILK_KERNEL_INTERNAL_H
#define GILK_KERNEL_INTERNAL_H

#include "kernel.h"

/* The symbol's address into *a: 0, or -1 with e saying why (hidden
 * kallsyms addresses, no such symbol). */
int kernel_symbol_addr(const struct symtab *st, const char *name, uint64_t *a,
		       struct gerr *e);
/* A kernel whose tables are not known (kernel.h): no text facts, and no
 * site planned. */
int kernel_no_facts(struct kernel *k, struct gerr *e);

/* arm64's image: an Image (raw bytes placed by its symbols and relocated
 * as its boot code does) or a vmlinux, and its tables where the symbols
 * bound them. */
int kernel_arm64_open(struct kernel *k, const char *image, struct gerr *e);

#endif
