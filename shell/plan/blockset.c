/* blockset: the blocks of several functions, planned together (see blockset.h). */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/blockset.h"
#include "session/lines.h"

static bool is_glob(const char *a)
{
	return strpbrk(a, "*?[") != NULL;
}

static int add_fn(struct blockset *bs, size_t *cap, const struct ksym *sym)
{
	if (bs->nfns == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct blockset_fn *f = realloc(bs->fns, n * sizeof(*f));

		if (!f)
			return -1;
		bs->fns = f;
		*cap = n;
	}
	memset(&bs->fns[bs->nfns], 0, sizeof(bs->fns[0]));
	bs->fns[bs->nfns++].sym = sym;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct blockset_fn *x = a, *y = b;

	return x->sym->addr < y->sym->addr ? -1 : x->sym->addr > y->sym->addr;
}

/* NAME@*: every function of that name (static functions share names). */
static bool every_copy(const char *a)
{
	size_t n = strlen(a);

	return n > 2 && !strcmp(a + n - 2, "@*") && !strpbrk(a, "?[") && !memchr(a, '*', n - 1);
}

static int add_copies(struct session *s, struct blockset *bs, size_t *cap, const char *arg,
		      size_t *matched, struct gerr *e)
{
	size_t n, len = strlen(arg) - 2;
	char *name = strndup(arg, len);
	const struct ksym **hits;
	int rc = 0;

	if (!name)
		return gerr_set(e, "out of memory");
	n = symtab_by_name(s->k->syms, name, NULL, 0);
	hits = calloc(n + 1, sizeof(*hits));
	if (!hits) {
		free(name);
		return gerr_set(e, "out of memory");
	}
	symtab_by_name(s->k->syms, name, hits, n);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct ksym *sym;
		uint64_t fs;

		if (!ksym_is_text(hits[i]) ||
		    symtab_function(s->k->syms, hits[i]->addr, &sym, &fs, NULL) ||
		    fs != hits[i]->addr || !session_is_text(s, fs))
			continue;
		rc = add_fn(bs, cap, sym) ? gerr_set(e, "out of memory") : 0;
		(*matched)++;
	}
	free(hits);
	free(name);
	return rc;
}

/* FILE:LINE: the functions its code is in, only those blocks. */
static int add_lines(struct session *s, struct blockset *bs, size_t *cap,
		     const char *arg, size_t *matched, struct gerr *e)
{
	const struct ksym **fns;
	struct range *r, *all;
	size_t n, nf;

	if (lines_word_ranges(s, arg, &r, &n, e))
		return -1;
	all = realloc(bs->lines, (bs->nlines + n) * sizeof(*all));
	if (!all) {
		free(r);
		return gerr_set(e, "out of memory");
	}
	memcpy(all + bs->nlines, r, n * sizeof(*r));
	bs->lines = all;
	bs->nlines += n;
	if (lines_functions(s, r, n, &fns, &nf, e)) {
		free(r);
		return -1;
	}
	free(r);
	for (size_t i = 0; i < nf; i++) {
		if (add_fn(bs, cap, fns[i])) {
			free(fns);
			return gerr_set(e, "out of memory");
		}
		bs->fns[bs->nfns - 1].some = true;
	}
	free(fns);
	*matched = nf;
	if (!nf)
		return gerr_set(e, "the code of %s is in no function that can be spliced (init code is gone after boot)",
				arg);
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Every function one argument names; *matched how many. */
static int add_arg(struct session *s, struct blockset *bs, size_t *cap,
		   const char *arg, size_t *matched, struct gerr *e)
{
	const struct ksym *sym;
	uint64_t addr;

	*matched = 0;
	if (lines_is_fileline(arg) || lines_is_file(arg))
		return add_lines(s, bs, cap, arg, matched, e);
	if (every_copy(arg))
		return add_copies(s, bs, cap, arg, matched, e);
	if (!is_glob(arg)) {
		if (session_resolve(s, arg, &addr, e))
			return -1;
		if (symtab_function(s->k->syms, addr, &sym, NULL, NULL))
			return gerr_set(e, "%s is not inside a kernel function", arg);
		*matched = 1;
		return add_fn(bs, cap, sym) ? gerr_set(e, "out of memory") : 0;
	}
	for (size_t i = 0; i < symtab_count(s->k->syms); i++) {
		const struct ksym *k = symtab_at(s->k->syms, i);
		uint64_t fs;

		/* a text function's own start (aliases collapse below) */
		if (!ksym_is_text(k) || fnmatch(arg, k->name, 0) ||
		    symtab_function(s->k->syms, k->addr, &sym, &fs, NULL) || fs != k->addr ||
		    !session_is_text(s, fs))
			continue;
		if (add_fn(bs, cap, sym))
			return gerr_set(e, "out of memory");
		(*matched)++;
	}
	return 0;
}

static int add_sites(struct session *s, struct blockset *bs, struct blockset_fn *f,
		     size_t *cap, struct gerr *e)
{
	const struct ksym *sym;

	if (session_cfg(s, f->sym->addr, &sym, e))
		return -1;
	if (bs->nsites + s->cfg.nblocks > *cap) {
		size_t n = (*cap ? *cap * 2 : 1024) + s->cfg.nblocks;
		uint64_t *m = realloc(bs->sites, n * sizeof(*m));

		if (!m)
			return gerr_set(e, "out of memory");
		bs->sites = m;
		*cap = n;
	}
	f->first = bs->nsites;
	for (size_t b = 0; b < s->cfg.nblocks; b++) {
		const struct block *bl = &s->cfg.blocks[b];

		if (!f->some || ranges_meet(bs->lines, bs->nlines, bl->start, bl->end))
			bs->sites[bs->nsites++] = session_block_site(s, bl->start);
	}
	f->nblocks = bs->nsites - f->first;
	return 0;
}

/* Live: splices learnt once, FACTS for all the functions asked at once. */
static int start_batch(struct session *s, struct blockset *bs, struct gerr *e)
{
	uint64_t *starts = calloc(bs->nfns + 1, sizeof(*starts));
	int rc;

	if (!starts)
		return gerr_set(e, "out of memory");
	for (size_t i = 0; i < bs->nfns; i++)
		starts[i] = bs->fns[i].sym->addr;
	rc = live_batch_begin(&s->lv, starts, bs->nfns, e);
	free(starts);
	if (!rc)
		bs->lv = &s->lv;
	return rc;
}

int blockset_collect(struct session *s, char *const *args, int nargs,
		     struct blockset *bs, struct gerr *e)
{
	size_t cap = 0, sites_cap = 0, matched, keep = 0;

	memset(bs, 0, sizeof(*bs));
	progress_start(&bs->pr);
	for (int i = 0; i < nargs; i++) {
		if (add_arg(s, bs, &cap, args[i], &matched, e))
			goto fail;
		if (!matched) {
			gerr_set(e, "no kernel function matches '%s'", args[i]);
			goto fail;
		}
	}
	qsort(bs->fns, bs->nfns, sizeof(*bs->fns), by_addr);
	for (size_t i = 0; i < bs->nfns; i++) {	/* each function once */
		if (!keep || bs->fns[i].sym->addr != bs->fns[keep - 1].sym->addr)
			bs->fns[keep++] = bs->fns[i];
		else if (!bs->fns[i].some)	/* whole, if asked whole once */
			bs->fns[keep - 1].some = false;
	}
	bs->nfns = keep;
	if (bs->nlines) {	/* sorted and merged, for ranges_meet() */
		size_t m = 0;

		qsort(bs->lines, bs->nlines, sizeof(*bs->lines), by_start);
		for (size_t i = 0; i < bs->nlines; i++) {
			if (m && bs->lines[i].start <= bs->lines[m - 1].end) {
				if (bs->lines[i].end > bs->lines[m - 1].end)
					bs->lines[m - 1].end = bs->lines[i].end;
			} else {
				bs->lines[m++] = bs->lines[i];
			}
		}
		bs->nlines = m;
	}
	if (s->live && start_batch(s, bs, e))
		goto fail;
	for (size_t i = 0; i < bs->nfns; i++) {
		if (session_interrupted(s)) {
			gerr_set(e, "interrupted");
			goto fail;
		}
		if (add_sites(s, bs, &bs->fns[i], &sites_cap, e))
			goto fail;
		progress_say(&bs->pr, "%zu of %zu functions read, %zu blocks", i + 1, bs->nfns,
			     bs->nsites);
	}
	return 0;
fail:
	blockset_free(bs);
	return -1;
}

int blockset_plan(struct session *s, struct blockset *bs, struct gerr *e)
{
	bool *ok = calloc(bs->nsites + 1, sizeof(*ok));
	enum splice_reason *why = calloc(bs->nsites + 1, sizeof(*why));
	size_t good = 0;

	bs->plans = calloc(bs->nsites + 1, sizeof(*bs->plans));
	if (!ok || !why || !bs->plans) {
		free(ok);
		free(why);
		return gerr_set(e, "out of memory");
	}
	blockset_progress(bs, "planning");
	if (s->live) {
		live_plan_many(&s->lv, bs->sites, bs->nsites, 0, bs->plans, ok, why);
	} else {
		struct gerr pe;

		for (size_t i = 0; i < bs->nsites; i++) {
			ok[i] = session_plan(s, bs->sites[i], 0, &bs->plans[i], &pe) == 0;
			why[i] = bs->plans[i].reason;
		}
	}
	for (size_t f = 0; f < bs->nfns; f++) {
		struct blockset_fn *fn = &bs->fns[f];

		for (size_t i = fn->first; i < fn->first + fn->nblocks; i++) {
			if (!ok[i]) {
				fn->refused[why[i]]++;
				continue;
			}
			fn->ok++;
			if (good != i)
				bs->plans[good] = bs->plans[i];
			good++;
		}
	}
	bs->ngood = good;
	free(ok);
	free(why);
	return 0;
}

void blockset_report(struct session *s, const struct blockset *bs,
		     const char *verb)
{
	for (size_t f = 0; f < bs->nfns; f++) {
		const struct blockset_fn *fn = &bs->fns[f];
		const char *sep = ", refused:";

		/* a name several functions share is said as they are asked for */
		if (symtab_by_name(s->k->syms, fn->sym->name, NULL, 0) > 1)
			fprintf(s->out, "%s@0x%" PRIx64 ": %zu of %zu blocks %s", fn->sym->name,
				fn->sym->addr, fn->ok, fn->nblocks, verb);
		else
			fprintf(s->out, "%s: %zu of %zu blocks %s", fn->sym->name, fn->ok,
				fn->nblocks, verb);
		for (int r = 1; r < SR_NREASONS; r++)
			if (fn->refused[r]) {
				fprintf(s->out, "%s %zu %s", sep, fn->refused[r],
					splice_reason_name((enum splice_reason)r));
				sep = ",";
			}
		fprintf(s->out, "\n");
	}
}

void blockset_progress(struct blockset *bs, const char *what)
{
	progress_say(&bs->pr, "%zu functions read: %s %zu blocks", bs->nfns, what, bs->nsites);
}

void blockset_free(struct blockset *bs)
{
	progress_end(&bs->pr);
	if (bs->lv)
		live_batch_end(bs->lv);
	free(bs->fns);
	free(bs->sites);
	free(bs->plans);
	free(bs->lines);
	memset(bs, 0, sizeof(*bs));
}
