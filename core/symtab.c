/* Kernel symbol table (see symtab.h). */
#include "symtab.h"

#include "editdist.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "editdist.h"
#include "intexpr.h"
#include "u64set.h"

struct symtab {
	char *pool;
	struct ksym *syms;   /* address order */
	size_t n;
	uint32_t *by_name;   /* indices into syms, name order */
	uint64_t *text_starts; /* distinct text addresses, ascending */
	size_t ntext;
	symtab_extent_fn extent;	/* sizes, where known (symtab_set_sizes) */
	const void *extent_ctx;
};

/* A function. Kernels built with call padding (6.12: CALL_PADDING for call
 * depth tracking and IBT) name the 16 bytes of nops before each function
 * __pfx_NAME (and __cfi_NAME with kCFI): padding that the kernel may turn
 * into call thunks at boot, never a function, so not text here. */
bool ksym_is_text(const struct ksym *s)
{
	return (s->type == 't' || s->type == 'T') && strncmp(s->name, "__pfx_", 6) &&
	       strncmp(s->name, "__cfi_", 6);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Text before non-text among aliases, global (T) before local (t),
	 * then the order they came in. */
	if (ksym_is_text(x) != ksym_is_text(y))
		return ksym_is_text(x) ? -1 : 1;
	if (x->type != y->type)
		return x->type == 'T' ? -1 : y->type == 'T' ? 1 : 0;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_name_idx(const void *a, const void *b, void *base)
{
	const struct ksym *x = &((const struct ksym *)base)[*(const uint32_t *)a];
	const struct ksym *y = &((const struct ksym *)base)[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int symtab_parse(const char *text, size_t len, struct symtab **out,
		 struct gerr *e)
{
	struct symtab *st = calloc(1, sizeof(*st));
	size_t cap = 0, lineno = 0;
	char *p, *end;

	if (!st)
		return gerr_set(e, "out of memory");
	st->pool = malloc(len + 1);
	if (!st->pool) {
		free(st);
		return gerr_set(e, "out of memory");
	}
	memcpy(st->pool, text, len);
	st->pool[len] = '\0';
	p = st->pool;
	end = st->pool + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = p, *q, *name, *mod = NULL;
		unsigned long long addr;
		char type;

		if (!nl)
			nl = end;
		*nl = '\0';
		p = nl + 1;
		lineno++;
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line)
			continue;
		errno = 0;
		addr = strtoull(line, &q, 16);
		if (q == line || errno || (*q != ' ' && *q != '\t'))
			goto bad;
		while (*q == ' ' || *q == '\t')
			q++;
		type = *q++;
		/* '?': a loading module's init symbols name sections that have
		 * no letter (.modinfo) until its core symbols replace them */
		if ((!isalpha((unsigned char)type) && type != '?') || (*q != ' ' && *q != '\t'))
			goto bad;
		while (*q == ' ' || *q == '\t')
			q++;
		name = q;
		while (*q && *q != ' ' && *q != '\t' && *q != '\r')
			q++;
		if (q == name)
			goto bad;
		if (*q) {
			*q++ = '\0';
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '[') {
				mod = q + 1;
				q = strchr(mod, ']');
				if (!q)
					goto bad;
				*q = '\0';
			}
		}
		if (st->n == cap) {
			struct ksym *ns;

			cap = cap ? cap * 2 : 65536;
			ns = realloc(st->syms, cap * sizeof(*ns));
			if (!ns) {
				symtab_free(st);
				return gerr_set(e, "out of memory");
			}
			st->syms = ns;
		}
		st->syms[st->n++] = (struct ksym){ addr, name, mod, type };
		continue;
bad:
		symtab_free(st);
		return gerr_set(e, "line %zu is not \"address type name [module]\"", lineno);
	}
	if (!st->n) {
		symtab_free(st);
		return gerr_set(e, "no symbols found");
	}
	qsort(st->syms, st->n, sizeof(*st->syms), cmp_addr);
	st->by_name = malloc(st->n * sizeof(*st->by_name));
	st->text_starts = malloc(st->n * sizeof(*st->text_starts));
	if (!st->by_name || !st->text_starts) {
		symtab_free(st);
		return gerr_set(e, "out of memory");
	}
	for (size_t i = 0; i < st->n; i++) {
		st->by_name[i] = (uint32_t)i;
		if (ksym_is_text(&st->syms[i]) &&
		    (!st->ntext || st->text_starts[st->ntext - 1] != st->syms[i].addr))
			st->text_starts[st->ntext++] = st->syms[i].addr;
	}
	qsort_r(st->by_name, st->n, sizeof(*st->by_name), cmp_name_idx, st->syms);
	*out = st;
	return 0;
}

int symtab_load(const char *path, struct symtab **out, struct gerr *e)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, r;
	int rc;

	if (!f)
		return gerr_set(e, "%s: %s", path, strerror(errno));
	do {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 1 << 20);

			if (!nb) {
				free(buf);
				fclose(f);
				return gerr_set(e, "out of memory");
			}
			buf = nb;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		/* A signal (Ctrl-C while gilk starts) cuts a read of a slow
		 * file such as /proc/kallsyms short: read on, or the table
		 * would end where the signal came. */
		if (!r && ferror(f)) {
			int err = errno;

			if (err != EINTR) {
				free(buf);
				fclose(f);
				return gerr_set(e, "%s: %s", path, strerror(err));
			}
			clearerr(f);
			r = 1;
		}
	} while (r > 0);
	fclose(f);
	rc = symtab_parse(buf ? buf : "", len, out, e);
	free(buf);
	if (rc && e) {
		char m[sizeof(e->msg)];

		snprintf(m, sizeof(m), "%s", e->msg);
		gerr_set(e, "%s: %s", path, m);
	}
	return rc;
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	free(st->pool);
	free(st->syms);
	free(st->by_name);
	free(st->text_starts);
	free(st);
}

size_t symtab_count(const struct symtab *st)
{
	return st->n;
}

const struct ksym *symtab_at(const struct symtab *st, size_t i)
{
	return i < st->n ? &st->syms[i] : NULL;
}

struct name_key {
	const struct symtab *st;
	const char *name;
};

static bool name_below(const void *ctx, size_t i)
{
	const struct name_key *k = ctx;

	return strcmp(k->st->syms[k->st->by_name[i]].name, k->name) < 0;
}

/* First index in by_name whose name is >= key. */
static size_t name_lower_bound(const struct symtab *st, const char *key)
{
	struct name_key k = { st, key };

	return u64_partition(st->n, name_below, &k);
}

size_t symtab_by_name(const struct symtab *st, const char *name,
		      const struct ksym **out, size_t max)
{
	size_t n = 0;

	for (size_t i = name_lower_bound(st, name); i < st->n; i++) {
		const struct ksym *s = &st->syms[st->by_name[i]];

		if (strcmp(s->name, name))
			break;
		if (out && n < max)
			out[n] = s;
		n++;
	}
	return n;
}

/* The position in by_name of the entry that points at syms[pos]. */
static size_t by_name_slot(const struct symtab *st, size_t pos)
{
	size_t i = name_lower_bound(st, st->syms[pos].name);

	while (i < st->n && st->by_name[i] != pos)
		i++;
	return i;
}

void symtab_prefer(struct symtab *st, const char *name)
{
	const struct ksym *hit;
	size_t want, first, a, b;
	struct ksym tmp;

	if (symtab_by_name(st, name, &hit, 1) != 1)
		return;
	want = (size_t)(hit - st->syms);
	first = want;
	while (first > 0 && st->syms[first - 1].addr == hit->addr)
		first--;
	/* only among aliases of its kind: text still sorts first */
	if (first == want || ksym_is_text(&st->syms[first]) != ksym_is_text(hit))
		return;
	a = by_name_slot(st, first);
	b = by_name_slot(st, want);
	tmp = st->syms[first];
	st->syms[first] = st->syms[want];
	st->syms[want] = tmp;
	st->by_name[a] = (uint32_t)want;
	st->by_name[b] = (uint32_t)first;
}

struct addr_key {
	const struct symtab *st;
	uint64_t addr;
};

static bool sym_at_or_below(const void *ctx, size_t i)
{
	const struct addr_key *k = ctx;

	return k->st->syms[i].addr <= k->addr;
}

static bool text_at_or_below(const void *ctx, size_t i)
{
	const struct addr_key *k = ctx;

	return k->st->text_starts[i] <= k->addr;
}

/* Index of the last symbol with address <= addr, or SIZE_MAX. */
static size_t addr_upper(const struct symtab *st, uint64_t addr)
{
	struct addr_key k = { st, addr };
	size_t lo = u64_partition(st->n, sym_at_or_below, &k);

	return lo ? lo - 1 : SIZE_MAX;
}

const struct ksym *symtab_by_addr(const struct symtab *st, uint64_t addr)
{
	size_t i = addr_upper(st, addr);

	if (i == SIZE_MAX)
		return NULL;
	/* Move to the first alias at that address: text sorts first. */
	while (i > 0 && st->syms[i - 1].addr == st->syms[i].addr)
		i--;
	return &st->syms[i];
}

static bool text_below(const void *ctx, size_t i)
{
	const struct addr_key *k = ctx;

	return k->st->text_starts[i] < k->addr;
}

static size_t text_upper(const struct symtab *st, uint64_t addr)
{
	struct addr_key k = { st, addr };
	size_t lo = u64_partition(st->ntext, text_at_or_below, &k);

	return lo ? lo - 1 : SIZE_MAX;
}

int symtab_function(const struct symtab *st, uint64_t addr,
		    const struct ksym **sym, uint64_t *start, uint64_t *end)
{
	size_t t = text_upper(st, addr);
	const struct ksym *s;

	if (t == SIZE_MAX || t + 1 >= st->ntext)
		return -1; /* below all text, or past the last text symbol */
	s = symtab_by_addr(st, st->text_starts[t]);
	if (!s || !ksym_is_text(s))
		return -1;
	/* A function ends at the next text symbol, or sooner at any other
	 * symbol (data after _etext is not part of the last function). */
	{
		uint64_t a = st->text_starts[t], stop = st->text_starts[t + 1];
		size_t i = addr_upper(st, a);

		while (i + 1 < st->n && st->syms[i + 1].addr == a)
			i++;
		if (i + 1 < st->n && st->syms[i + 1].addr < stop)
			stop = st->syms[i + 1].addr;
		if (addr >= stop)
			return -1;
		if (sym)
			*sym = s;
		if (start)
			*start = a;
		if (end)
			*end = stop;
	}
	return 0;
}

size_t symtab_functions(const struct symtab *st, uint64_t lo, uint64_t hi,
			const struct ksym **out, size_t max)
{
	struct addr_key k = { st, lo };
	size_t n = 0;

	/* from the first start at or above lo: callers ask for a window
	 * around each function, and a scan from 0 made the whole-kernel
	 * scan quadratic */
	for (size_t t = u64_partition(st->ntext, text_below, &k); t + 1 < st->ntext; t++) {
		uint64_t a = st->text_starts[t];

		if (a >= hi)
			break;
		if (out && n < max)
			out[n] = symtab_by_addr(st, a);
		n++;
	}
	return n;
}

size_t symtab_cold_parts(const struct symtab *st, const char *name,
			 const struct ksym **out, size_t max)
{
	char key[512];
	size_t n = 0, klen;

	klen = (size_t)snprintf(key, sizeof(key), "%s.cold", name);
	if (klen >= sizeof(key))
		return 0;
	for (size_t i = name_lower_bound(st, key); i < st->n; i++) {
		const struct ksym *s = &st->syms[st->by_name[i]];

		if (strncmp(s->name, key, klen))
			break;
		if (s->name[klen] != '\0' && s->name[klen] != '.')
			continue;
		if (!ksym_is_text(s))
			continue;
		if (out && n < max)
			out[n] = s;
		n++;
	}
	return n;
}

size_t symtab_complete(const struct symtab *st, const char *prefix,
		       const char **out, size_t max)
{
	size_t plen = strlen(prefix), n = 0;
	const char *last = NULL;

	for (size_t i = name_lower_bound(st, prefix); i < st->n; i++) {
		const char *name = st->syms[st->by_name[i]].name;

		if (strncmp(name, prefix, plen))
			break;
		if (last && !strcmp(last, name))
			continue;
		last = name;
		if (out && n < max)
			out[n] = name;
		n++;
	}
	return n;
}

/* What follows a function's name in the names of the copies the compiler
 * makes of it: components .constprop, .isra, .part, .cold, .lto_priv, .llvm
 * and numbers, in any chain (.isra.0.cold). */
static bool compiler_suffix(const char *s)
{
	static const char *const kinds[] = {
		"constprop", "isra", "part", "cold", "lto_priv", "llvm",
	};

	if (*s != '.')
		return false;
	while (*s == '.') {
		size_t i, n = 0;

		s++;
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			n = strlen(kinds[i]);
			if (!strncmp(s, kinds[i], n) && (s[n] == '.' || !s[n]))
				break;
		}
		if (i == sizeof(kinds) / sizeof(kinds[0]))
			n = strspn(s, "0123456789");
		if (!n)
			return false;
		s += n;
	}
	return !*s;
}

size_t symtab_variants(const struct symtab *st, const char *name,
		       const struct ksym **out, size_t max)
{
	size_t len = strlen(name), n = 0;
	char key[512];

	if (len + 2 > sizeof(key))
		return 0;
	snprintf(key, sizeof(key), "%s.", name);
	for (size_t i = name_lower_bound(st, key); i < st->n; i++) {
		const struct ksym *s = &st->syms[st->by_name[i]];

		if (strncmp(s->name, key, len + 1))
			break;
		if (!ksym_is_text(s) || !compiler_suffix(s->name + len))
			continue;
		if (out && n < max)
			out[n] = s;
		n++;
	}
	return n;
}

size_t symtab_near(const struct symtab *st, const char *name,
		   const char **out, size_t max)
{
	size_t limit = strlen(name) / 5 + 1, n = 0, dist[8];
	const char *last = NULL;

	if (max > 8)
		max = 8;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < st->n && max; i++) {
		const struct ksym *s = &st->syms[st->by_name[i]];
		size_t d, k;

		if (!ksym_is_text(s) || (last && !strcmp(last, s->name)))
			continue;
		last = s->name;
		d = edit_distance(name, s->name, limit);
		if (d > limit || (n == max && d >= dist[n - 1]))
			continue;
		/* kept closest first; among equals, in name order */
		for (k = n < max ? n++ : n - 1; k > 0 && dist[k - 1] > d; k--) {
			out[k] = out[k - 1];
			dist[k] = dist[k - 1];
		}
		out[k] = s->name;
		dist[k] = d;
	}
	return n;
}

static int parse_number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || *end) ? -1 : 0;
}

/* name is no symbol: its one copy by the compiler (a .cold part only when
 * there is nothing else), or an error that lists them, or the names
 * closest to it. */
static const struct ksym *resolve_variant(const struct symtab *st, const char *name,
					  struct gerr *e)
{
	const struct ksym *v[8], *warm = NULL, *cold = NULL;
	size_t n = symtab_variants(st, name, v, 8), nwarm = 0, ncold = 0;
	const char *near[3];
	char list[400] = "";
	size_t used = 0;

	for (size_t i = 0; i < n && i < 8; i++) {
		if (strstr(v[i]->name + strlen(name), ".cold"))
			ncold++, cold = v[i];
		else
			nwarm++, warm = v[i];
	}
	if (nwarm == 1 || (!nwarm && ncold == 1))
		return nwarm ? warm : cold;
	if (n) {
		for (size_t i = 0; i < n && i < 8; i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 i ? ", " : "", v[i]->name);
		gerr_set(e, "no symbol '%s', but the compiler made %zu copies of it: %s%s; name one",
			 name, n, list, n > 8 ? ", ..." : "");
		return NULL;
	}
	n = symtab_near(st, name, near, 3);
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
					 i ? (i + 1 == n ? " or " : ", ") : "", near[i]);
	if (n)
		gerr_set(e, "no symbol '%s'; did you mean %s?", name, list);
	else
		gerr_set(e, "no symbol '%s'", name);
	return NULL;
}

/* The symbols named name, each as NAME@ADDR: as one of them is asked for. */
static void list_copies(const struct symtab *st, const char *name, char *list, size_t len)
{
	const struct ksym *hits[4];
	size_t n = symtab_by_name(st, name, hits, 4), used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n && i < 4 && used < len; i++)
		used += (size_t)snprintf(list + used, len - used, "%s%s@0x%" PRIx64,
					 i ? ", " : "", name, hits[i]->addr);
	if (n > 4 && used < len)
		snprintf(list + used, len - used, ", ...");
}

static int ambiguous(const struct symtab *st, const char *name, struct gerr *e)
{
	char list[768];

	list_copies(st, name, list, sizeof(list));
	return gerr_set(e, "'%s' names %zu symbols: %s; name one as NAME@ADDR (or each, NAME@*, where a command takes several functions)",
			name, symtab_by_name(st, name, NULL, 0), list);
}

/* NAME@ADDR: the one of the symbols named NAME that is at ADDR. */
static int resolve_copy(const struct symtab *st, const char *name, uint64_t off,
			uint64_t *addr, struct gerr *e)
{
	const char *at = strchr(name, '@');
	const struct ksym **hits;
	char base[512], list[768], *end;
	uint64_t want;
	size_t n;
	bool found = false;

	snprintf(base, sizeof(base), "%.*s", (int)(at - name), name);
	errno = 0;
	want = strtoull(at + 1, &end, 16);
	if (!base[0] || errno || *end || end == at + 1)
		return gerr_set(e, "'%s': NAME@ADDR names a symbol by its address, in hex", name);
	n = symtab_by_name(st, base, NULL, 0);
	if (!n)
		return gerr_set(e, "no symbol '%s'", base);
	hits = calloc(n, sizeof(*hits));
	if (!hits)
		return gerr_set(e, "out of memory");
	symtab_by_name(st, base, hits, n);
	for (size_t i = 0; i < n; i++)
		found |= hits[i]->addr == want;
	free(hits);
	if (found) {
		*addr = want + off;
		return 0;
	}
	list_copies(st, base, list, sizeof(list));
	return gerr_set(e, "no '%s' at 0x%" PRIx64 "; its copies: %s", base, want, list);
}

int symtab_resolve(const struct symtab *st, const char *expr, uint64_t *addr,
		   struct gerr *e)
{
	return symtab_resolve_as(st, expr, addr, NULL, e);
}

int symtab_resolve_as(const struct symtab *st, const char *expr, uint64_t *addr,
		      const struct ksym **variant, struct gerr *e)
{
	char name[512];
	const char *plus;
	const struct ksym *hits[4];
	uint64_t off = 0;
	size_t n, nlen;

	if (variant)
		*variant = NULL;

	while (*expr == ' ')
		expr++;
	/* C's address-of: a symbol already names its address */
	if (*expr == '&')
		expr++;
	if (!*expr)
		return gerr_set(e, "empty address");
	if (!strncmp(expr, "0x", 2) || !strncmp(expr, "0X", 2)) {
		char *end;

		errno = 0;
		*addr = strtoull(expr, &end, 16);
		if (errno || *end || end == expr + 2)
			return gerr_set(e, "'%s' is not a hexadecimal address", expr);
		return 0;
	}
	if (strlen(expr) == 16 && strspn(expr, "0123456789abcdefABCDEF") == 16) {
		*addr = strtoull(expr, NULL, 16);
		return 0;
	}
	plus = strchr(expr, '+');
	nlen = plus ? (size_t)(plus - expr) : strlen(expr);
	if (nlen >= sizeof(name))
		return gerr_set(e, "symbol name too long");
	memcpy(name, expr, nlen);
	name[nlen] = '\0';
	/* an offset may be worked out: sys_call_table+39*8 */
	if (plus && parse_number(plus + 1, &off) && intexpr_eval(plus + 1, &off))
		return gerr_set(e, "'%s' is not an offset (a number, decimal or 0x-hex, or "
				"numbers with + - * / %% << >> & | ^ ~ ( ))", plus + 1);
	if (strchr(name, '@'))
		return resolve_copy(st, name, off, addr, e);
	n = symtab_by_name(st, name, hits, 4);
	if (n == 0) {
		const struct ksym *v = resolve_variant(st, name, e);

		if (!v)
			return -1;
		if (variant)
			*variant = v;
		*addr = v->addr + off;
		return 0;
	}
	if (n > 1)
		return ambiguous(st, name, e);
	*addr = hits[0]->addr + off;
	return 0;
}

void symtab_set_sizes(struct symtab *st, symtab_extent_fn fn, const void *ctx)
{
	st->extent = fn;
	st->extent_ctx = ctx;
}

bool symtab_data_size(const struct symtab *st, const struct ksym *s, uint64_t *size)
{
	uint64_t lo;

	return st->extent && st->extent(st->extent_ctx, s->addr, &lo, size) && lo == s->addr;
}

/*
 * Whether data symbol s covers addr (at or past it): to its size where the
 * sizes say it; else, as kallsyms has no sizes, up to 1 MiB. An object the
 * sizes know between s and addr ends s before it.
 */
static bool data_covers(const struct symtab *st, const struct ksym *s, uint64_t addr)
{
	uint64_t lo, size;

	if (st->extent && st->extent(st->extent_ctx, addr, &lo, &size) && lo >= s->addr)
		return lo == s->addr && addr - lo < size;
	return addr - s->addr < 0x100000;
}

void symtab_format(const struct symtab *st, uint64_t addr, char *buf,
		   size_t len)
{
	const struct ksym *s = symtab_by_addr(st, addr);
	uint64_t start, end;

	if (!s || symtab_function(st, addr, NULL, &start, &end) || addr >= end) {
		if (s && !ksym_is_text(s) && data_covers(st, s, addr))
			goto named;
		snprintf(buf, len, "0x%" PRIx64, addr);
		return;
	}
named:
	if (addr == s->addr)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
}
