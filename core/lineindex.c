/*
 * Reads a line index (lineindex.h) in place: the file is mapped, its header
 * checked so that no table reaches past the file's end, and every query is
 * a binary search over the tables the writer sorted. What a table holds
 * (a string offset, a file or row number) is checked where it is read, not
 * all at open: the lab reads the index over 9p, and a query touches a few
 * pages of its 50 MB where a check of every row would read them all.
 */
#include "lineindex.h"
#include "lineindex_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct lineindex {
	const uint8_t *map;
	size_t size;
	const struct lix_header *h;
	const char *str;
	const uint32_t *files;
	const struct lix_row *rows;
	const uint32_t *file_start;
	const uint32_t *file_rows;
	const struct lix_func *funcs;
	const struct lix_var *vars;
	const struct lix_inline *inl;
	const struct lix_local *loc;
	const struct lix_local_desc *desc;
	const struct lix_extent *ext;
};

static int table_fits(size_t size, uint64_t off, uint64_t n, uint64_t each)
{
	return off <= size && n <= (size - off) / each && off % 4 == 0;
}

static int check_header(struct lineindex *li, const char *path, struct gerr *e)
{
	const struct lix_header *h = li->h;
	size_t size = li->size;

	if (size < sizeof(*h) || memcmp(h->magic, LIX_MAGIC, sizeof(LIX_MAGIC)))
		return gerr_set(e, "%s is not a gilk line index", path);
	if (h->version != LIX_VERSION)
		return gerr_set(e, "%s is a line index of version %u, this gilk reads version %u: make it again",
				path, h->version, LIX_VERSION);
	if (h->build_id_len == 0 || h->build_id_len > sizeof(h->build_id) ||
	    h->strings > size || h->strings_len > size - h->strings ||
	    !h->strings_len || li->map[h->strings + h->strings_len - 1] ||
	    !table_fits(size, h->files, h->nfiles, 4) ||
	    !table_fits(size, h->rows, h->nrows, sizeof(struct lix_row)) ||
	    !table_fits(size, h->file_start, (uint64_t)h->nfiles + 1, 4) ||
	    !table_fits(size, h->funcs, h->nfuncs, sizeof(struct lix_func)) ||
	    !table_fits(size, h->vars, h->nvars, sizeof(struct lix_var)) ||
	    !table_fits(size, h->inlines, h->ninlines, sizeof(struct lix_inline)) ||
	    !table_fits(size, h->locals, h->nlocals, sizeof(struct lix_local)) ||
	    !table_fits(size, h->local_descs, h->nlocal_descs, sizeof(struct lix_local_desc)) ||
	    !table_fits(size, h->extents, h->nextents, sizeof(struct lix_extent)) ||
	    h->nfiles == 0 || h->source >= h->strings_len)
		return gerr_set(e, "%s: a damaged line index (a table lies outside the file)", path);
	li->str = (const char *)li->map + h->strings;
	li->files = (const uint32_t *)(li->map + h->files);
	li->rows = (const struct lix_row *)(li->map + h->rows);
	li->file_start = (const uint32_t *)(li->map + h->file_start);
	li->funcs = (const struct lix_func *)(li->map + h->funcs);
	li->vars = (const struct lix_var *)(li->map + h->vars);
	li->inl = (const struct lix_inline *)(li->map + h->inlines);
	li->loc = (const struct lix_local *)(li->map + h->locals);
	li->desc = (const struct lix_local_desc *)(li->map + h->local_descs);
	li->ext = (const struct lix_extent *)(li->map + h->extents);
	if (li->file_start[0] != 0 || li->file_start[h->nfiles] > h->nrows ||
	    !table_fits(size, h->file_rows, li->file_start[h->nfiles], 4))
		return gerr_set(e, "%s: a damaged line index (its files' rows)", path);
	li->file_rows = (const uint32_t *)(li->map + h->file_rows);
	return 0;
}

int lineindex_open(const char *path, struct lineindex **out, struct gerr *e)
{
	struct lineindex *li;
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *m;

	if (fd < 0)
		return gerr_setc(e, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(struct lix_header)) {
		close(fd);
		return gerr_set(e, "%s is not a gilk line index (too short)", path);
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return gerr_setc(e, errno, "%s: %s", path, strerror(errno));
	li = calloc(1, sizeof(*li));
	if (!li) {
		munmap(m, (size_t)st.st_size);
		return gerr_setc(e, ENOMEM, "out of memory");
	}
	li->map = m;
	li->size = (size_t)st.st_size;
	li->h = m;
	if (check_header(li, path, e)) {
		lineindex_close(li);
		return -1;
	}
	*out = li;
	return 0;
}

void lineindex_close(struct lineindex *li)
{
	if (!li)
		return;
	munmap((void *)li->map, li->size);
	free(li);
}

/* A string by its offset; "" for one outside the table (a damaged index). */
static const char *string_at(const struct lineindex *li, uint32_t off)
{
	return off < li->h->strings_len ? li->str + off : "";
}

const uint8_t *lineindex_build_id(const struct lineindex *li, size_t *len)
{
	*len = li->h->build_id_len;
	return li->h->build_id;
}

uint64_t lineindex_text(const struct lineindex *li)
{
	return li->h->text;
}

const char *lineindex_source(const struct lineindex *li)
{
	return string_at(li, li->h->source);
}

size_t lineindex_nfiles(const struct lineindex *li)
{
	return li->h->nfiles;
}

const char *lineindex_file_name(const struct lineindex *li, uint32_t file)
{
	return file < li->h->nfiles ? string_at(li, li->files[file]) : "";
}

int64_t lineindex_file_find(const struct lineindex *li, const char *path,
			    uint32_t *first)
{
	size_t pl = strlen(path);
	int64_t found = -1;
	int many = 0;

	if (!pl)
		return -1;
	for (uint32_t f = 1; f < li->h->nfiles; f++) {
		const char *n = lineindex_file_name(li, f);
		size_t nl = strlen(n);

		if (!strcmp(n, path))
			return f;
		if (nl > pl && n[nl - pl - 1] == '/' && !strcmp(n + nl - pl, path)) {
			if (found >= 0)
				many = 1;
			else
				found = f;
		}
	}
	if (first && found >= 0)
		*first = (uint32_t)found;
	return many ? -2 : found;
}

size_t lineindex_nrows(const struct lineindex *li)
{
	return li->h->nrows;
}

void lineindex_row(const struct lineindex *li, size_t i, struct line_row *r)
{
	const struct lix_row *w;

	if (i >= li->h->nrows) {	/* a damaged index's row number */
		memset(r, 0, sizeof(*r));
		r->addr = li->h->text;
		return;
	}
	w = &li->rows[i];
	r->addr = li->h->text + w->addr;
	r->file = w->file < li->h->nfiles ? w->file : 0;
	r->line = r->file ? w->line & ~LIX_STMT : 0;
	r->is_stmt = !!(w->line & LIX_STMT);
}

size_t lineindex_row_from(const struct lineindex *li, uint64_t addr)
{
	size_t lo = 0, hi = li->h->nrows;
	uint64_t rel;

	if (addr < li->h->text)
		return 0;
	rel = addr - li->h->text;
	if (rel > UINT32_MAX)
		return hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (li->rows[mid].addr < rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t lineindex_row_at(const struct lineindex *li, uint64_t addr)
{
	size_t i;

	if (addr < li->h->text || addr - li->h->text > UINT32_MAX)
		return -1;
	i = lineindex_row_from(li, addr + 1);	/* the first row past addr */
	if (!i || !(li->rows[i - 1].line & ~LIX_STMT))
		return -1;
	return (int64_t)(i - 1);
}

const uint32_t *lineindex_file_rows(const struct lineindex *li, uint32_t file,
				    size_t *n)
{
	uint32_t a, b;

	*n = 0;
	if (file >= li->h->nfiles)
		return NULL;
	a = li->file_start[file];
	b = li->file_start[file + 1];
	if (a > b || b > li->file_start[li->h->nfiles])
		return NULL;	/* damaged: no rows (their numbers lineindex_row checks) */
	*n = b - a;
	return li->file_rows + a;
}

size_t lineindex_nfuncs(const struct lineindex *li)
{
	return li->h->nfuncs;
}

void lineindex_func(const struct lineindex *li, size_t i, struct line_func *f)
{
	f->name = string_at(li, li->funcs[i].name);
	f->file = li->funcs[i].file < li->h->nfiles ? li->funcs[i].file : 0;
	f->line = li->funcs[i].line;
}

int64_t lineindex_func_find(const struct lineindex *li, const char *name,
			    size_t *count)
{
	size_t lo = 0, hi = li->h->nfuncs, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(string_at(li, li->funcs[mid].name), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < li->h->nfuncs && !strcmp(string_at(li, li->funcs[end].name), name); end++)
		;
	if (end == lo)
		return -1;
	if (count)
		*count = end - lo;
	return (int64_t)lo;
}

const char *lineindex_var_type(const struct lineindex *li, const char *name)
{
	size_t lo = 0, hi = li->h->nvars;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(string_at(li, li->vars[mid].name), name);

		if (!c)
			return string_at(li, li->vars[mid].type);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The ranges are sorted by their start, a range inside another after it:
 * the ones holding addr are among those starting at or before it. Walking
 * back from there, an enclosing copy can start far before (a long inlined
 * function), so the walk looks at a bounded number of ranges; the deepest
 * holding addr comes first in the answer.
 */
size_t lineindex_inlined_at(const struct lineindex *li, uint64_t addr,
			    struct line_inline *out, size_t max)
{
	size_t lo = 0, hi = li->h->ninlines, n = 0;
	uint64_t rel;
	uint32_t want = UINT32_MAX;	/* the depth still to find: shallower */

	if (addr < li->h->text || (rel = addr - li->h->text) > UINT32_MAX)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (li->inl[mid].lo <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 4096 && n < max && want > 1; seen++) {
		const struct lix_inline *x = &li->inl[i];

		if (rel >= x->hi || x->depth >= want || !x->depth)
			continue;
		out[n].name = string_at(li, x->name);
		out[n].call_file = x->call_file < li->h->nfiles ? x->call_file : 0;
		out[n].call_line = x->call_line;
		out[n].lo = li->h->text + x->lo;
		out[n].hi = li->h->text + x->hi;
		n++;
		want = x->depth;
	}
	return n;
}

size_t lineindex_locals_at(const struct lineindex *li, uint64_t addr, struct line_local *out,
			   size_t max)
{
	size_t lo = 0, hi = li->h->nlocals, n = 0;
	uint64_t rel;

	if (addr < li->h->text || (rel = addr - li->h->text) > UINT32_MAX)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (li->loc[mid].lo <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* back as far as the longest range reaches, innermost scope first */
	for (size_t i = lo; i-- > 0 && n < max;) {
		const struct lix_local *r = &li->loc[i];
		const struct lix_local_desc *x;
		size_t k;

		if ((uint64_t)r->lo + li->h->locals_span <= rel)
			break;
		if (rel >= r->hi || r->desc >= li->h->nlocal_descs)
			continue;
		x = &li->desc[r->desc];
		if (x->reg > 15 || x->kind > LIX_LOCAL_OUT)
			continue;
		/*
		 * a name met already is an inner scope's: it hides this one,
		 * unless it was only where the name is optimized out (every
		 * variable's range over its scope, which a location overrides)
		 */
		for (k = 0; k < n && strcmp(out[k].name, string_at(li, x->name)); k++)
			;
		if (k < n && (out[k].kind != LINE_LOCAL_OUT || x->kind == LIX_LOCAL_OUT))
			continue;
		out[k] = (struct line_local){ string_at(li, x->name), string_at(li, x->type),
					      x->kind, x->reg, x->off, x->param != 0,
					      li->h->text + r->lo, li->h->text + r->hi };
		n += k == n;
	}
	return n;
}

bool lineindex_extent(const struct lineindex *li, uint64_t addr, uint64_t *lo, uint64_t *size)
{
	size_t a = 0, b = li->h->nextents;
	uint64_t rel;

	if (addr < li->h->text || addr - li->h->text > UINT32_MAX)
		return false;
	rel = addr - li->h->text;
	while (a < b) {		/* the first extent past rel */
		size_t m = a + (b - a) / 2;

		if (li->ext[m].lo <= rel)
			a = m + 1;
		else
			b = m;
	}
	if (!a)
		return false;
	*lo = li->h->text + li->ext[a - 1].lo;
	*size = li->ext[a - 1].size;
	return true;
}
