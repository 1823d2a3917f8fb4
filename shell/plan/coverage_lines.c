/*
 * Line coverage: the coverage set's block hits (coverage.h) read through the
 * kernel's line table (lines.h). A block's code runs whole each time the
 * block does, so every line with code in a block ran at least as often as
 * the block. A line's count is the most any one of its blocks ran within a
 * function (its code may span several blocks, which run in turn), added up
 * over the functions it is compiled into (a header's inline function in
 * each caller). A line whose blocks could not be spliced is "not counted",
 * never zero.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/coverage.h"
#include "session/lines.h"

struct line_hit {
	uint32_t file, line;
	uint64_t fn;            /* the function's address */
	uint64_t hits;
	bool counted;           /* some block of it was spliced */
};

struct line_hits {
	struct line_hit *v;
	size_t n, cap;
};

static int push(struct line_hits *h, const struct line_hit *x)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 1024;
		struct line_hit *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = *x;
	return 0;
}

static int by_line(const void *a, const void *b)
{
	const struct line_hit *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* Every (line, function) the set's blocks hold code of, with the block's
 * hits; only_fn (0: all) keeps one function's. Then reduced: one entry per
 * line, its count as the file comment says. */
static int collect(struct session *s, const struct coverage *c, uint64_t only_fn,
		   struct line_hits *h, struct gerr *e)
{
	struct kernel_lines *kl;
	size_t nrows, k = 0;

	if (lines_index(s, &kl, e))
		return -1;
	nrows = lineindex_nrows(kl->li);
	for (size_t f = 0; f < c->nfuncs; f++) {
		const struct cov_func *fn = &c->funcs[f];

		if (only_fn && fn->addr != only_fn)
			continue;
		for (size_t b = fn->first; b < fn->first + fn->n; b++) {
			const struct cov_block *bl = &c->blocks[b];
			struct line_row r;
			int64_t at = kernel_lines_row_at(kl, bl->start, &r);
			size_t i = at >= 0 ? (size_t)at :
				lineindex_row_from(kl->li, bl->start - (uint64_t)kl->slide);

			for (; i < nrows; i++) {
				struct line_hit x;

				lineindex_row(kl->li, i, &r);
				if (kernel_lines_addr(kl, &r) >= bl->end)
					break;
				if (!r.line)
					continue;
				x = (struct line_hit){ r.file, r.line, fn->addr, bl->hits, bl->id != 0 };
				if (!x.counted)
					x.hits = 0;
				if (push(h, &x))
					return gerr_set(e, "out of memory");
			}
		}
	}
	qsort(h->v, h->n, sizeof(*h->v), by_line);
	/* one per line and function: the most */
	for (size_t i = 0; i < h->n; i++) {
		struct line_hit *x = &h->v[i];

		if (k && h->v[k - 1].file == x->file && h->v[k - 1].line == x->line &&
		    h->v[k - 1].fn == x->fn) {
			struct line_hit *y = &h->v[k - 1];

			if (x->hits > y->hits)
				y->hits = x->hits;
			y->counted |= x->counted;
			continue;
		}
		h->v[k++] = *x;
	}
	h->n = k;
	/* one per line: added over functions */
	k = 0;
	for (size_t i = 0; i < h->n; i++) {
		struct line_hit *x = &h->v[i];

		if (k && h->v[k - 1].file == x->file && h->v[k - 1].line == x->line) {
			h->v[k - 1].hits += x->hits;
			h->v[k - 1].counted |= x->counted;
			continue;
		}
		h->v[k++] = *x;
	}
	h->n = k;
	return 0;
}

static const struct line_hit *hit_of(const struct line_hits *h, size_t from, size_t to,
				     uint32_t line)
{
	for (size_t i = from; i < to; i++)
		if (h->v[i].line == line)
			return &h->v[i];
	return NULL;
}

/* Lines first..last of file, each with its count: gcov's marks, "-" for
 * no code, "#####" for code that never ran, "?" for code not counted. */
static int annotate(struct session *s, const struct line_hits *h, uint32_t file,
		    uint32_t first, uint32_t last, const char *title, struct gerr *e)
{
	struct kernel_lines *kl;
	const struct source_text *t;
	size_t from = 0, to, ran = 0, code = 0, uncounted = 0;
	char text[4096];

	if (lines_index(s, &kl, e) || lines_source(s, file, &t, e))
		return -1;
	while (from < h->n && h->v[from].file != file)
		from++;
	for (to = from; to < h->n && h->v[to].file == file; to++) {
		if (h->v[to].line < first || h->v[to].line > last)
			continue;
		code += h->v[to].counted;
		ran += h->v[to].counted && h->v[to].hits;
		uncounted += !h->v[to].counted;
	}
	fprintf(s->out, "%s (%s): %zu of %zu lines with code ran", lineindex_file_name(kl->li, file),
		title, ran, code);
	if (uncounted)
		fprintf(s->out, "; %zu not counted (\"?\": their blocks could not be spliced)", uncounted);
	fputc('\n', s->out);
	if (last > t->nlines)
		last = (uint32_t)t->nlines;
	for (uint32_t n = first; n <= last && !session_interrupted(s); n++) {
		const struct line_hit *x = hit_of(h, from, to, n);
		char count[24];

		if (!x)
			snprintf(count, sizeof(count), "-");
		else if (!x->counted)
			snprintf(count, sizeof(count), "?");
		else if (!x->hits)
			snprintf(count, sizeof(count), "#####");
		else
			snprintf(count, sizeof(count), "%" PRIu64, x->hits);
		lines_text(t, n, text, sizeof(text));
		fprintf(s->out, "%9s:%5u:%s\n", count, n, text);
	}
	return 0;
}

/*
 * A function's own lines: from where it is written to before the next
 * function of its file. Its code's lines alone would reach into the
 * functions inlined into it, written elsewhere in the file.
 */
static void function_extent(const struct kernel_lines *kl, const char *name, uint32_t file,
			    uint32_t *first, uint32_t *last)
{
	struct line_func f;
	uint32_t decl = 0, next = UINT32_MAX;
	char plain[256];
	size_t n = 0;
	int64_t k;

	snprintf(plain, sizeof(plain), "%s", name);
	plain[strcspn(plain, ".+")] = 0;	/* NAME.isra.0, NAME+0x10 */
	k = lineindex_func_find(kl->li, plain, &n);
	for (size_t i = 0; k >= 0 && i < n; i++) {
		lineindex_func(kl->li, (size_t)k + i, &f);
		if (f.file == file)
			decl = f.line;
	}
	if (!decl)
		return;
	for (size_t i = 0; i < lineindex_nfuncs(kl->li); i++) {
		lineindex_func(kl->li, i, &f);
		if (f.file == file && f.line > decl && f.line < next)
			next = f.line;
	}
	*first = decl;
	if (next != UINT32_MAX && next - 1 < *last)
		*last = next - 1;
}

int coverage_report_lines(struct session *s, const struct coverage *c,
			  const char *what, struct gerr *e)
{
	struct line_hits h = { 0 };
	struct kernel_lines *kl;
	uint32_t file, first = 1, last = UINT32_MAX;
	uint64_t fn = 0;
	int rc = -1;

	if (lines_index(s, &kl, e))
		return -1;
	if (lines_is_fileline(what) || lines_is_file(what)) {
		if (lines_is_fileline(what) ? lines_parse(s, what, &file, &first, &last, e) :
		    lines_file(s, what, &file, e))
			return -1;
	} else {
		const struct ksym *sym;
		struct line_row r;
		uint64_t addr;
		bool in_set = false;

		if (session_resolve(s, what, &addr, e))
			return -1;
		if (symtab_function(s->k->syms, addr, &sym, NULL, NULL))
			return gerr_set(e, "%s is not in a function", what);
		fn = sym->addr;
		for (size_t i = 0; i < c->nfuncs; i++)
			in_set |= c->funcs[i].addr == fn;
		if (!in_set)
			return gerr_set(e, "%s is not in the coverage set (\"coverage %s\" adds it)",
					sym->name, sym->name);
		if (kernel_lines_row_at(kl, fn, &r) < 0)
			return gerr_set(e, "no line is known for %s", sym->name);
		file = r.file;
	}
	if (collect(s, c, fn, &h, e))
		goto out;
	if (fn) {	/* the function's lines in its own file */
		first = UINT32_MAX;
		last = 0;
		for (size_t i = 0; i < h.n; i++)
			if (h.v[i].file == file) {
				first = h.v[i].line < first ? h.v[i].line : first;
				last = h.v[i].line > last ? h.v[i].line : last;
			}
		if (!last) {
			gerr_set(e, "%s has no line of its own file in the set", what);
			goto out;
		}
		function_extent(kl, what, file, &first, &last);
	} else {
		bool any = false;

		for (size_t i = 0; i < h.n && !any; i++)
			any = h.v[i].file == file && h.v[i].line >= first && h.v[i].line <= last;
		if (!any) {
			gerr_set(e, "the coverage set holds no code of %s (\"coverage %s\" adds it)", what, what);
			goto out;
		}
	}
	rc = annotate(s, &h, file, first, last, fn ? what : "lines in the set", e);
out:
	free(h.v);
	return rc;
}

/* The path genhtml reads a file's source from: in the tree, absolute. */
static void source_path(const struct kernel_lines *kl, uint32_t file, char *buf, size_t len)
{
	char joined[2 * PATH_MAX + 1024], cwd[PATH_MAX];
	const char *name = lineindex_file_name(kl->li, file);

	if (name[0] == '/' || !kl->source[0]) {
		snprintf(buf, len, "%s", name);
		return;
	}
	/* absolute, as genhtml wants, with links kept as the index names them */
	if (kl->source[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(joined, sizeof(joined), "%s/%s", kl->source, name);
	else
		snprintf(joined, sizeof(joined), "%s/%s/%s", cwd, kl->source, name);
	snprintf(buf, len, "%.*s", (int)(len - 1), joined);
}

/* The set's block at a function's start (its entry), if it is in it. */
static const struct cov_block *entry_block(const struct coverage *c, uint64_t fn)
{
	for (size_t i = 0; i < c->nblocks; i++)
		if (c->blocks[i].start == fn)
			return &c->blocks[i];
	return NULL;
}

/* FN and FNDA records: the set's functions declared in file, with their
 * entry block's hits when it is counted. */
static void lcov_functions(FILE *out, const struct kernel_lines *kl, const struct coverage *c,
			   uint32_t file, size_t *nfn, size_t *nhit)
{
	for (size_t i = 0; i < c->nfuncs; i++) {
		const struct cov_func *f = &c->funcs[i];
		const struct cov_block *entry;
		struct line_func lf;
		char name[128];
		size_t n = 0;
		int64_t k;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)	/* a function once */
			seen = c->funcs[j].addr == f->addr;
		snprintf(name, sizeof(name), "%s", f->name);
		name[strcspn(name, ".")] = 0;	/* NAME.isra.0 is written as NAME */
		k = seen ? -1 : lineindex_func_find(kl->li, name, &n);
		for (size_t j = 0; k >= 0 && j < n; j++) {
			lineindex_func(kl->li, (size_t)k + j, &lf);
			if (lf.file != file)
				continue;
			entry = entry_block(c, f->addr);
			fprintf(out, "FN:%u,%s\n", lf.line, f->name);
			if (entry && entry->id)
				fprintf(out, "FNDA:%" PRIu64 ",%s\n", entry->hits, f->name);
			(*nfn)++;
			*nhit += entry && entry->id && entry->hits;
			break;
		}
	}
}

int coverage_write_lcov(struct session *s, FILE *out, const struct coverage *c,
			struct gerr *e)
{
	struct line_hits h = { 0 };
	struct kernel_lines *kl;
	char path[PATH_MAX];

	if (lines_index(s, &kl, e) || collect(s, c, 0, &h, e)) {
		free(h.v);
		return -1;
	}
	fprintf(out, "TN:gilk\n");
	for (size_t i = 0; i < h.n;) {
		uint32_t file = h.v[i].file;
		size_t lf = 0, lh = 0, nfn = 0, nhit = 0;

		source_path(kl, file, path, sizeof(path));
		fprintf(out, "SF:%s\n", path);
		lcov_functions(out, kl, c, file, &nfn, &nhit);
		fprintf(out, "FNF:%zu\nFNH:%zu\n", nfn, nhit);
		for (; i < h.n && h.v[i].file == file; i++) {
			if (!h.v[i].counted)
				continue;	/* not counted is not "never ran" */
			fprintf(out, "DA:%u,%" PRIu64 "\n", h.v[i].line, h.v[i].hits);
			lf++;
			lh += h.v[i].hits > 0;
		}
		fprintf(out, "LF:%zu\nLH:%zu\nend_of_record\n", lf, lh);
	}
	free(h.v);
	return 0;
}
