/* Unit tests: the line index (core/lineindex*.c), made from a small program
 * built here with -g, whose lines, functions and inlined copies are known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lineindex.h"
#include "unit.h"

/* Line numbers below are this text's: keep them in step with the checks. */
static const char sample[] =
	"asm(\".text\\n.globl _text\\n_text:\\n\");\n"		/* 1 */
	"static inline __attribute__((always_inline)) int twice(int x)\n"	/* 2 */
	"{\n"							/* 3 */
	"\treturn x * 2;\n"					/* 4 */
	"}\n"							/* 5 */
	"int first(int a)\n"					/* 6 */
	"{\n"							/* 7 */
	"\tint b = twice(a);\n"					/* 8 */
	"\n"							/* 9 */
	"\treturn b + 1;\n"					/* 10 */
	"}\n"							/* 11 */
	"int second(int a)\n"					/* 12 */
	"{\n"							/* 13 */
	"\treturn twice(a) - 1;\n"				/* 14 */
	"}\n"							/* 15 */
	"long table[10] = { 1 };\n"				/* 16 */
	"int later(int a)\n"					/* 17 */
	"{\n"							/* 18 */
	"\tint never;\n"					/* 19 */
	"\treturn a + 3;\n"					/* 20 */
	"}\n";							/* 21 */

struct built {
	char dir[64], elf[96], index[96];
};

/* Builds the sample (flags: extra compiler flags) in a folder of its own. */
static void build(struct built *b, const char *flags)
{
	char cmd[512];
	FILE *f;

	snprintf(b->dir, sizeof(b->dir), "/tmp/gilk-lix-XXXXXX");
	assert_non_null(mkdtemp(b->dir));
	snprintf(cmd, sizeof(cmd), "%s/sample.c", b->dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs(sample, f);
	fclose(f);
	snprintf(b->elf, sizeof(b->elf), "%s/sample", b->dir);
	snprintf(b->index, sizeof(b->index), "%s/sample.lines", b->dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cc -O0 -fno-toplevel-reorder -nostdlib -static -Wl,--build-id "
		 "-Wl,-e,first %s -o sample sample.c", b->dir, flags);
	assert_int_equal(system(cmd), 0);
}

static void cleanup(struct built *b)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", b->dir);
	assert_int_equal(system(cmd), 0);
}

/* The addresses of a line's rows. */
static size_t line_addrs(struct lineindex *li, uint32_t file, uint32_t line,
			 uint64_t *out, size_t max)
{
	size_t n, k = 0;
	const uint32_t *rows = lineindex_file_rows(li, file, &n);
	struct line_row r;

	for (size_t i = 0; i < n; i++) {
		lineindex_row(li, rows[i], &r);
		if (r.line == line && k < max && (!k || out[k - 1] != r.addr))
			out[k++] = r.addr;
	}
	return k;
}

static void lines_of_a_program(void **s)
{
	struct built b;
	struct lineindex *li;
	struct line_row r;
	struct line_func fn;
	struct gerr e;
	char written[256];
	uint64_t at[8];
	size_t idlen, n;
	int64_t file, i;
	uint32_t first_match;

	(void)s;
	build(&b, "-g");
	assert_int_equal(lineindex_build(b.elf, b.index, "src", written, sizeof(written), &e), 0);
	assert_string_equal(written, b.index);
	assert_int_equal(lineindex_open(b.index, &li, &e), 0);
	lineindex_build_id(li, &idlen);
	assert_int_equal(idlen, 20);
	assert_string_equal(lineindex_source(li), "src");
	/* the path is the compiler's, relative to where it ran */
	file = lineindex_file_find(li, "sample.c", &first_match);
	assert_true(file > 0);
	assert_string_equal(lineindex_file_name(li, (uint32_t)file), "sample.c");
	assert_int_equal(lineindex_file_find(li, "nosuch.c", NULL), -1);
	/* twice() is inlined into both callers: its body's line has code in
	 * two places, each inside its caller's statement */
	assert_int_equal(line_addrs(li, (uint32_t)file, 4, at, 8), 2);
	i = lineindex_row_at(li, at[0]);
	assert_true(i >= 0);
	lineindex_row(li, (size_t)i, &r);
	assert_int_equal(r.line, 4);
	/* the copies say what is inlined there and where it is called from:
	 * first's line 8 and second's line 14 */
	{
		struct line_inline in[4];
		uint32_t calls = 0;

		for (size_t k = 0; k < 2; k++) {
			assert_int_equal(lineindex_inlined_at(li, at[k], in, 4), 1);
			assert_string_equal(in[0].name, "twice");
			assert_int_equal(in[0].call_file, (uint32_t)file);
			calls |= in[0].call_line == 8 ? 1 : in[0].call_line == 14 ? 2 : 4;
			assert_true(in[0].lo <= at[k] && at[k] < in[0].hi);
		}
		assert_int_equal(calls, 3);
	}
	/* a line with no code has no rows; the ones around it have */
	assert_int_equal(line_addrs(li, (uint32_t)file, 9, at, 8), 0);
	assert_true(line_addrs(li, (uint32_t)file, 8, at, 8) >= 1);
	assert_true(line_addrs(li, (uint32_t)file, 10, at, 8) >= 1);
	/* below _text, nothing */
	assert_int_equal(lineindex_row_at(li, lineindex_text(li) - 1), -1);
	/* where functions are written, inlined-only ones too */
	i = lineindex_func_find(li, "first", &n);
	assert_true(i >= 0);
	assert_int_equal(n, 1);
	lineindex_func(li, (size_t)i, &fn);
	assert_int_equal(fn.line, 6);
	assert_int_equal(fn.file, (uint32_t)file);
	i = lineindex_func_find(li, "twice", &n);
	assert_true(i >= 0);
	lineindex_func(li, (size_t)i, &fn);
	assert_int_equal(fn.line, 2);
	assert_int_equal(lineindex_func_find(li, "third", NULL), -1);
	/* a function's first row is its opening line */
	assert_int_equal(line_addrs(li, (uint32_t)file, 7, at, 8), 1);
	/* the symbol table's sizes: first's, and table's 80 bytes, then past
	 * its end nothing of it */
	{
		uint64_t lo, size, obj = 0;
		char cmd[160];
		FILE *p;

		assert_true(lineindex_extent(li, at[0] + 1, &lo, &size));
		assert_int_equal(lo, at[0]);
		assert_true(size > 1);
		snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"table\" {print $1}'", b.elf);
		p = popen(cmd, "r");
		assert_non_null(p);
		assert_int_equal(fscanf(p, "%" SCNx64, &obj), 1);
		pclose(p);
		assert_true(lineindex_extent(li, obj + 79, &lo, &size));
		assert_int_equal(lo, obj);
		assert_int_equal(size, 80);
		assert_false(lineindex_extent(li, obj + 80, &lo, &size) && lo == obj &&
			     obj + 80 < lo + size);
		assert_false(lineindex_extent(li, lineindex_text(li) - 1, &lo, &size));
	}
	lineindex_close(li);
	cleanup(&b);
}

static void bad_inputs(void **s)
{
	struct built b;
	struct lineindex *li;
	struct gerr e;
	char written[256], cmd[256];
	FILE *f;

	(void)s;
	/* no DWARF: said, and no index is left */
	build(&b, "");
	assert_int_equal(lineindex_build(b.elf, b.index, NULL, written, sizeof(written), &e), -1);
	assert_non_null(strstr(e.msg, "DWARF"));
	assert_int_not_equal(access(b.index, F_OK), 0);
	cleanup(&b);
	/* a damaged index: each table checked against the file's size */
	build(&b, "-g");
	assert_int_equal(lineindex_build(b.elf, b.index, NULL, written, sizeof(written), &e), 0);
	snprintf(cmd, sizeof(cmd), "truncate -s 400 %s", b.index);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(lineindex_open(b.index, &li, &e), -1);
	assert_non_null(strstr(e.msg, "damaged"));
	/* not an index at all */
	f = fopen(b.index, "w");
	assert_non_null(f);
	fputs("this is not a line index, it only is long enough to be read as one............\n", f);
	fputs("................................................................................\n", f);
	fputs("................................................................................\n", f);
	fclose(f);
	assert_int_equal(lineindex_open(b.index, &li, &e), -1);
	assert_non_null(strstr(e.msg, "not a gilk line index"));
	/* a missing vmlinux */
	assert_int_equal(lineindex_build("/nonexistent/vmlinux", b.index, NULL, written,
					 sizeof(written), &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/vmlinux"));
	/* into a folder: named by the build id */
	assert_int_equal(lineindex_build(b.elf, b.dir, NULL, written, sizeof(written), &e), 0);
	assert_int_equal(strlen(written), strlen(b.dir) + 1 + 40 + strlen(".lines"));
	assert_int_equal(lineindex_open(written, &li, &e), 0);
	lineindex_close(li);
	cleanup(&b);
}

/*
 * Optimized, the parameters live in registers: second's a is in rdi
 * (DWARF's register 5) where its line's code is, and twice's x, inlined
 * there, too; later's never, which nothing sets, has no location and is
 * optimized out; at -O0 they are in the frame, at the CFA plus an offset.
 */
static void locals_in_registers(void **s)
{
	struct built b;
	struct lineindex *li;
	struct line_local l[8];
	struct gerr e;
	char written[256];
	uint64_t at[8];
	size_t n, k;
	int64_t file;

	(void)s;
	build(&b, "-g -O2");
	assert_int_equal(lineindex_build(b.elf, b.index, NULL, written, sizeof(written), &e), 0);
	assert_int_equal(lineindex_open(b.index, &li, &e), 0);
	file = lineindex_file_find(li, "sample.c", NULL);
	assert_true(file > 0);
	assert_true(line_addrs(li, (uint32_t)file, 14, at, 8) >= 1);
	n = lineindex_locals_at(li, at[0], l, 8);
	for (k = 0; k < n && strcmp(l[k].name, "a"); k++)
		;
	assert_true(k < n);
	assert_string_equal(l[k].type, "int");
	assert_int_equal(l[k].kind, LINE_LOCAL_REG);
	assert_int_equal(l[k].reg, 5);
	assert_true(l[k].param);
	assert_true(l[k].lo <= at[0] && at[0] < l[k].hi);
	/* one per name, and nothing past the program */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(l[i].name, l[j].name);
	assert_int_equal(lineindex_locals_at(li, 0x10, l, 8), 0);
	/* a local DWARF gives no location is in scope, optimized out; one
	 * in a register beside it is read there */
	assert_true(line_addrs(li, (uint32_t)file, 20, at, 8) >= 1);
	n = lineindex_locals_at(li, at[0], l, 8);
	for (k = 0; k < n && strcmp(l[k].name, "never"); k++)
		;
	assert_true(k < n);
	assert_int_equal(l[k].kind, LINE_LOCAL_OUT);
	assert_string_equal(l[k].type, "int");
	assert_false(l[k].param);
	for (k = 0; k < n && strcmp(l[k].name, "a"); k++)
		;
	assert_true(k < n);
	assert_int_equal(l[k].kind, LINE_LOCAL_REG);
	lineindex_close(li);
	/* -O0: a and b are in the frame, below the canonical frame address
	 * (the frame base is DW_OP_call_frame_cfa) */
	cleanup(&b);
	build(&b, "-g");
	assert_int_equal(lineindex_build(b.elf, b.index, NULL, written, sizeof(written), &e), 0);
	assert_int_equal(lineindex_open(b.index, &li, &e), 0);
	file = lineindex_file_find(li, "sample.c", NULL);
	assert_true(line_addrs(li, (uint32_t)file, 10, at, 8) >= 1);
	n = lineindex_locals_at(li, at[0], l, 8);
	assert_int_equal(n, 2);
	for (k = 0; k < n; k++) {
		assert_true(!strcmp(l[k].name, "a") || !strcmp(l[k].name, "b"));
		assert_int_equal(l[k].kind, LINE_LOCAL_CFA);
		assert_true(l[k].off < 0);
		assert_int_equal(l[k].param, !strcmp(l[k].name, "a"));
	}
	lineindex_close(li);
	cleanup(&b);
}

const struct CMUnitTest lineindex_tests[] = {
	cmocka_unit_test(lines_of_a_program),
	cmocka_unit_test(locals_in_registers),
	cmocka_unit_test(bad_inputs),
};
const size_t lineindex_ntests = sizeof(lineindex_tests) / sizeof(lineindex_tests[0]);
