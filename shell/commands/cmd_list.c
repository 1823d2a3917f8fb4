/*
 * list: source lines, as gdb's list: ten lines around a function's start,
 * an address's line or FILE:LINE; a range FILE:FIRST-LAST; then "list" goes
 * on and "list -" goes back. Lines come from the kernel's line index and
 * its source tree (lines.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "session/lines.h"

#define LIST_SIZE 10

enum list_step { LIST_NEW, LIST_ON, LIST_BACK };

/* Prints first..last of file (clipped to the file) and remembers where
 * list goes on and list - goes back from: as gdb's, the lines shown since
 * the last listing of a new place are one run, and "list -" shows the ten
 * before its start. */
static int show(struct session *s, uint32_t file, uint32_t first, uint32_t last,
		enum list_step step, struct gerr *e)
{
	const struct source_text *t;
	struct kernel_lines *kl;
	char text[4096];

	if (lines_index(s, &kl, e) || lines_source(s, file, &t, e))
		return -1;
	if (first > t->nlines)
		return gerr_set(e, "line number %u out of range; \"%s\" has %zu lines", first,
				lineindex_file_name(kl->li, file), t->nlines);
	if (last > t->nlines)
		last = (uint32_t)t->nlines;
	for (uint32_t n = first; n <= last && !session_interrupted(s); n++) {
		lines_text(t, n, text, sizeof(text));
		fprintf(s->out, "%u\t%s\n", n, text);
	}
	s->lines->list_file = file;
	if (step != LIST_ON)
		s->lines->list_first = first;
	if (step != LIST_BACK)
		s->lines->list_next = last + 1;
	return 0;
}

static int around(struct session *s, uint32_t file, uint32_t line, struct gerr *e)
{
	uint32_t first = line > LIST_SIZE / 2 ? line - LIST_SIZE / 2 : 1;

	return show(s, file, first, first + LIST_SIZE - 1, LIST_NEW, e);
}

/* Where a function is written: its declaration in the file its code's first
 * line is in (a symbol), or the one function of that name the index knows
 * (a static inline function has no symbol). */
static int function_line(struct session *s, const char *name, uint32_t *file,
			 uint32_t *line, struct gerr *e)
{
	struct kernel_lines *kl;
	struct line_func f;
	struct line_row r;
	uint64_t addr;
	size_t n = 0;
	int64_t i;
	struct gerr why;

	if (lines_index(s, &kl, e))
		return -1;
	i = lineindex_func_find(kl->li, name, &n);
	if (!session_resolve(s, name, &addr, &why)) {
		if (kernel_lines_row_at(kl, addr, &r) < 0)
			return gerr_set(e, "no line is known for %s", name);
		*file = r.file;
		*line = r.line;
		for (size_t k = 0; i >= 0 && k < n; k++) {
			lineindex_func(kl->li, (size_t)i + k, &f);
			if (f.file == r.file && f.line <= r.line) {
				*line = f.line;
				break;
			}
		}
		return 0;
	}
	if (i < 0)
		return gerr_set(e, "%s", why.msg);
	if (n > 1) {
		char list[400];
		size_t used = 0;

		for (size_t k = 0; k < n && used < sizeof(list); k++) {
			lineindex_func(kl->li, (size_t)i + k, &f);
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s:%u",
						 k ? ", " : "", lineindex_file_name(kl->li, f.file), f.line);
		}
		return gerr_set(e, "%zu functions are named %s: %s; list one by FILE:LINE", n, name, list);
	}
	lineindex_func(kl->li, (size_t)i, &f);
	*file = f.file;
	*line = f.line;
	return 0;
}

static int list_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct kernel_lines *kl;
	uint32_t file, first, last;
	char *end;

	if (lines_index(s, &kl, e))
		return -1;
	if (argc == 1 || !strcmp(argv[1], "-")) {
		struct session_lines *sl = s->lines;

		if (!sl->list_next)
			return gerr_set(e, "no file listed yet: list FUNC, list FILE:LINE or list ADDRESS");
		if (argc == 1)
			return show(s, sl->list_file, sl->list_next, sl->list_next + LIST_SIZE - 1, LIST_ON, e);
		if (sl->list_first <= 1)
			return gerr_set(e, "already at the start of %s", lineindex_file_name(kl->li, sl->list_file));
		first = sl->list_first > LIST_SIZE ? sl->list_first - LIST_SIZE : 1;
		return show(s, sl->list_file, first, sl->list_first - 1, LIST_BACK, e);
	}
	if (lines_is_fileline(argv[1])) {
		if (lines_parse(s, argv[1], &file, &first, &last, e))
			return -1;
		return first == last ? around(s, file, first, e) : show(s, file, first, last, LIST_NEW, e);
	}
	first = (uint32_t)strtoul(argv[1], &end, 10);
	if (*argv[1] >= '1' && *argv[1] <= '9' && !*end) {
		if (!s->lines->list_next)
			return gerr_set(e, "list %s: no file listed yet to take line %u of (list FILE:LINE)",
					argv[1], first);
		return around(s, s->lines->list_file, first, e);
	}
	if (function_line(s, argv[1][0] == '*' ? argv[1] + 1 : argv[1], &file, &first, e))
		return -1;
	return around(s, file, first, e);
}

const struct command cmd_list = {
	.name = "list",
	.group = GROUP_CODE,
	.alias = "l",
	.run = list_command,
	.min_args = 0,
	.max_args = 1,
	.complete = COMPLETE_LOCATION,
	.usage = "list [FUNC|ADDRESS|FILE:LINE|FILE:FIRST-LAST|LINE|-]",
	.help = "list FUNC: ten source lines around where FUNC is written (a static\n"
		"inline function too); list ADDRESS: around its line; list FILE:LINE,\n"
		"list FILE:FIRST-LAST, list LINE (in the file listed last); list goes on\n"
		"after the last lines shown, list - shows the ten before them. FILE is\n"
		"a path in the kernel's tree or its tail (namei.c:2371). Lines come\n"
		"from the kernel's line index and source tree (docs/kernels.md), offline\n"
		"and live.",
};
