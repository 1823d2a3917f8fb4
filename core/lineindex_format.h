/*
 * The line index's file layout, shared by its writer (lineindex_build.c) and
 * its reader (lineindex.c). Little-endian, as both architectures gilk runs on
 * are; every table is an array of fixed-size records at an offset the header
 * gives, so the reader maps the file and reads it in place.
 */
#ifndef GILK_LINEINDEX_FORMAT_H
#define GILK_LINEINDEX_FORMAT_H

#include <stdint.h>

#define LIX_MAGIC "GILKLIX"	/* 8 bytes with its NUL */
#define LIX_VERSION 7
#define LIX_STMT 0x80000000u	/* in lix_row.line: a statement's start */

struct lix_header {
	char magic[8];
	uint32_t version;
	uint32_t build_id_len;
	uint8_t build_id[64];
	uint64_t text;		/* link-time _text; rows are relative to it */
	uint32_t nfiles, nrows, nfuncs, source;	/* source: a string */
	uint64_t strings, strings_len;	/* NUL-terminated names */
	uint64_t files;		/* uint32_t[nfiles]: string offsets */
	uint64_t rows;		/* struct lix_row[nrows], by address */
	uint64_t file_start;	/* uint32_t[nfiles + 1] into file_rows */
	uint64_t file_rows;	/* uint32_t[nrows]: by file, line, address */
	uint64_t funcs;		/* struct lix_func[nfuncs], by name */
	uint64_t vars;		/* struct lix_var[nvars], by name */
	uint32_t nvars, ninlines;
	uint64_t inlines;	/* struct lix_inline[ninlines], by lo then depth */
	uint64_t locals;	/* struct lix_local[nlocals], by lo */
	uint32_t nlocals;
	uint32_t locals_span;	/* the longest range of a local: how far
				 * back a query by address looks */
	uint64_t local_descs;	/* struct lix_local_desc[nlocal_descs] */
	uint32_t nlocal_descs, nextents;
	uint64_t extents;	/* struct lix_extent[nextents], by lo */
};

/* The ELF symbol table's sizes, which kallsyms lacks: the functions and
 * objects at or after text, one per address (the largest there), so that
 * an address past its symbol's end is not named by it. */
struct lix_extent {
	uint32_t lo;		/* from text */
	uint32_t size;
};

struct lix_row {
	uint32_t addr;		/* from text */
	uint32_t file;
	uint32_t line;		/* | LIX_STMT */
};

struct lix_func {
	uint32_t name;		/* string offsets */
	uint32_t file;
	uint32_t line;
};

/* A global variable and its type, written as C writes a declaration's
 * type: "unsigned long", "struct task_struct", "char [16]", "struct
 * list_head *" (qualifiers left out). */
struct lix_var {
	uint32_t name;
	uint32_t type;		/* string offsets */
};

/* One range of a function inlined into another: code from lo to hi (from
 * text) is name's, called from call_file:call_line of the function it is
 * inlined into; depth 1 is inlined into a real function, 2 into a depth-1
 * copy, and so on. */
struct lix_inline {
	uint32_t lo, hi;
	uint32_t name;		/* string offset */
	uint32_t call_file, call_line;
	uint32_t depth;
};

/*
 * Where a function's parameter or local variable is over one range of code
 * (lo to hi, from text), from its DWARF location: in a register (kind
 * REG), in memory at a register plus off (MEM), a register plus off is
 * its value (VALUE: DW_OP_breg with DW_OP_stack_value), or in the frame
 * at the canonical frame address plus off (CFA: DW_OP_fbreg in a function
 * whose frame base is DW_OP_call_frame_cfa; the reader finds the CFA from
 * the kernel's ORC table). reg is DWARF's x86-64 number (0 rax, 1 rdx,
 * 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8..15 r8..r15). A location
 * of another shape (a value computed, pieces, an entry value) is kept as
 * EXPR, so the reader can say why it does not read it; a variable DWARF
 * gives no location at all has an OUT range over its whole scope
 * ("optimized out", as gdb says), which any other kind of the same name
 * at an address overrides.
 */
#define LIX_LOCAL_REG 0
#define LIX_LOCAL_MEM 1
#define LIX_LOCAL_VALUE 2
#define LIX_LOCAL_CFA 3
#define LIX_LOCAL_EXPR 4
#define LIX_LOCAL_OUT 5

struct lix_local_desc {
	uint32_t name, type;	/* string offsets; type as lix_var's */
	uint8_t kind, reg, param;	/* param: a parameter, not a local */
	uint8_t pad;
	int32_t off;
};

/* A range and what is there: many ranges share a description. */
struct lix_local {
	uint32_t lo, hi;
	uint32_t desc;		/* into the descriptions */
};

#endif
