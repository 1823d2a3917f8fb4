/*
 * Writes a line index (lineindex.h) from a vmlinux's DWARF with elfutils'
 * libdw: every compile unit's line table and its functions' declarations.
 * Paths are made relative to the unit's compile directory, which is the
 * kernel tree's top, so they read as the kernel's own ("fs/namei.c") and
 * resolve in Debian's linux-source of the same version.
 */
#include "grow.h"
#include "lineindex.h"
#include "lineindex_format.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

struct build_row {
	uint64_t addr;
	uint32_t file, line;	/* line | LIX_STMT */
	uint32_t seq;		/* order of reading, to keep it among equals */
	int end;
};

struct build_var {
	uint32_t name, type;	/* string offsets */
	int defined;		/* else an extern declaration */
};

struct builder {
	/* strings, deduplicated through an open hash of their offsets */
	char *str;
	size_t str_len, str_cap;
	uint32_t *hash;		/* offset + 1, 0 = empty */
	size_t hash_cap, hash_n;
	/* files: string offsets; file_of[string] through a second hash */
	uint32_t *files;
	size_t nfiles, files_cap;
	uint32_t *file_hash;	/* file + 1 */
	size_t file_hash_cap;
	struct build_row *rows;
	size_t nrows, rows_cap;
	struct lix_func *funcs;
	size_t nfuncs, funcs_cap;
	struct build_var *vars;
	size_t nvars, vars_cap;
	struct lix_inline *inl;
	size_t ninl, inl_cap;
	struct lix_local *loc;
	size_t nloc, loc_cap;
	uint32_t loc_span;
	/* the descriptions, deduplicated through an open hash (index + 1) */
	struct lix_local_desc *desc;
	size_t ndesc, desc_cap;
	uint32_t *desc_hash;
	size_t desc_hash_cap;
	struct lix_extent *ext;
	size_t next, ext_cap;
	uint64_t text;
	/* the source tree, to find where an absolute path's tree begins, and
	 * the prefix found so (the build's own top, e.g. /build/linux-6.1) */
	char source[2048];
	char prefix[2048];
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return grow_room(p, cap, need, size, 1024);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int rehash(struct builder *b)
{
	size_t cap = b->hash_cap ? b->hash_cap * 2 : 1 << 16;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (size_t i = 0; i < b->hash_cap; i++) {
		uint32_t v = b->hash[i];
		size_t j;

		if (!v)
			continue;
		j = hash_str(b->str + v - 1) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = v;
	}
	free(b->hash);
	b->hash = h;
	b->hash_cap = cap;
	return 0;
}

/* The offset of s in the string table, added once. -1 when out of memory. */
static int64_t intern(struct builder *b, const char *s)
{
	size_t len = strlen(s) + 1, j;

	if ((b->hash_n + 1) * 2 > b->hash_cap && rehash(b))
		return -1;
	j = hash_str(s) & (b->hash_cap - 1);
	for (; b->hash[j]; j = (j + 1) & (b->hash_cap - 1))
		if (!strcmp(b->str + b->hash[j] - 1, s))
			return b->hash[j] - 1;
	if (b->str_len + len > UINT32_MAX - 1 ||
	    grow((void **)&b->str, &b->str_cap, b->str_len + len, 1))
		return -1;
	memcpy(b->str + b->str_len, s, len);
	b->hash[j] = (uint32_t)b->str_len + 1;
	b->hash_n++;
	b->str_len += len;
	return (int64_t)(b->str_len - len);
}

static int file_rehash(struct builder *b)
{
	size_t cap = b->file_hash_cap ? b->file_hash_cap * 2 : 1 << 14;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (size_t f = 0; f < b->nfiles; f++) {
		size_t j = (b->files[f] * 2654435761u) & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)f + 1;
	}
	free(b->file_hash);
	b->file_hash = h;
	b->file_hash_cap = cap;
	return 0;
}

/* Removes "." and "dir/.." steps, in place. */
static void normalize(char *p)
{
	char *out = p, *s = p;
	int abs = *p == '/';

	while (*s) {
		char *end = strchr(s, '/');
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (n == 0 || (n == 1 && s[0] == '.')) {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.' && out > p + abs &&
			   !(out - p >= 2 + abs && !strncmp(out - 2, "..", 2) &&
			     (out - 2 == p + abs || out[-3] == '/'))) {
			while (out > p + abs && out[-1] != '/')
				out--;
			if (out > p + abs)
				out--;
		} else {
			if (out > p + abs)
				*out++ = '/';
			else if (abs && out == p)
				*out++ = '/';
			memmove(out, s, n);
			out += n;
		}
		s += n;
		if (*s == '/')
			s++;
	}
	if (out == p && abs)
		*out++ = '/';
	*out = 0;
}

/*
 * Units compiled with their paths mapped (as Debian's are) name files
 * relative to the tree's top, but assembler units may name them by the
 * build machine's absolute path. The first absolute path whose tail is a
 * file of the source tree tells where the tree began there; that prefix is
 * taken off every absolute path from then on.
 */
static void strip_build_top(struct builder *b, char *buf)
{
	char probe[4096];
	size_t pl = strlen(b->prefix);

	if (!pl && b->source[0]) {
		for (char *c = buf + 1; (c = strchr(c, '/')); c++) {
			snprintf(probe, sizeof(probe), "%s/%s", b->source, c + 1);
			if (!access(probe, F_OK)) {
				snprintf(b->prefix, sizeof(b->prefix), "%.*s", (int)(c + 1 - buf), buf);
				pl = strlen(b->prefix);
				break;
			}
		}
	}
	if (pl && !strncmp(buf, b->prefix, pl))
		memmove(buf, buf + pl, strlen(buf + pl) + 1);
}

/* The file index of a path as the compiler gave it, under comp_dir. */
static int64_t file_of(struct builder *b, const char *path, const char *comp_dir)
{
	char buf[4096];
	size_t cl = comp_dir ? strlen(comp_dir) : 0, j;
	int64_t s;

	if (path[0] != '/' && cl)
		snprintf(buf, sizeof(buf), "%s/%s", comp_dir, path);
	else
		snprintf(buf, sizeof(buf), "%s", path);
	normalize(buf);
	if (cl && !strncmp(buf, comp_dir, cl) && buf[cl] == '/')
		memmove(buf, buf + cl + 1, strlen(buf + cl + 1) + 1);
	if (buf[0] == '/')
		strip_build_top(b, buf);
	s = intern(b, buf);
	if (s < 0)
		return -1;
	if ((b->nfiles + 1) * 2 > b->file_hash_cap && file_rehash(b))
		return -1;
	j = ((uint32_t)s * 2654435761u) & (b->file_hash_cap - 1);
	for (; b->file_hash[j]; j = (j + 1) & (b->file_hash_cap - 1))
		if (b->files[b->file_hash[j] - 1] == (uint32_t)s)
			return b->file_hash[j] - 1;
	if (grow((void **)&b->files, &b->files_cap, b->nfiles + 1, sizeof(*b->files)))
		return -1;
	b->files[b->nfiles] = (uint32_t)s;
	b->file_hash[j] = (uint32_t)b->nfiles + 1;
	return (int64_t)b->nfiles++;
}

static int add_row(struct builder *b, uint64_t addr, uint32_t file,
		   uint32_t line, int end)
{
	struct build_row *r;

	if (grow((void **)&b->rows, &b->rows_cap, b->nrows + 1, sizeof(*b->rows)))
		return -1;
	r = &b->rows[b->nrows];
	r->addr = addr;
	r->file = file;
	r->line = line;
	r->seq = (uint32_t)b->nrows;
	r->end = end;
	b->nrows++;
	return 0;
}

/* A unit's line table. Sequences the linker discarded (address 0, or below
 * _text) are left out: their code is not in the kernel. */
static int unit_lines(struct builder *b, Dwarf_Die *cu, const char *comp_dir,
		      struct gerr *e)
{
	Dwarf_Lines *lines;
	size_t n, i;
	int64_t last_file = -1;
	const char *last_src = NULL;
	int keep = 0, starts = 1;

	if (dwarf_getsrclines(cu, &lines, &n))
		return 0;	/* a unit without code */
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int line = 0;
		bool end = false, stmt = false;
		const char *src;
		int64_t f;

		if (!l || dwarf_lineaddr(l, &addr) || dwarf_lineendsequence(l, &end))
			continue;
		if (starts)
			keep = addr >= b->text && addr - b->text < UINT32_MAX;
		starts = end;
		if (!keep)
			continue;
		if (end) {
			if (add_row(b, addr, 0, 0, 1))
				goto nomem;
			continue;
		}
		dwarf_lineno(l, &line);
		dwarf_linebeginstatement(l, &stmt);
		src = dwarf_linesrc(l, NULL, NULL);
		if (!src || line <= 0) {
			f = 0;
			line = 0;
		} else if (src == last_src) {
			f = last_file;
		} else {
			f = file_of(b, src, comp_dir);
			if (f < 0)
				goto nomem;
			last_src = src;
			last_file = f;
		}
		if (add_row(b, addr, (uint32_t)f, (uint32_t)line | (stmt && line ? LIX_STMT : 0), 0))
			goto nomem;
	}
	return 0;
nomem:
	return gerr_setc(e, ENOMEM, "out of memory reading the line tables");
}

/* A type as C writes it in a declaration, qualifiers left out: "unsigned
 * long", "struct file *", "char [16]". "" for what cannot be named (an
 * anonymous struct, a function type). */
static void type_text(Dwarf_Die *type, char *buf, size_t len, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die inner, sub;
	const char *name = dwarf_diename(type);
	char tmp[192];
	Dwarf_Word n;

	buf[0] = 0;
	if (depth > 8)
		return;
	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		snprintf(buf, len, "%s", name ? name : "");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (name)
			snprintf(buf, len, "%s %s", dwarf_tag(type) == DW_TAG_structure_type ? "struct" :
				 dwarf_tag(type) == DW_TAG_union_type ? "union" : "enum", name);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		if (dwarf_formref_die(dwarf_attr(type, DW_AT_type, &a), &inner))
			type_text(&inner, buf, len, depth + 1);
		else
			snprintf(buf, len, "void");
		return;
	case DW_TAG_pointer_type:
		if (!dwarf_formref_die(dwarf_attr(type, DW_AT_type, &a), &inner)) {
			snprintf(buf, len, "void *");
			return;
		}
		type_text(&inner, tmp, sizeof(tmp), depth + 1);
		if (tmp[0] && !strchr(tmp, '['))
			snprintf(buf, len, "%s%s*", tmp, tmp[strlen(tmp) - 1] == '*' ? "" : " ");
		else
			snprintf(buf, len, "void *");	/* a function's address */
		return;
	case DW_TAG_array_type:
		if (!dwarf_formref_die(dwarf_attr(type, DW_AT_type, &a), &inner))
			return;
		type_text(&inner, tmp, sizeof(tmp), depth + 1);
		if (!tmp[0] || strchr(tmp, '['))
			return;
		/* no bound: an array whose size the declaration leaves open */
		if (dwarf_child(type, &sub) || dwarf_tag(&sub) != DW_TAG_subrange_type)
			snprintf(buf, len, "%s [0]", tmp);
		else if (!dwarf_formudata(dwarf_attr(&sub, DW_AT_count, &a), &n))
			snprintf(buf, len, "%s [%llu]", tmp, (unsigned long long)n);
		else if (!dwarf_formudata(dwarf_attr(&sub, DW_AT_upper_bound, &a), &n))
			snprintf(buf, len, "%s [%llu]", tmp, (unsigned long long)n + 1);
		else
			snprintf(buf, len, "%s [0]", tmp);
		return;
	default:
		return;
	}
}

/* A variable's name and its type's text as string offsets: 0, or 1 when it
 * has no name or no type C can write (nothing to keep), -1 out of memory. */
static int name_and_type(struct builder *b, const char *name, Dwarf_Die *die, int64_t *n,
			 int64_t *t)
{
	Dwarf_Attribute a;
	Dwarf_Die type;
	char text[256];

	if (!name || !dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &a), &type))
		return 1;
	type_text(&type, text, sizeof(text), 0);
	if (!text[0])
		return 1;
	*n = intern(b, name);
	*t = intern(b, text);
	return *n < 0 || *t < 0 ? -1 : 0;
}

/* A variable the unit defines (it has a location) or declares (jiffies is
 * only declared: the linker script places it), with its type. */
static int unit_var(struct builder *b, Dwarf_Die *die, struct gerr *e)
{
	Dwarf_Attribute a;
	/* a definition of an extern variable names it through its declaration */
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	int64_t n, t;
	int defined = dwarf_hasattr(die, DW_AT_location), rc;

	if (!defined && !dwarf_hasattr(die, DW_AT_declaration))
		return 0;
	rc = name_and_type(b, name, die, &n, &t);
	if (rc > 0)
		return 0;
	if (rc < 0 ||
	    grow((void **)&b->vars, &b->vars_cap, b->nvars + 1, sizeof(*b->vars)))
		return gerr_setc(e, ENOMEM, "out of memory reading the variables");
	b->vars[b->nvars++] = (struct build_var){ (uint32_t)n, (uint32_t)t, defined };
	return 0;
}

/* A location expression of a shape gilk can read at a hit (lix_local). */
static int local_shape(const Dwarf_Op *op, size_t n, int cfa_frame, uint8_t *kind,
		       uint8_t *reg, int32_t *off)
{
	unsigned atom;

	if (n < 1 || n > 2)
		return 0;
	atom = op[0].atom;
	if (n == 1 && atom == DW_OP_fbreg && cfa_frame &&
	    (int64_t)op[0].number >= INT32_MIN && (int64_t)op[0].number <= INT32_MAX) {
		*kind = LIX_LOCAL_CFA;
		*reg = 7;	/* found from rsp, with the ORC table's offset */
		*off = (int32_t)(int64_t)op[0].number;
		return 1;
	}
	if (n == 1 && atom >= DW_OP_reg0 && atom <= DW_OP_reg15) {
		*kind = LIX_LOCAL_REG;
		*reg = (uint8_t)(atom - DW_OP_reg0);
		*off = 0;
		return 1;
	}
	if (n == 1 && atom == DW_OP_regx && op[0].number < 16) {
		*kind = LIX_LOCAL_REG;
		*reg = (uint8_t)op[0].number;
		*off = 0;
		return 1;
	}
	if (atom >= DW_OP_breg0 && atom <= DW_OP_breg15 &&
	    (int64_t)op[0].number >= INT32_MIN && (int64_t)op[0].number <= INT32_MAX &&
	    (n == 1 || op[1].atom == DW_OP_stack_value)) {
		*kind = n == 1 ? LIX_LOCAL_MEM : LIX_LOCAL_VALUE;
		*reg = (uint8_t)(atom - DW_OP_breg0);
		*off = (int32_t)(int64_t)op[0].number;
		return 1;
	}
	return 0;
}

static uint64_t desc_key(const struct lix_local_desc *d)
{
	return ((uint64_t)d->name * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)d->type << 20) ^
	       ((uint64_t)d->kind << 8) ^ d->reg ^ ((uint64_t)d->param << 12) ^
	       ((uint64_t)(uint32_t)d->off << 32);
}

/* The index of a description, added when new: -1 when out of memory. */
static int64_t desc_of(struct builder *b, const struct lix_local_desc *d)
{
	size_t mask, i;

	if (b->ndesc * 2 >= b->desc_hash_cap) {
		size_t cap = b->desc_hash_cap ? b->desc_hash_cap * 2 : 1 << 16;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -1;
		for (size_t k = 0; k < b->ndesc; k++) {
			for (i = desc_key(&b->desc[k]) & (cap - 1); h[i]; i = (i + 1) & (cap - 1))
				;
			h[i] = (uint32_t)k + 1;
		}
		free(b->desc_hash);
		b->desc_hash = h;
		b->desc_hash_cap = cap;
	}
	mask = b->desc_hash_cap - 1;
	for (i = desc_key(d) & mask; b->desc_hash[i]; i = (i + 1) & mask)
		if (!memcmp(&b->desc[b->desc_hash[i] - 1], d, sizeof(*d)))
			return b->desc_hash[i] - 1;
	if (grow((void **)&b->desc, &b->desc_cap, b->ndesc + 1, sizeof(*b->desc)))
		return -1;
	b->desc[b->ndesc] = *d;
	b->desc_hash[i] = (uint32_t)b->ndesc + 1;
	return (int64_t)b->ndesc++;
}

static int add_local(struct builder *b, Dwarf_Addr lo, Dwarf_Addr hi, int64_t n, int64_t t,
		     int param, uint8_t kind, uint8_t reg, int32_t off)
{
	struct lix_local_desc d = { (uint32_t)n, (uint32_t)t, kind, reg, (uint8_t)param, 0, off };
	int64_t k;

	if (lo < b->text || hi <= lo || hi - b->text > UINT32_MAX)
		return 0;
	k = desc_of(b, &d);
	if (k < 0 || grow((void **)&b->loc, &b->loc_cap, b->nloc + 1, sizeof(*b->loc)))
		return -1;
	b->loc[b->nloc++] = (struct lix_local){ (uint32_t)(lo - b->text), (uint32_t)(hi - b->text),
						(uint32_t)k };
	if (hi - lo > b->loc_span)
		b->loc_span = (uint32_t)(hi - lo);
	return 0;
}

/* One location over each of a scope's ranges. */
static int scope_ranges(struct builder *b, Dwarf_Die *scope, int64_t n, int64_t t, int param,
			uint8_t kind, uint8_t reg, int32_t at)
{
	ptrdiff_t r = 0;
	Dwarf_Addr sb, ss, se;

	while ((r = dwarf_ranges(scope, r, &sb, &ss, &se)) > 0)
		if (add_local(b, ss, se, n, t, param, kind, reg, at))
			return -1;
	return 0;
}

/*
 * A parameter's or local's locations in scope (a function, a lexical
 * block, an inlined copy): a location list gives its own ranges, a single
 * location holds over the scope's.
 */
static int scope_local(struct builder *b, Dwarf_Die *scope, Dwarf_Die *die, int cfa_frame,
		       struct gerr *e)
{
	Dwarf_Attribute a, loc;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr;
	size_t len;
	ptrdiff_t off = 0;
	int64_t n, t;
	uint8_t kind, reg;
	int32_t at;
	int param = dwarf_tag(die) == DW_TAG_formal_parameter, rc;

	rc = name_and_type(b, name, die, &n, &t);
	if (rc)
		return rc < 0 ? gerr_setc(e, ENOMEM, "out of memory reading locals") : 0;
	/*
	 * no location at all: optimized out over the whole scope (the gaps
	 * of a location list are not kept: they would make the index a
	 * quarter bigger)
	 */
	if (!dwarf_attr(die, DW_AT_location, &loc)) {
		if (scope_ranges(b, scope, n, t, param, LIX_LOCAL_OUT, 0, 0))
			return gerr_setc(e, ENOMEM, "out of memory reading locals");
		return 0;
	}
	while ((off = dwarf_getlocations(&loc, off, &base, &start, &end, &expr, &len)) > 0) {
		if (!local_shape(expr, len, cfa_frame, &kind, &reg, &at)) {
			kind = LIX_LOCAL_EXPR;
			reg = 0;
			at = 0;
		}
		if (start == 0 && end == (Dwarf_Addr)-1)	/* over the whole scope */
			rc = scope_ranges(b, scope, n, t, param, kind, reg, at);
		else
			rc = add_local(b, start, end, n, t, param, kind, reg, at);
		if (rc)
			return gerr_setc(e, ENOMEM, "out of memory reading locals");
	}
	return 0;
}

/* Whether a function's frame base is the canonical frame address. */
static int frame_is_cfa(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;

	return dwarf_attr(fn, DW_AT_frame_base, &a) && !dwarf_getlocation(&a, &expr, &len) &&
	       len == 1 && expr[0].atom == DW_OP_call_frame_cfa;
}

/* The parameters and locals under scope, inlined copies' and lexical
 * blocks' too (cfa_frame: their function's frame base is the CFA). */
static int unit_locals(struct builder *b, Dwarf_Die *scope, int depth, int cfa_frame,
		       struct gerr *e)
{
	Dwarf_Die child;
	int r;

	if (depth > 64)
		return 0;
	for (r = dwarf_child(scope, &child); r == 0; r = dwarf_siblingof(&child, &child)) {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) {
			if (depth && scope_local(b, scope, &child, cfa_frame, e))
				return -1;
		} else if (tag == DW_TAG_subprogram && !dwarf_hasattr(&child, DW_AT_declaration)) {
			if (unit_locals(b, &child, depth + 1, frame_is_cfa(&child), e))
				return -1;
		} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			if (unit_locals(b, &child, depth + 1, cfa_frame, e))
				return -1;
		}
	}
	return 0;
}

/* The inlined copies under die (a function, a lexical block, a copy), at
 * depth: each range of each, with where it is called from. */
static int unit_inlines(struct builder *b, Dwarf_Die *die, Dwarf_Files *files, const char *comp_dir,
			uint32_t depth, struct gerr *e)
{
	Dwarf_Die child;
	int r;

	if (depth > 64)
		return 0;
	for (r = dwarf_child(die, &child); r == 0; r = dwarf_siblingof(&child, &child)) {
		int tag = dwarf_tag(&child);
		uint32_t next = depth;

		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute a;
			Dwarf_Word cf = 0, cl = 0;
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;
			const char *name = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &a));
			const char *path;
			int64_t n, f = 0;

			next = depth + 1;
			dwarf_formudata(dwarf_attr(&child, DW_AT_call_file, &a), &cf);
			dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &a), &cl);
			if (files && cf && (path = dwarf_filesrc(files, cf, NULL, NULL)))
				f = file_of(b, path, comp_dir);
			n = intern(b, name ? name : "");
			if (n < 0 || f < 0)
				return gerr_setc(e, ENOMEM, "out of memory reading inlined functions");
			while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0) {
				if (start < b->text || end - b->text > UINT32_MAX || end <= start)
					continue;
				if (grow((void **)&b->inl, &b->inl_cap, b->ninl + 1, sizeof(*b->inl)))
					return gerr_setc(e, ENOMEM, "out of memory reading inlined functions");
				b->inl[b->ninl++] = (struct lix_inline){
					(uint32_t)(start - b->text), (uint32_t)(end - b->text),
					(uint32_t)n, (uint32_t)f, (uint32_t)cl, next };
			}
		} else if (tag != DW_TAG_subprogram && tag != DW_TAG_lexical_block) {
			continue;
		}
		if (unit_inlines(b, &child, files, comp_dir, next, e))
			return -1;
	}
	return 0;
}

/* The unit's functions, as written in C (decl_file:decl_line). */
static int unit_funcs(struct builder *b, Dwarf_Die *cu, const char *comp_dir,
		      struct gerr *e)
{
	Dwarf_Die die;
	int r = dwarf_child(cu, &die);

	for (; r == 0; r = dwarf_siblingof(&die, &die)) {
		const char *name, *file;
		int line = 0;
		int64_t n, f;

		if (dwarf_tag(&die) == DW_TAG_variable) {
			if (unit_var(b, &die, e))
				return -1;
			continue;
		}
		if (dwarf_tag(&die) != DW_TAG_subprogram ||
		    dwarf_hasattr(&die, DW_AT_declaration))
			continue;
		name = dwarf_diename(&die);
		file = dwarf_decl_file(&die);
		if (!name || !file || dwarf_decl_line(&die, &line) || line <= 0)
			continue;
		n = intern(b, name);
		f = file_of(b, file, comp_dir);
		if (n < 0 || f < 0 ||
		    grow((void **)&b->funcs, &b->funcs_cap, b->nfuncs + 1, sizeof(*b->funcs)))
			return gerr_setc(e, ENOMEM, "out of memory reading the functions");
		b->funcs[b->nfuncs++] = (struct lix_func){ (uint32_t)n, (uint32_t)f, (uint32_t)line };
	}
	return 0;
}

static int cmp_rows(const void *x, const void *y)
{
	const struct build_row *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->end != b->end)	/* a sequence's end before the next one's start */
		return a->end ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_file_rows(const void *x, const void *y, void *rows)
{
	const struct lix_row *a = (const struct lix_row *)rows + *(const uint32_t *)x;
	const struct lix_row *b = (const struct lix_row *)rows + *(const uint32_t *)y;
	uint32_t la = a->line & ~LIX_STMT, lb = b->line & ~LIX_STMT;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_funcs(const void *x, const void *y, void *str)
{
	const struct lix_func *a = x, *b = y;
	int c = strcmp((const char *)str + a->name, (const char *)str + b->name);

	if (c)
		return c;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_inlines(const void *x, const void *y)
{
	const struct lix_inline *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static int cmp_locals(const void *x, const void *y)
{
	const struct lix_local *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

static int cmp_vars(const void *x, const void *y, void *str)
{
	const struct build_var *a = x, *b = y;
	int c = strcmp((const char *)str + a->name, (const char *)str + b->name);

	if (c)
		return c;
	if (a->defined != b->defined)	/* definitions first */
		return a->defined ? -1 : 1;
	return a->type < b->type ? -1 : a->type > b->type;
}

/*
 * One type per name: its definitions' if they agree, else (none) its
 * declarations' if they agree. A name two units define with two types
 * (static variables) has no one type and is left out. Written over the
 * builder's array as the file's records.
 */
static size_t vars_by_name(struct builder *b, struct lix_var *out)
{
	size_t k = 0;

	qsort_r(b->vars, b->nvars, sizeof(*b->vars), cmp_vars, b->str);
	for (size_t i = 0; i < b->nvars;) {
		size_t j = i + 1;
		bool one = true;

		while (j < b->nvars && b->vars[j].name == b->vars[i].name) {
			if (b->vars[j].defined == b->vars[i].defined && b->vars[j].type != b->vars[i].type)
				one = false;
			j++;
		}
		if (one)
			out[k++] = (struct lix_var){ b->vars[i].name, b->vars[i].type };
		i = j;
	}
	return k;
}

static int vmlinux_facts(Elf *elf, struct builder *b, uint8_t *id, uint32_t *id_len,
			 struct gerr *e)
{
	const void *bid;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);
	Elf_Scn *scn = NULL;
	int found = 0;

	if (n <= 0 || n > LINEINDEX_BUILD_ID_MAX)
		return gerr_set(e, "it has no GNU build id, so no kernel could be matched to it");
	memcpy(id, bid, (size_t)n);
	*id_len = (uint32_t)n;
	while ((scn = elf_nextscn(elf, scn)) && !found) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (k = 0; d && sh.sh_entsize && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)k, &s))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name && !strcmp(name, "_text")) {
				b->text = s.st_value;
				found = 1;
				break;
			}
		}
	}
	if (!found)
		return gerr_set(e, "it has no _text symbol (is it a vmlinux?)");
	return 0;
}

static int cmp_extents(const void *x, const void *y)
{
	const struct lix_extent *a = x, *b = y;

	return a->lo != b->lo ? (a->lo > b->lo) - (a->lo < b->lo) :
				(a->size < b->size) - (a->size > b->size);
}

/* The sized functions and objects of vmlinux's symbol table from text on,
 * one per address (the largest: an alias of it says no more). */
static int symbol_extents(Elf *elf, struct builder *b, struct gerr *e)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t k = 0; d && sh.sh_entsize && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			int type;

			if (!gelf_getsym(d, (int)k, &s))
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if ((type != STT_FUNC && type != STT_OBJECT) || !s.st_size ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS ||
			    s.st_value < b->text || s.st_value - b->text > UINT32_MAX ||
			    s.st_size > UINT32_MAX)
				continue;
			if (grow((void **)&b->ext, &b->ext_cap, b->next + 1, sizeof(*b->ext)))
				return gerr_setc(e, ENOMEM, "out of memory reading the symbol table");
			b->ext[b->next++] = (struct lix_extent){ (uint32_t)(s.st_value - b->text),
								 (uint32_t)s.st_size };
		}
	}
	qsort(b->ext, b->next, sizeof(*b->ext), cmp_extents);
	for (size_t i = 0; i < b->next; i++)
		if (!n || b->ext[n - 1].lo != b->ext[i].lo)
			b->ext[n++] = b->ext[i];
	b->next = n;
	return 0;
}

static int write_all(FILE *f, const void *p, size_t n, uint64_t *off)
{
	*off += n;
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int write_index(struct builder *b, const struct lix_header *h0,
		       const char *out, struct gerr *e)
{
	struct lix_header h = *h0;
	struct lix_row *rows = NULL;
	struct lix_var *vars = NULL;
	uint32_t *by_file = NULL, *start = NULL;
	size_t n = 0, nf = 0, nvars = 0, i;
	char tmp[4096];
	FILE *f = NULL;
	uint64_t off = sizeof(h);
	int rc = -1;

	qsort(b->rows, b->nrows, sizeof(*b->rows), cmp_rows);
	rows = malloc((b->nrows + 1) * sizeof(*rows));
	by_file = malloc((b->nrows + 1) * sizeof(*by_file));
	start = calloc(b->nfiles + 1, sizeof(*start));
	if (!rows || !by_file || !start) {
		gerr_setc(e, ENOMEM, "out of memory writing the index");
		goto out;
	}
	for (i = 0; i < b->nrows; i++) {
		const struct build_row *r = &b->rows[i];
		struct lix_row w = { (uint32_t)(r->addr - b->text), r->file, r->line };

		if (n && rows[n - 1].addr == w.addr && rows[n - 1].file == w.file &&
		    (rows[n - 1].line & ~LIX_STMT) == (w.line & ~LIX_STMT)) {
			rows[n - 1].line |= w.line;
			continue;
		}
		/* an end with nothing between it and the last end says nothing */
		if (!w.line && (!n || !rows[n - 1].line))
			continue;
		rows[n++] = w;
	}
	for (i = 0; i < n; i++)
		if (rows[i].line)
			by_file[nf++] = (uint32_t)i;
	qsort_r(by_file, nf, sizeof(*by_file), cmp_file_rows, rows);
	for (i = 0; i < nf; i++)
		start[rows[by_file[i]].file + 1]++;
	for (i = 1; i <= b->nfiles; i++)
		start[i] += start[i - 1];
	qsort_r(b->funcs, b->nfuncs, sizeof(*b->funcs), cmp_funcs, b->str);
	for (i = 0, nf = 0; i < b->nfuncs; i++)
		if (!nf || memcmp(&b->funcs[nf - 1], &b->funcs[i], sizeof(b->funcs[i])))
			b->funcs[nf++] = b->funcs[i];
	b->nfuncs = nf;
	vars = malloc((b->nvars + 1) * sizeof(*vars));
	if (!vars) {
		gerr_setc(e, ENOMEM, "out of memory writing the index");
		goto out;
	}
	nvars = vars_by_name(b, vars);

	h.nfiles = (uint32_t)b->nfiles;
	h.nrows = (uint32_t)n;
	h.nfuncs = (uint32_t)b->nfuncs;
	h.nvars = (uint32_t)nvars;
	qsort(b->inl, b->ninl, sizeof(*b->inl), cmp_inlines);
	h.ninlines = (uint32_t)b->ninl;
	qsort(b->loc, b->nloc, sizeof(*b->loc), cmp_locals);
	h.nlocals = (uint32_t)b->nloc;
	h.locals_span = b->loc_span;
	h.nlocal_descs = (uint32_t)b->ndesc;
	h.nextents = (uint32_t)b->next;
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	f = fopen(tmp, "wb");
	if (!f) {
		gerr_setc(e, errno, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (write_all(f, &h, sizeof(h), &off) < 0)
		goto io;
	off = sizeof(h);
	h.strings = off;
	h.strings_len = b->str_len;
	if (write_all(f, b->str, b->str_len, &off))
		goto io;
	while (off % 8) {
		if (fputc(0, f) == EOF)
			goto io;
		off++;
	}
	h.files = off;
	if (write_all(f, b->files, b->nfiles * 4, &off))
		goto io;
	h.rows = off;
	if (write_all(f, rows, n * sizeof(*rows), &off))
		goto io;
	h.file_start = off;
	if (write_all(f, start, (b->nfiles + 1) * 4, &off))
		goto io;
	h.file_rows = off;
	if (write_all(f, by_file, (size_t)start[b->nfiles] * 4, &off))
		goto io;
	h.funcs = off;
	if (write_all(f, b->funcs, b->nfuncs * sizeof(*b->funcs), &off))
		goto io;
	h.vars = off;
	if (write_all(f, vars, nvars * sizeof(*vars), &off))
		goto io;
	h.inlines = off;
	if (write_all(f, b->inl, b->ninl * sizeof(*b->inl), &off))
		goto io;
	h.locals = off;
	if (write_all(f, b->loc, b->nloc * sizeof(*b->loc), &off))
		goto io;
	h.local_descs = off;
	if (write_all(f, b->desc, b->ndesc * sizeof(*b->desc), &off))
		goto io;
	h.extents = off;
	if (write_all(f, b->ext, b->next * sizeof(*b->ext), &off))
		goto io;
	if (fseek(f, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, f) != 1)
		goto io;
	if (fclose(f)) {
		f = NULL;
		goto io;
	}
	f = NULL;
	if (rename(tmp, out)) {
		gerr_setc(e, errno, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
	goto out;
io:
	gerr_setc(e, errno ? errno : EIO, "cannot write %s: %s", tmp, strerror(errno ? errno : EIO));
	if (f)
		fclose(f);
	unlink(tmp);
out:
	free(rows);
	free(vars);
	free(by_file);
	free(start);
	return rc;
}

/* The source tree as given, or relative to the index's folder. */
static void source_dir(struct builder *b, const char *out, const char *source)
{
	const char *slash = strrchr(out, '/');

	if (!source || !source[0])
		return;
	if (source[0] == '/' || !slash)
		snprintf(b->source, sizeof(b->source), "%s", source);
	else
		snprintf(b->source, sizeof(b->source), "%.*s/%s", (int)(slash - out), out, source);
}

int lineindex_build(const char *vmlinux, const char *out, const char *source,
		    char *written, size_t wlen, struct gerr *e)
{
	struct stat st;
	struct builder b = { 0 };
	struct lix_header h = { 0 };
	Dwarf *dw = NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	int fd, rc = -1, units = 0;
	int64_t s;

	elf_version(EV_CURRENT);
	if (!stat(out, &st) && S_ISDIR(st.st_mode)) {
		char inside[PATH_MAX];

		snprintf(inside, sizeof(inside), "%.*s/x", PATH_MAX - 3, out);
		source_dir(&b, inside, source);
	} else {
		source_dir(&b, out, source);
	}
	fd = open(vmlinux, O_RDONLY);
	if (fd < 0)
		return gerr_setc(e, errno, "%s: %s", vmlinux, strerror(errno));
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		gerr_set(e, "%s: no DWARF debug information (%s); the kernel's -dbg package has it",
			 vmlinux, dwarf_errmsg(-1));
		goto out;
	}
	if (vmlinux_facts(dwarf_getelf(dw), &b, h.build_id, &h.build_id_len, e)) {
		char msg[sizeof(e->msg)];

		snprintf(msg, sizeof(msg), "%s", e->msg);
		gerr_set(e, "%s: %s", vmlinux, msg);
		goto out;
	}
	if (symbol_extents(dwarf_getelf(dw), &b, e))
		goto out;
	memcpy(h.magic, LIX_MAGIC, sizeof(LIX_MAGIC));
	h.version = LIX_VERSION;
	h.text = b.text;
	/* string 0 is "", file 0 is "no file" */
	if (intern(&b, "") < 0 || file_of(&b, "", NULL) < 0)
		goto nomem;
	while (dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0) {
		Dwarf_Attribute a;
		const char *comp_dir;

		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
		if (unit_lines(&b, &cudie, comp_dir, e) || unit_funcs(&b, &cudie, comp_dir, e))
			goto out;
		{
			Dwarf_Files *files = NULL;
			size_t nfiles;

			if (dwarf_getsrcfiles(&cudie, &files, &nfiles))
				files = NULL;
			if (unit_inlines(&b, &cudie, files, comp_dir, 0, e) ||
			    unit_locals(&b, &cudie, 0, 0, e))
				goto out;
		}
		units++;
	}
	if (!units) {
		gerr_set(e, "%s: no compile units in its DWARF", vmlinux);
		goto out;
	}
	s = intern(&b, source ? source : "");
	if (s < 0)
		goto nomem;
	h.source = (uint32_t)s;
	if (!stat(out, &st) && S_ISDIR(st.st_mode)) {
		char id[2 * LINEINDEX_BUILD_ID_MAX + 1];

		for (uint32_t i = 0; i < h.build_id_len; i++)
			sprintf(id + 2 * i, "%02x", h.build_id[i]);
		snprintf(written, wlen, "%s/%s.lines", out, id);
	} else {
		snprintf(written, wlen, "%s", out);
	}
	rc = write_index(&b, &h, written, e);
	goto out;
nomem:
	gerr_setc(e, ENOMEM, "out of memory reading %s", vmlinux);
out:
	if (dw)
		dwarf_end(dw);
	close(fd);
	free(b.str);
	free(b.hash);
	free(b.files);
	free(b.file_hash);
	free(b.rows);
	free(b.funcs);
	free(b.vars);
	free(b.inl);
	free(b.loc);
	free(b.desc);
	free(b.desc_hash);
	free(b.ext);
	return rc;
}
