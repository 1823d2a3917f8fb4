/* The coverage set (see coverage.h). */
#include "plan/coverage.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "u64set.h"
#include "output/progress.h"
#include "session/interrupt.h"
#include "session/lines.h"

static bool is_glob(const char *w)
{
	return strpbrk(w, "*?[") != NULL;
}

/* The functions a word names: one symbol, or every function whose name a
 * glob matches and that can be spliced (init code is gone after boot), as
 * splice --blocks takes them. *out is malloc'd. */
static int functions_named(struct session *s, const char *word,
			   const struct ksym ***out, size_t *n, struct gerr *e)
{
	size_t all = symtab_functions(s->k->syms, 0, UINT64_MAX, NULL, 0), k = 0;
	const struct ksym **f;
	uint64_t addr;

	if (!is_glob(word)) {
		const struct ksym *sym;

		if (session_resolve(s, word, &addr, e))
			return -1;
		if (symtab_function(s->k->syms, addr, &sym, NULL, NULL))
			return gerr_set(e, "%s is not in a function", word);
		*out = malloc(sizeof(**out));
		if (!*out)
			return gerr_set(e, "out of memory");
		(*out)[0] = sym;
		*n = 1;
		return 0;
	}
	f = calloc(all ? all : 1, sizeof(*f));
	if (!f)
		return gerr_set(e, "out of memory");
	symtab_functions(s->k->syms, 0, UINT64_MAX, f, all);
	for (size_t i = 0; i < all; i++)
		if (!fnmatch(word, f[i]->name, 0) && session_is_text(s, f[i]->addr))
			f[k++] = f[i];
	if (!k) {
		free(f);
		return gerr_set(e, "no function matches %s", word);
	}
	*out = f;
	*n = k;
	return 0;
}

/*
 * Where each of the set's functions is in it, by address, found at once:
 * a glob over the whole kernel adds tens of thousands of functions, and
 * the coverage another session left hundreds of thousands of splices, too
 * many to search the list for each.
 */
struct func_index {
	uint64_t *addr;		/* 0: a free slot (no function is at 0) */
	size_t *at;		/* its index in the set's funcs */
	size_t cap, n;		/* cap a power of two, at least twice n */
};

static size_t addr_hash(uint64_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

/* The function's index in the set, or SIZE_MAX. */
static size_t func_index_find(const struct func_index *x, uint64_t a)
{
	if (!x->cap)
		return SIZE_MAX;
	for (size_t i = addr_hash(a, x->cap); x->addr[i]; i = (i + 1) & (x->cap - 1))
		if (x->addr[i] == a)
			return x->at[i];
	return SIZE_MAX;
}

static void func_index_free(struct func_index *x)
{
	free(x->addr);
	free(x->at);
	memset(x, 0, sizeof(*x));
}

static int func_index_add(struct func_index *x, uint64_t a, size_t at)
{
	size_t i;

	if (2 * (x->n + 1) > x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 1024;
		struct func_index big = { calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(size_t)),
					  cap, 0 };

		if (!big.addr || !big.at) {
			func_index_free(&big);
			return -1;
		}
		for (i = 0; i < x->cap; i++)
			if (x->addr[i])
				func_index_add(&big, x->addr[i], x->at[i]);
		func_index_free(x);
		*x = big;
	}
	for (i = addr_hash(a, x->cap); x->addr[i] && x->addr[i] != a; i = (i + 1) & (x->cap - 1))
		;
	if (!x->addr[i])
		x->n++;
	x->addr[i] = a;
	x->at[i] = at;
	return 0;
}

/* The set's functions as they are. */
static int func_index_of(const struct coverage *c, struct func_index *x)
{
	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < c->nfuncs; i++)
		if (func_index_add(x, c->funcs[i].addr, i)) {
			func_index_free(x);
			return -1;
		}
	return 0;
}

static bool has_block(const struct coverage *c, uint64_t start)
{
	for (size_t i = 0; i < c->nblocks; i++)
		if (c->blocks[i].start == start)
			return true;
	return false;
}

/* The function's blocks join the set, not yet spliced: all of them, or
 * (lines) those that meet the code of the lines asked and are not in the
 * set yet, as another entry of the function. */
static int add_function(struct session *s, struct coverage *c, struct func_index *x,
			const struct ksym *sym, const struct range *lines, size_t nlines,
			struct gerr *e)
{
	const struct ksym *at;
	struct cov_func *f;

	if (!lines && func_index_find(x, sym->addr) != SIZE_MAX) {
		c->named_already++;
		return 0;
	}
	if (session_cfg(s, sym->addr, &at, e))
		return -1;
	/* grown by doubling: the whole kernel's set is half a million
	 * blocks, and an array grown a function at a time leaves the heap
	 * full of the sizes it outgrew */
	if (grow_room((void **)&c->funcs, &c->funcs_room, c->nfuncs + 1, sizeof(*c->funcs), 64) ||
	    grow_room((void **)&c->blocks, &c->blocks_room, c->nblocks + s->cfg.nblocks,
		      sizeof(*c->blocks), 64))
		return gerr_set(e, "out of memory");
	f = &c->funcs[c->nfuncs++];
	snprintf(f->name, sizeof(f->name), "%s", sym->name);
	f->addr = sym->addr;
	f->first = c->nblocks;
	/* bytes nothing reaches (what decodes after a function's padding)
	 * are no block that could run */
	for (size_t b = 0; b < s->cfg.nblocks; b++) {
		const struct block *bl = &s->cfg.blocks[b];

		if (!bl->reachable ||
		    (lines && (!ranges_meet(lines, nlines, bl->start, bl->end) || has_block(c, bl->start))))
			continue;
		c->blocks[c->nblocks++] = (struct cov_block){ .start = bl->start, .end = bl->end };
	}
	f->n = c->nblocks - f->first;
	if (!f->n) {	/* every block of those lines is in the set already */
		c->nfuncs--;
		if (lines)
			c->named_already++;
		else
			c->named_no_code++;
		return 0;
	}
	if (func_index_add(x, f->addr, c->nfuncs - 1))
		return gerr_set(e, "out of memory");
	return 0;
}

/* Ctrl-C while coverage is being set up: the splices of blocks[from ..]
 * made so far go again, so nothing of the command is left. */
static void unsplice_new(struct session *s, struct coverage *c, size_t from)
{
	/* all in one batch (one pair of grace periods), or, short of memory,
	 * a few at a time */
	size_t room = c->nblocks - from, k = 0;
	uint32_t few[256], *all = room > 256 ? malloc(room * sizeof(*all)) : NULL;
	uint32_t *ids = all ? all : few;
	struct gerr e;

	if (!all)
		room = 256;
	for (size_t i = from; i <= c->nblocks; i++) {
		if (k == room || (i == c->nblocks && k)) {
			live_unsplice_batch(&s->lv, ids, k, &e);
			k = 0;
		}
		if (i < c->nblocks && c->blocks[i].id)
			ids[k++] = c->blocks[i].id;
	}
	free(all);
}

/* Blocks planned and spliced a slice at a time: the plans of the whole
 * kernel at once (2 KB each, and 3.5 KB each request) would not fit in the
 * lab's memory. */
#define CHUNK_BLOCKS 4096

/* Plans blocks[from .. from + n) together (each sees what the others will
 * own, and what the batch spliced before them) and splices what can be.
 * On an error or Ctrl-C the caller unsplices. */
static int splice_slice(struct session *s, struct coverage *c, size_t from, size_t n,
			const struct gilk_filter *filter, struct gerr *e)
{
	struct live_use use = { "count", COVERAGE_MARK, filter, NULL, NULL };
	size_t ngood = 0;
	uint64_t *sites = calloc(n ? n : 1, sizeof(*sites));
	struct splice_plan *plans = calloc(n ? n : 1, sizeof(*plans));
	enum splice_reason *why = calloc(n ? n : 1, sizeof(*why));
	size_t *which = calloc(n ? n : 1, sizeof(*which));
	uint32_t *ids = calloc(n ? n : 1, sizeof(*ids));
	uint64_t *tramps = calloc(n ? n : 1, sizeof(*tramps));
	bool *ok = calloc(n ? n : 1, sizeof(*ok));
	int rc = -1;

	if (!sites || !plans || !why || !which || !ids || !tramps || !ok) {
		gerr_set(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		sites[i] = c->blocks[from + i].site = session_block_site(s, c->blocks[from + i].start);
	live_plan_many(&s->lv, sites, n, 0, plans, ok, why);
	for (size_t i = 0; i < n; i++) {
		c->blocks[from + i].why = why[i];
		if (ok[i]) {
			plans[ngood] = plans[i];
			which[ngood++] = from + i;
		}
	}
	if (ngood && (session_interrupted(s) ||
		      live_splice_batch_made(&s->lv, plans, ngood, &use, 1, ids, tramps, e)))
		goto out;
	session_made(s, ids, plans, tramps, ngood);
	for (size_t i = 0; i < ngood; i++)
		c->blocks[which[i]].id = ids[i];
	if (ngood && live_batch_spliced(&s->lv, plans, ngood, e))
		goto out;
	rc = 0;
out:
	free(sites);
	free(plans);
	free(why);
	free(which);
	free(ids);
	free(tramps);
	free(ok);
	return rc;
}

/* blocks[from ..], CHUNK_BLOCKS at a time, however many the caller added
 * since it last came (one function may bring thousands). */
static int splice_new(struct session *s, struct coverage *c, size_t from,
		      const struct gilk_filter *filter, struct gerr *e)
{
	for (size_t at = from; at < c->nblocks; at += CHUNK_BLOCKS)
		if (splice_slice(s, c, at, c->nblocks - at < CHUNK_BLOCKS ? c->nblocks - at
				 : CHUNK_BLOCKS, filter, e))
			return -1;
	return 0;
}

/* How far it is (output/progress.h): the blocks spliced count only when
 * a line is due. */
static void progress_show(struct progress *p, const char *word, size_t done, size_t nf,
			  const struct coverage *c, size_t from)
{
	size_t spliced = 0;

	if (!progress_due(p))
		return;
	for (size_t i = from; i < c->nblocks; i++)
		spliced += c->blocks[i].id != 0;
	progress_say(p, "coverage %s: %zu of %zu functions read, %zu blocks spliced", word, done,
		     nf, spliced);
}

/*
 * All or nothing: on an error or Ctrl-C, the functions this command added
 * leave the set, and the splices it made go (Ctrl-C is taken here, so the
 * message can say so).
 */
/* What one word of coverage_start() names: functions, and where it names
 * lines, their ranges. */
struct cov_word {
	const struct ksym **f;
	size_t nf;
	struct range *lines;
	size_t nlines;
};

static int word_functions(struct session *s, const char *word, struct cov_word *w,
			  struct gerr *e)
{
	if (lines_is_fileline(word) || lines_is_file(word))
		return lines_word_ranges(s, word, &w->lines, &w->nlines, e) ||
		       lines_functions(s, w->lines, w->nlines, &w->f, &w->nf, e) ? -1 : 0;
	return functions_named(s, word, &w->f, &w->nf, e);
}

/* FACTS for the next functions of a word, FACTS_SLICE at a time: asked
 * together and sorted once, not once a function (each sort moves what
 * was learnt before), while progress is still shown as they go. */
#define FACTS_SLICE 1024

static void slice_facts(struct session *s, const struct cov_word *w, size_t k)
{
	uint64_t a[FACTS_SLICE];
	size_t n = 0;

	for (; k < w->nf && n < FACTS_SLICE; k++)
		if (!n || w->f[k]->addr > a[n - 1])
			a[n++] = w->f[k]->addr;
	live_batch_facts(&s->lv, a, n);
}

int coverage_start(struct session *s, struct coverage *c, char **words,
		   size_t n, const struct gilk_filter *filter, struct gerr *e)
{
	size_t from = c->nblocks, chunk = from, had = c->nfuncs;
	struct cov_word *w = calloc(n ? n : 1, sizeof(*w));
	struct progress pr;
	struct func_index x;
	bool batch = false;
	int rc = 0;

	if (!w)
		return gerr_set(e, "out of memory");
	c->named_already = c->named_no_code = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = word_functions(s, words[i], &w[i], e);
	if (!rc && func_index_of(c, &x))
		rc = gerr_set(e, "out of memory");
	if (rc)
		goto free_words;
	progress_start(&pr);
	/* gilk.ko's splices learnt once: each chunk adds its own after it */
	rc = live_batch_begin(&s->lv, NULL, 0, e);
	batch = !rc;
	for (size_t i = 0; i < n && !rc; i++) {
		for (size_t k = 0; !rc && k < w[i].nf && !session_interrupted(s); k++) {
			if (k % FACTS_SLICE == 0)
				slice_facts(s, &w[i], k);
			rc = add_function(s, c, &x, w[i].f[k], w[i].lines, w[i].nlines, e);
			if (!rc && c->nblocks - chunk >= CHUNK_BLOCKS) {
				rc = splice_new(s, c, chunk, filter, e);
				chunk = c->nblocks;
				progress_show(&pr, words[i], k + 1, w[i].nf, c, from);
			}
		}
	}
	if (!rc && !session_interrupted(s))
		rc = splice_new(s, c, chunk, filter, e);
	if (batch)
		live_batch_end(&s->lv);
	func_index_free(&x);
	progress_end(&pr);
	if (!rc && !session_interrupted(s))
		goto free_words;
	unsplice_new(s, c, from);
	if (session_interrupted(s)) {
		interrupt_clear();
		rc = gerr_set(e, "coverage interrupted: %zu functions read, nothing spliced",
			      c->nfuncs - had);
	}
	c->nfuncs = had;
	c->nblocks = from;
free_words:
	for (size_t i = 0; i < n; i++) {
		free(w[i].f);
		free(w[i].lines);
	}
	free(w);
	return rc;
}

/* Its blocks' splice sites (add_function() leaves them to the caller). */
static void block_sites(struct session *s, struct coverage *c, const struct cov_func *f)
{
	for (size_t i = f->first; i < f->first + f->n; i++)
		c->blocks[i].site = session_block_site(s, c->blocks[i].start);
}

/* A block that could be spliced and is not was not in the set (coverage
 * of lines takes some of a function's blocks), or left it: it goes. */
static void drop_unspliced(struct coverage *c)
{
	size_t k = 0, nf = 0;

	for (size_t i = 0; i < c->nfuncs; i++) {
		struct cov_func *f = &c->funcs[i];
		size_t first = k;

		for (size_t b = f->first; b < f->first + f->n; b++)
			if (c->blocks[b].id || c->blocks[b].why != SPLICE_OK)
				c->blocks[k++] = c->blocks[b];
		if (k == first)
			continue;
		c->funcs[nf] = *f;
		c->funcs[nf].first = first;
		c->funcs[nf].n = k - first;
		nf++;
	}
	c->nblocks = k;
	c->nfuncs = nf;
}

/* Why each block of the set without a splice was not spliced, as the
 * planner finds now, a chunk at a time (whose plans are not kept). */
static int refusals_now(struct session *s, struct coverage *c, struct gerr *e)
{
	uint64_t *sites = calloc(CHUNK_BLOCKS, sizeof(*sites));
	size_t *which = calloc(CHUNK_BLOCKS, sizeof(*which));
	struct splice_plan *plans = calloc(CHUNK_BLOCKS, sizeof(*plans));
	enum splice_reason *why = calloc(CHUNK_BLOCKS, sizeof(*why));
	bool *ok = calloc(CHUNK_BLOCKS, sizeof(*ok));
	int rc = -1;

	if (!sites || !which || !plans || !why || !ok) {
		gerr_set(e, "out of memory");
		goto out;
	}
	for (size_t b = 0, k = 0; b <= c->nblocks; b++) {
		if (k == CHUNK_BLOCKS || (b == c->nblocks && k)) {
			live_plan_many(&s->lv, sites, k, 0, plans, ok, why);
			for (size_t i = 0; i < k; i++)
				c->blocks[which[i]].why = ok[i] ? SPLICE_OK : why[i];
			k = 0;
		}
		if (b < c->nblocks && !c->blocks[b].id) {
			which[k] = b;
			sites[k++] = c->blocks[b].site;
		}
	}
	rc = 0;
out:
	free(sites);
	free(which);
	free(plans);
	free(why);
	free(ok);
	return rc;
}

/* The coverage splices among gilk.ko's: where each is and its id, all a
 * new session needs of half a million (not their 120-byte briefs). */
struct marked_one {
	uint64_t site;
	uint32_t id;
};

struct marked {
	struct marked_one *b;
	size_t n, cap;
	bool oom;
};

static int keep_marked(void *ctx, const struct gilk_brief *b)
{
	struct marked *m = ctx;

	if (strcmp(b->instrument, "count") || strcmp(b->arg, COVERAGE_MARK))
		return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct marked_one *more = realloc(m->b, cap * sizeof(*more));

		if (!more) {
			m->oom = true;
			return -1;
		}
		m->b = more;
		m->cap = cap;
	}
	m->b[m->n++] = (struct marked_one){ b->site, b->id };
	return 0;
}

/* FACTS about every function the splices are in, asked at once and sorted
 * once (not once a function: a whole kernel's are tens of thousands). Out
 * of memory, each function asks for itself as it is read. */
static void adopt_facts(struct session *s, const struct marked *all)
{
	uint64_t *fa = malloc((all->n ? all->n : 1) * sizeof(*fa));
	size_t n = 0;
	uint64_t start;

	if (!fa)
		return;
	for (size_t i = 0; i < all->n; i++)
		if (!symtab_function(s->k->syms, all->b[i].site, NULL, &start, NULL))
			fa[n++] = start;
	n = u64_sort_unique(fa, n);
	live_batch_facts(&s->lv, fa, n);
	free(fa);
}

int coverage_adopt(struct session *s, struct coverage *c, struct gerr *e)
{
	struct marked all = { 0 };
	struct func_index x;
	int rc = -1;

	if (live_each_brief(&s->lv, keep_marked, &all, e)) {
		free(all.b);
		return all.oom ? gerr_set(e, "out of memory") : -1;
	}
	if (func_index_of(c, &x)) {
		free(all.b);
		return gerr_set(e, "out of memory");
	}
	/* gilk.ko's splices learnt once for every function's CFG and sites,
	 * not listed again for each */
	if (live_batch_begin(&s->lv, NULL, 0, e)) {
		func_index_free(&x);
		free(all.b);
		return -1;
	}
	adopt_facts(s, &all);
	for (size_t i = 0; i < all.n; i++) {
		const struct marked_one *one = &all.b[i];
		const struct ksym *sym;
		const struct cov_func *f;
		size_t at;

		if (symtab_function(s->k->syms, one->site, &sym, NULL, NULL))
			continue;
		at = func_index_find(&x, sym->addr);
		if (at == SIZE_MAX) {
			if (add_function(s, c, &x, sym, NULL, 0, e))
				goto out;
			at = c->nfuncs - 1;
			block_sites(s, c, &c->funcs[at]);
		}
		f = &c->funcs[at];
		for (size_t b = f->first; b < f->first + f->n; b++)
			if (c->blocks[b].site == one->site)
				c->blocks[b].id = one->id;
	}
	/* the blocks it did not splice: why, as it found then */
	if (refusals_now(s, c, e))
		goto out;
	drop_unspliced(c);
	rc = 0;
out:
	live_batch_end(&s->lv);
	if (rc)
		coverage_free(c);
	func_index_free(&x);
	free(all.b);
	return rc;
}

/* A block's splice, by id: gilk.ko lists its splices in id order. */
struct id_at {
	uint32_t id;
	size_t block;
};

static int by_id(const void *a, const void *b)
{
	uint32_t x = ((const struct id_at *)a)->id, y = ((const struct id_at *)b)->id;

	return x < y ? -1 : x > y;
}

/* The set's blocks met in gilk.ko's list, walked along it. */
struct hits_walk {
	struct coverage *c;
	const struct id_at *at;
	size_t n, k;
	bool reset;
};

/* A splice removed by other means leaves the set. */
static void gone(struct coverage *c, size_t block)
{
	c->blocks[block].id = 0;
	c->blocks[block].why = SPLICE_OK;     /* spliced once, gone since */
}

static int take_hits(void *ctx, const struct gilk_brief *in)
{
	struct hits_walk *w = ctx;

	for (; w->k < w->n && w->at[w->k].id < in->id; w->k++)
		gone(w->c, w->at[w->k].block);
	if (w->k < w->n && w->at[w->k].id == in->id) {
		struct cov_block *b = &w->c->blocks[w->at[w->k++].block];

		if (in->site != b->site) {	/* its id given to another */
			gone(w->c, w->at[w->k - 1].block);
			return 0;
		}
		if (w->reset)
			b->base = in->hits;
		b->hits = in->hits - b->base;
	}
	return 0;
}

/* Each block's splice's hits (since the last reset), with reset: the
 * baseline moves to now; gilk.ko's splices read in brief, a page at a
 * time, however many there are. */
static int read_hits(struct session *s, struct coverage *c, bool reset, struct gerr *e)
{
	struct hits_walk w = { .c = c, .reset = reset };
	struct id_at *at = malloc((c->nblocks + 1) * sizeof(*at));
	int rc;

	if (!at)
		return gerr_set(e, "out of memory");
	for (size_t i = 0; i < c->nblocks; i++)
		if (c->blocks[i].id)
			at[w.n++] = (struct id_at){ c->blocks[i].id, i };
	qsort(at, w.n, sizeof(*at), by_id);
	w.at = at;
	rc = live_each_brief(&s->lv, take_hits, &w, e);
	if (!rc)
		for (; w.k < w.n; w.k++)
			gone(c, at[w.k].block);
	free(at);
	return rc;
}

int coverage_read(struct session *s, struct coverage *c, struct gerr *e)
{
	return read_hits(s, c, false, e);
}

int coverage_reset(struct session *s, struct coverage *c, struct gerr *e)
{
	return read_hits(s, c, true, e);
}

int coverage_stop(struct session *s, struct coverage *c, struct gerr *e)
{
	uint32_t *ids = calloc(c->nblocks ? c->nblocks : 1, sizeof(*ids));
	size_t n = 0;
	int rc = 0;

	if (!ids)
		return gerr_set(e, "out of memory");
	if (read_hits(s, c, false, e)) {
		free(ids);
		return -1;
	}
	for (size_t i = 0; i < c->nblocks; i++)
		if (c->blocks[i].id)
			ids[n++] = c->blocks[i].id;
	if (n)
		rc = live_unsplice_batch(&s->lv, ids, n, e);
	free(ids);
	if (!rc)
		coverage_free(c);
	return rc;
}

int coverage_session_set(struct session *s, bool running, struct gerr *e)
{
	if (!s->cov && !(s->cov = calloc(1, sizeof(*s->cov))))
		return gerr_set(e, "out of memory");
	if (!s->cov->nfuncs && coverage_adopt(s, s->cov, e))
		return -1;
	if (running && !s->cov->nfuncs)
		return gerr_set(e, "no coverage running: \"coverage FUNC|GLOB|FILE...\" starts one");
	return 0;
}

void coverage_free(struct coverage *c)
{
	free(c->funcs);
	free(c->blocks);
	memset(c, 0, sizeof(*c));
}

struct cov_count {
	size_t blocks, spliceable, refused, hit;
};

static struct cov_count count_of(const struct coverage *c, const struct cov_func *f)
{
	struct cov_count k = { .blocks = f->n };

	for (size_t i = f->first; i < f->first + f->n; i++) {
		const struct cov_block *b = &c->blocks[i];

		if (b->id) {
			k.spliceable++;
			k.hit += b->hits > 0;
		} else if (b->why != SPLICE_OK) {
			k.refused++;
		}
	}
	return k;
}

static void add_count(struct cov_count *t, const struct cov_count *k)
{
	t->blocks += k->blocks;
	t->spliceable += k->spliceable;
	t->refused += k->refused;
	t->hit += k->hit;
}

static const char *refusal_of(const struct cov_block *b)
{
	return b->why == SPLICE_OK ? "removed" : splice_reason_name(b->why);
}

static void write_text(FILE *out, const struct coverage *c)
{
	struct cov_count t = { 0 };

	fprintf(out, "%-40s %8s %11s %8s\n", "function", "hit", "spliceable", "refused");
	for (size_t i = 0; i < c->nfuncs; i++) {
		struct cov_count k = count_of(c, &c->funcs[i]);

		fprintf(out, "%-40s %8zu %11zu %8zu\n", c->funcs[i].name, k.hit, k.spliceable, k.refused);
		add_count(&t, &k);
	}
	fprintf(out, "%-40s %8zu %11zu %8zu", "total", t.hit, t.spliceable, t.refused);
	if (t.spliceable)
		fprintf(out, "   %.1f%% of %zu spliceable blocks ran (%zu functions, %zu blocks)",
			100.0 * (double)t.hit / (double)t.spliceable, t.spliceable, c->nfuncs, t.blocks);
	fputc('\n', out);
}

static void write_csv(FILE *out, const struct coverage *c)
{
	fprintf(out, "function,block,site,splice,hits,refused\n");
	for (size_t i = 0; i < c->nfuncs; i++) {
		const struct cov_func *f = &c->funcs[i];

		for (size_t j = f->first; j < f->first + f->n; j++) {
			const struct cov_block *b = &c->blocks[j];

			fprintf(out, "%s,0x%" PRIx64 ",0x%" PRIx64 ",", f->name, b->start, b->site);
			if (b->id)
				fprintf(out, "%u,%" PRIu64 ",\n", b->id, b->hits);
			else
				fprintf(out, ",,%s\n", refusal_of(b));
		}
	}
}

static void write_json(FILE *out, const struct coverage *c)
{
	struct cov_count t = { 0 };

	fprintf(out, "{\"functions\": [");
	for (size_t i = 0; i < c->nfuncs; i++) {
		const struct cov_func *f = &c->funcs[i];
		struct cov_count k = count_of(c, f);

		add_count(&t, &k);
		/* kernel function names need no escaping: [A-Za-z0-9_.] */
		fprintf(out, "%s\n {\"name\": \"%s\", \"address\": \"0x%" PRIx64 "\", \"blocks\": %zu, \"hit\": %zu, \"spliceable\": %zu, \"refused\": %zu, \"block_list\": [",
			i ? "," : "", f->name, f->addr, k.blocks, k.hit, k.spliceable, k.refused);
		for (size_t j = f->first; j < f->first + f->n; j++) {
			const struct cov_block *b = &c->blocks[j];

			fprintf(out, "%s{\"start\": \"0x%" PRIx64 "\", \"site\": \"0x%" PRIx64 "\", ",
				j > f->first ? ", " : "", b->start, b->site);
			if (b->id)
				fprintf(out, "\"splice\": %u, \"hits\": %" PRIu64 "}", b->id, b->hits);
			else
				fprintf(out, "\"refused\": \"%s\"}", refusal_of(b));
		}
		fprintf(out, "]}");
	}
	fprintf(out, "],\n \"total\": {\"functions\": %zu, \"blocks\": %zu, \"hit\": %zu, \"spliceable\": %zu, \"refused\": %zu}}\n",
		c->nfuncs, t.blocks, t.hit, t.spliceable, t.refused);
}

void coverage_write(FILE *out, enum format f, const struct coverage *c)
{
	if (f == FMT_CSV)
		write_csv(out, c);
	else if (f == FMT_JSON)
		write_json(out, c);
	else
		write_text(out, c);
}
