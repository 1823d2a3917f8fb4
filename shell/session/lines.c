/* The session's source lines (see lines.h). */
#include "session/lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "editdist.h"

static struct session_lines *state(struct session *s)
{
	if (!s->lines)
		s->lines = calloc(1, sizeof(*s->lines));
	return s->lines;
}

int lines_index(struct session *s, struct kernel_lines **kl, struct gerr *e)
{
	struct session_lines *sl = state(s);

	if (!sl)
		return gerr_set(e, "out of memory");
	if (!sl->open) {
		if (kernel_lines_open(&sl->kl, s->k, s->live, s->live ? NULL : s->image, e))
			return -1;
		sl->open = true;
		symtab_set_sizes(s->k->syms, kernel_lines_extent, &sl->kl);
	}
	*kl = &sl->kl;
	return 0;
}

bool lines_have(struct session *s)
{
	struct kernel_lines *kl;
	struct gerr e;

	if (s->lines && s->lines->open)
		return true;
	return !lines_index(s, &kl, &e);
}

static void source_free(struct source_text *t)
{
	free(t->text);
	free(t->start);
	memset(t, 0, sizeof(*t));
}

void lines_free(struct session *s)
{
	if (!s->lines)
		return;
	if (s->lines->open) {
		symtab_set_sizes(s->k->syms, NULL, NULL);
		kernel_lines_close(&s->lines->kl);
	}
	source_free(&s->lines->src);
	free(s->lines);
	s->lines = NULL;
}

bool lines_where(struct session *s, uint64_t addr, char *buf, size_t len)
{
	struct kernel_lines *kl;
	struct line_row r;
	struct gerr e;

	buf[0] = 0;
	if (lines_index(s, &kl, &e) || kernel_lines_row_at(kl, addr, &r) < 0)
		return false;
	snprintf(buf, len, "%s:%u", lineindex_file_name(kl->li, r.file), r.line);
	return true;
}

bool lines_is_fileline(const char *word)
{
	const char *colon = strrchr(word, ':'), *p;

	if (!colon || colon == word || !isdigit((unsigned char)colon[1]))
		return false;
	for (p = colon + 1; isdigit((unsigned char)*p); p++)
		;
	if (*p == '-') {
		if (!isdigit((unsigned char)p[1]))
			return false;
		for (p++; isdigit((unsigned char)*p); p++)
			;
	}
	return *p == 0;
}

static const char *base_name(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

/* "did you mean" for a file: those whose base name is nearest, if near. */
static void near_files(const struct lineindex *li, const char *path, char *buf, size_t len)
{
	const char *want = base_name(path);
	size_t best = strlen(want) / 3 + 1, used = 0, shown = 0;

	buf[0] = 0;
	for (uint32_t f = 1; f < lineindex_nfiles(li); f++) {
		size_t d = edit_distance(want, base_name(lineindex_file_name(li, f)), 99);

		best = d < best ? d : best;
	}
	for (uint32_t f = 1; f < lineindex_nfiles(li) && used < len && shown < 6; f++) {
		const char *name = lineindex_file_name(li, f);

		if (edit_distance(want, base_name(name), 99) != best)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
		shown++;
	}
}

int lines_file(struct session *s, const char *path, uint32_t *file, struct gerr *e)
{
	struct kernel_lines *kl;
	uint32_t first = 0;
	int64_t f;
	char near[400];

	if (lines_index(s, &kl, e))
		return -1;
	while (!strncmp(path, "./", 2))
		path += 2;
	f = lineindex_file_find(kl->li, path, &first);
	if (f >= 0) {
		*file = (uint32_t)f;
		return 0;
	}
	if (f == -2) {
		char list[400];
		size_t used = 0, pl = strlen(path), k = 0;

		list[0] = 0;
		for (uint32_t i = 1; i < lineindex_nfiles(kl->li) && used < sizeof(list); i++) {
			const char *n = lineindex_file_name(kl->li, i);
			size_t nl = strlen(n);

			if (nl > pl && n[nl - pl - 1] == '/' && !strcmp(n + nl - pl, path)) {
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
							 k++ ? ", " : "", n);
			}
		}
		return gerr_set(e, "%s names several files of the kernel: %s; give more of its path",
				path, list);
	}
	near_files(kl->li, path, near, sizeof(near));
	if (near[0])
		return gerr_setc(e, ENOENT, "no file %s in the kernel's code; did you mean %s?", path, near);
	return gerr_setc(e, ENOENT, "no file %s in the kernel's code (only files with code built into it have lines)",
			 path);
}

int lines_parse(struct session *s, const char *word, uint32_t *file,
		uint32_t *first, uint32_t *last, struct gerr *e)
{
	const char *colon = strrchr(word, ':');
	char path[1024];
	char *end;
	unsigned long a, b;

	if (!lines_is_fileline(word))
		return gerr_set(e, "'%s' is not FILE:LINE", word);
	snprintf(path, sizeof(path), "%.*s", (int)(colon - word), word);
	errno = 0;
	a = strtoul(colon + 1, &end, 10);
	b = *end == '-' ? strtoul(end + 1, NULL, 10) : a;
	if (errno || !a || a > UINT32_MAX || b < a || b > UINT32_MAX)
		return gerr_set(e, "'%s': lines are numbered from 1, first to last", word);
	if (lines_file(s, path, file, e))
		return -1;
	*first = (uint32_t)a;
	*last = (uint32_t)b;
	return 0;
}

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* The lines nearest n that have code, before and after it. */
static void nearest_lines(const struct lineindex *li, const uint32_t *rows, size_t n,
			  uint32_t first, uint32_t last, uint32_t *before, uint32_t *after)
{
	struct line_row r;

	*before = *after = 0;
	for (size_t i = 0; i < n; i++) {
		lineindex_row(li, rows[i], &r);
		if (r.line < first)
			*before = r.line;
		else if (r.line > last && !*after)
			*after = r.line;
	}
}

int lines_ranges(struct session *s, uint32_t file, uint32_t first,
		 uint32_t last, struct range **out, size_t *nout, struct gerr *e)
{
	struct kernel_lines *kl;
	const uint32_t *rows;
	struct range *r = NULL;
	size_t n, k = 0, m = 0;

	if (lines_index(s, &kl, e))
		return -1;
	rows = lineindex_file_rows(kl->li, file, &n);
	for (size_t i = 0; i < n; i++) {
		struct line_row row;
		uint64_t end;

		lineindex_row(kl->li, rows[i], &row);
		if (row.line < first || row.line > last)
			continue;
		end = kernel_lines_row_end(kl, rows[i]);
		if (!(k & (k + 1)) || !r) {
			struct range *p = realloc(r, (k + 1) * 2 * sizeof(*r));

			if (!p) {
				free(r);
				return gerr_set(e, "out of memory");
			}
			r = p;
		}
		r[k++] = (struct range){ kernel_lines_addr(kl, &row), end };
	}
	if (!k) {
		uint32_t before, after;
		const char *name = lineindex_file_name(kl->li, file);
		char what[512];

		nearest_lines(kl->li, rows, n, first, last, &before, &after);
		free(r);
		if (!before && !after)
			return gerr_set(e, "%s has no code in this kernel", name);
		if (first == last)
			snprintf(what, sizeof(what), "%s:%u has no code", name, first);
		else
			snprintf(what, sizeof(what), "%s:%u-%u have no code", name, first, last);
		if (before && after)
			return gerr_set(e, "%s; the nearest lines with code are %u and %u", what, before, after);
		return gerr_set(e, "%s; the nearest line with code is %u", what, before ? before : after);
	}
	qsort(r, k, sizeof(*r), cmp_range);
	for (size_t i = 0; i < k; i++) {
		if (m && r[i].start <= r[m - 1].end) {
			if (r[i].end > r[m - 1].end)
				r[m - 1].end = r[i].end;
		} else {
			r[m++] = r[i];
		}
	}
	*out = r;
	*nout = m;
	return 0;
}

int lines_source(struct session *s, uint32_t file, const struct source_text **t,
		 struct gerr *e)
{
	struct kernel_lines *kl;
	struct source_text *src;
	char path[PATH_MAX + 1024];
	FILE *f;
	long len;

	if (lines_index(s, &kl, e))
		return -1;
	src = &s->lines->src;
	if (src->text && src->file == file) {
		*t = src;
		return 0;
	}
	source_free(src);
	if (!kl->source[0])
		return gerr_set(e, "the line index names no source tree, so %s cannot be shown",
				lineindex_file_name(kl->li, file));
	snprintf(path, sizeof(path), "%s/%s", kl->source, lineindex_file_name(kl->li, file));
	f = fopen(path, "rb");
	if (!f)
		return gerr_setc(e, errno, "%s: %s (the source tree %s lacks it%s)", path, strerror(errno),
				 kl->source, strstr(path, "/generated/") ? ": it is made by the kernel's build" : "");
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return gerr_set(e, "%s: cannot be read", path);
	}
	src->text = malloc((size_t)len + 1);
	src->start = malloc(((size_t)len + 2) * sizeof(*src->start));
	if (!src->text || !src->start || fread(src->text, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		source_free(src);
		return gerr_set(e, "%s: cannot be read", path);
	}
	fclose(f);
	src->text[len] = 0;
	src->start[0] = 0;
	src->nlines = 0;
	for (long i = 0; i < len; i++)
		if (src->text[i] == '\n')
			src->start[++src->nlines] = (size_t)i + 1;
	if (len && src->text[len - 1] != '\n')
		src->nlines++;
	src->file = file;
	*t = src;
	return 0;
}

void lines_text(const struct source_text *t, uint32_t n, char *buf, size_t len)
{
	size_t a, b;

	buf[0] = 0;
	if (!n || n > t->nlines)
		return;
	a = t->start[n - 1];
	b = a;
	while (t->text[b] && t->text[b] != '\n')
		b++;
	snprintf(buf, len, "%.*s", (int)(b - a), t->text + a);
}

struct file_line {
	uint32_t file, line, order;	/* order: the file's first appearance */
};

static int cmp_file_line(const void *x, const void *y)
{
	const struct file_line *a = x, *b = y;

	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

void lines_span(struct session *s, uint64_t lo, uint64_t hi, bool base_only,
		char *buf, size_t len)
{
	struct kernel_lines *kl;
	struct file_line fl[256];
	struct line_row r;
	struct gerr e;
	size_t n = 0, used = 0, i, nrows;
	int64_t at;

	buf[0] = 0;
	if (lines_index(s, &kl, &e))
		return;
	nrows = lineindex_nrows(kl->li);
	at = kernel_lines_row_at(kl, lo, &r);
	i = at >= 0 ? (size_t)at : lineindex_row_from(kl->li, lo - (uint64_t)kl->slide);
	for (; i < nrows && n < sizeof(fl) / sizeof(fl[0]); i++) {
		uint32_t order = (uint32_t)n;

		lineindex_row(kl->li, i, &r);
		if (kernel_lines_addr(kl, &r) >= hi)
			break;
		if (!r.line)
			continue;
		for (size_t j = 0; j < n; j++)
			if (fl[j].file == r.file) {
				order = fl[j].order;
				break;
			}
		fl[n++] = (struct file_line){ r.file, r.line, order };
	}
	qsort(fl, n, sizeof(*fl), cmp_file_line);
	for (i = 0; i < n && used < len; i++) {
		const char *name = lineindex_file_name(kl->li, fl[i].file);
		size_t j = i;

		if (i && fl[i].file == fl[i - 1].file && fl[i].line == fl[i - 1].line)
			continue;
		while (j + 1 < n && fl[j + 1].file == fl[i].file && fl[j + 1].line <= fl[j].line + 1)
			j++;
		if (!i || fl[i].file != fl[i - 1].file)
			used += (size_t)snprintf(buf + used, len - used, "%s%s:", i ? " " : "",
						 base_only ? base_name(name) : name);
		else
			used += (size_t)snprintf(buf + used, len - used, ",");
		if (used >= len)
			break;
		if (fl[j].line != fl[i].line)
			used += (size_t)snprintf(buf + used, len - used, "%u-%u", fl[i].line, fl[j].line);
		else
			used += (size_t)snprintf(buf + used, len - used, "%u", fl[i].line);
		i = j;
	}
}

bool lines_is_file(const char *word)
{
	size_t n = strlen(word);

	if (strpbrk(word, "*?[:") || !n)
		return false;
	return strchr(word, '/') || (n > 2 && word[n - 2] == '.' && strchr("chS", word[n - 1]));
}

int lines_word_ranges(struct session *s, const char *word, struct range **r,
		      size_t *n, struct gerr *e)
{
	uint32_t file, first = 1, last = UINT32_MAX;

	if (lines_is_fileline(word)) {
		if (lines_parse(s, word, &file, &first, &last, e))
			return -1;
	} else if (lines_file(s, word, &file, e)) {
		return -1;
	}
	return lines_ranges(s, file, first, last, r, n, e);
}

bool ranges_meet(const struct range *r, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	/* the first range that ends past lo */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (r[mid].end <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && r[a].start < hi;
}

int lines_functions(struct session *s, const struct range *r, size_t n,
		    const struct ksym ***out, size_t *nout, struct gerr *e)
{
	const struct ksym **f = NULL;
	size_t k = 0, cap = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t at = r[i].start;

		while (at < r[i].end) {
			const struct ksym *sym;
			uint64_t start, end;

			if (symtab_function(s->k->syms, at, &sym, &start, &end) || end <= at) {
				at++;
				continue;
			}
			if (session_is_text(s, start) && (!k || f[k - 1]->addr != sym->addr)) {
				if (k == cap) {
					const struct ksym **p = realloc(f, (cap = cap ? 2 * cap : 64) * sizeof(*f));

					if (!p) {
						free(f);
						return gerr_set(e, "out of memory");
					}
					f = p;
				}
				f[k++] = sym;
			}
			at = end;
		}
	}
	*out = f;
	*nout = k;
	return 0;
}
