/*
 * symtab: the kernel's symbols from /proc/kallsyms or a System.map (same line
 * format: "address type name [module]"). Two sorted views over one array: by
 * address (lookups, function extents) and by name (exact lookups, prefix
 * enumeration for Tab completion over 100k+ names without scanning them all).
 */
#ifndef GILK_SYMTAB_H
#define GILK_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gerr.h"

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module; /* NULL for the kernel image itself */
	char type;          /* kallsyms type letter: t, T, d, D, ... */
};

struct symtab;

int symtab_load(const char *path, struct symtab **out, struct gerr *e);
/* Parses text in kallsyms/System.map format (copied; text may be freed). */
int symtab_parse(const char *text, size_t len, struct symtab **out,
		 struct gerr *e);
void symtab_free(struct symtab *st);

size_t symtab_count(const struct symtab *st);
/* The i-th symbol in address order. */
const struct ksym *symtab_at(const struct symtab *st, size_t i);

/* A function symbol (t or T), call padding (__pfx_, __cfi_) excepted. */
bool ksym_is_text(const struct ksym *s);

/* Symbols named exactly name: up to max of them into out (may be NULL), the
 * total count returned. Static functions often share a name. */
size_t symtab_by_name(const struct symtab *st, const char *name,
		      const struct ksym **out, size_t max);

/* name, when one symbol has it and others share its address, is the one
 * symtab_by_addr() and symtab_format() give for that address from now on
 * (among aliases of its kind: text or not): a name the user gave stays the
 * name gilk shows. Pointers into the table then name the other alias. */
void symtab_prefer(struct symtab *st, const char *name);

/* The symbol containing addr: the last symbol at or below it, text symbols
 * preferred among aliases. NULL when addr is below every symbol. */
const struct ksym *symtab_by_addr(const struct symtab *st, uint64_t addr);

/* The function containing addr: [start, end) from its text symbol to the next
 * text symbol at a higher address. -1 when addr is not in a text symbol. */
int symtab_function(const struct symtab *st, uint64_t addr,
		    const struct ksym **sym, uint64_t *start, uint64_t *end);

/* Distinct text function starts (aliases collapsed), in address order, within
 * [lo, hi). Returns the count; fills out[0..max). */
size_t symtab_functions(const struct symtab *st, uint64_t lo, uint64_t hi,
			const struct ksym **out, size_t max);

/* The out-of-line parts of a function: "NAME.cold" and "NAME.cold.N". */
size_t symtab_cold_parts(const struct symtab *st, const char *name,
			 const struct ksym **out, size_t max);

/* Names starting with prefix, each distinct name once, in name order. Fills up
 * to max into out and returns how many distinct names match in all. */
size_t symtab_complete(const struct symtab *st, const char *prefix,
		       const char **out, size_t max);

/* An address expression: "0xHEX", "HEX" (16 digits), "sym", "sym+OFF" where
 * OFF is decimal or 0x-hex. A name shared by several symbols is an error that
 * lists them. */
int symtab_resolve(const struct symtab *st, const char *expr, uint64_t *addr,
		   struct gerr *e);
/* The same; where NAME is no symbol but the compiler made one copy of it
 * (NAME.constprop.0, NAME.isra.0, NAME.part.0; NAME.cold where nothing
 * else), that copy, and *variant says which (else NULL). Several copies, or
 * none and names close to NAME: an error listing them. */
int symtab_resolve_as(const struct symtab *st, const char *expr, uint64_t *addr,
		      const struct ksym **variant, struct gerr *e);

/* Text symbols named NAME with a compiler's suffix (.constprop.N, .isra.N,
 * .part.N, .cold, chains of them): up to max into out, the count returned. */
size_t symtab_variants(const struct symtab *st, const char *name,
		       const struct ksym **out, size_t max);
/* Up to max (at most 8) function names closest to name by edit distance
 * (a few edits at most, more for longer names), closest first. */
size_t symtab_near(const struct symtab *st, const char *name,
		   const char **out, size_t max);

/*
 * Sizes, which kallsyms lacks, where something knows them (the line index
 * keeps the ELF symbol table's): fn(ctx, addr, &start, &size) gives the
 * sized function or object at or before a running address. With them, a
 * data address past its symbol's size is not named by it.
 */
typedef bool (*symtab_extent_fn)(const void *ctx, uint64_t addr, uint64_t *start,
				 uint64_t *size);
void symtab_set_sizes(struct symtab *st, symtab_extent_fn fn, const void *ctx);
/* s's size as the sizes say; false when unknown. */
bool symtab_data_size(const struct symtab *st, const struct ksym *s, uint64_t *size);

/* "sym+0x1f" (or "sym" at offset 0) for addr into buf; the bare address when
 * no symbol is near. */
void symtab_format(const struct symtab *st, uint64_t addr, char *buf,
		   size_t len);

#endif
