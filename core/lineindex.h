/*
 * lineindex: a kernel's source lines, from its DWARF, in a compact file of
 * gilk's own. The -dbg vmlinux of a distribution kernel is 600 MB of DWARF;
 * the shell needs only a small part of it (which file and line each code
 * address comes from, where each function is declared), and must load it in
 * milliseconds. lineindex_build() reads the DWARF once with libdw and writes
 * that part; lineindex_open() maps the result.
 *
 * Addresses are kept relative to the kernel's _text as the vmlinux links it,
 * so one index serves a KASLR kernel wherever it runs: the caller gives the
 * running _text (kallsyms) as the base. The index names the kernel it was
 * made from by its GNU build id; a kernel with another id is refused, since
 * its lines would be someone else's.
 */
#ifndef GILK_LINEINDEX_H
#define GILK_LINEINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gerr.h"

#define LINEINDEX_BUILD_ID_MAX 64

struct lineindex;

/* One row: from this address on (up to the next row's), code comes from
 * file:line. A row with line 0 ends a run of code (a sequence's end, or
 * code the compiler gave no line). */
struct line_row {
	uint64_t addr;
	uint32_t file;		/* lineindex_file_name() */
	uint32_t line;
	int is_stmt;		/* a statement's start, where a debugger stops */
};

/* Where a function (one with code, or only inlined) is written. */
struct line_func {
	const char *name;
	uint32_t file;
	uint32_t line;
};

/*
 * Reads vmlinux's DWARF (line tables and the functions' declarations) and
 * writes the index to out, or when out is a folder to out/BUILD-ID.lines
 * (the name kernel_lines.h looks for); the path written goes to written.
 * It is written to PATH.tmp, then renamed, so a reader never sees half of
 * one. source is the kernel tree the paths are relative to, recorded for
 * `list` (may be NULL; relative to the index's folder unless absolute).
 */
int lineindex_build(const char *vmlinux, const char *out, const char *source,
		    char *written, size_t wlen, struct gerr *e);

/* Maps an index file. */
int lineindex_open(const char *path, struct lineindex **out, struct gerr *e);
void lineindex_close(struct lineindex *li);

/* The build id it was made from (raw bytes) and its length. */
const uint8_t *lineindex_build_id(const struct lineindex *li, size_t *len);
/* The link-time _text the rows are relative to. */
uint64_t lineindex_text(const struct lineindex *li);
/* The source tree recorded at build time, or "". */
const char *lineindex_source(const struct lineindex *li);

size_t lineindex_nfiles(const struct lineindex *li);
/* A file's path, relative to the source tree where it was in it
 * ("fs/namei.c"), else as the compiler saw it. */
const char *lineindex_file_name(const struct lineindex *li, uint32_t file);
/* A file by path: exact, or else the one path that ends with "/" path.
 * -1 when none; -2 when several end so (then *first is one of them). */
int64_t lineindex_file_find(const struct lineindex *li, const char *path,
			    uint32_t *first);

size_t lineindex_nrows(const struct lineindex *li);
/* Row i of the rows sorted by address (addresses link-time). */
void lineindex_row(const struct lineindex *li, size_t i, struct line_row *r);
/* The row in force at a link-time address: the last row at or below it,
 * if that row has a line. -1 when none. */
int64_t lineindex_row_at(const struct lineindex *li, uint64_t addr);
/* The first row at or above addr. */
size_t lineindex_row_from(const struct lineindex *li, uint64_t addr);

/* Rows of one file, as indices into the address order, sorted by line then
 * address; *n gets their count. The array belongs to the index. */
const uint32_t *lineindex_file_rows(const struct lineindex *li, uint32_t file,
				    size_t *n);

size_t lineindex_nfuncs(const struct lineindex *li);
void lineindex_func(const struct lineindex *li, size_t i, struct line_func *f);
/* Functions by name (sorted by name: the first index with that name and how
 * many share it, since static functions in different files may). */
int64_t lineindex_func_find(const struct lineindex *li, const char *name,
			    size_t *count);

/* Functions inlined at an address, innermost first: up to max of them. */
struct line_inline {
	const char *name;	/* the inlined function */
	uint32_t call_file, call_line;	/* where it is called from */
	uint64_t lo, hi;	/* this range of its code (link-time) */
};
size_t lineindex_inlined_at(const struct lineindex *li, uint64_t addr,
			    struct line_inline *out, size_t max);

/*
 * A parameter or local variable where it is at an address: in a register
 * (LINE_LOCAL_REG), in memory at a register plus off (MEM), a register
 * plus off is its value (VALUE), or in the frame at the canonical frame
 * address plus off (CFA: the caller's rsp before the call, which the
 * kernel's ORC table gives as the site's rsp plus an offset); reg is
 * DWARF's x86-64 number (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp,
 * 7 rsp, 8..15 r8..r15). EXPR: a DWARF expression gilk does not evaluate
 * says where it is; OUT: DWARF gives it no location (optimized out).
 */
enum { LINE_LOCAL_REG, LINE_LOCAL_MEM, LINE_LOCAL_VALUE, LINE_LOCAL_CFA, LINE_LOCAL_EXPR,
       LINE_LOCAL_OUT };
struct line_local {
	const char *name, *type;	/* type as C writes it */
	uint8_t kind, reg;
	int32_t off;
	bool param;
	uint64_t lo, hi;	/* the range this location holds over (link-time) */
};
/* The parameters and locals in scope at addr (link-time), one per name,
 * an inner scope's hiding an outer's: up to max. */
size_t lineindex_locals_at(const struct lineindex *li, uint64_t addr, struct line_local *out,
			   size_t max);

/* A global variable's type, as C writes it ("unsigned long", "char [16]",
 * "struct list_head *"); NULL when the index does not know the name. The
 * kernel's BTF has the types, but not which variable has which. */
const char *lineindex_var_type(const struct lineindex *li, const char *name);

/* The sized function or object of vmlinux's symbol table at or before a
 * link-time address: its start and size (the address may be past its
 * end). False when none is. */
bool lineindex_extent(const struct lineindex *li, uint64_t addr, uint64_t *lo, uint64_t *size);

#endif
