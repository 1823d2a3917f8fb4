/* What gilk.ko knows of the text (see live_internal.h): FACTS asked once per
 * range and merged, module text read when planned there. */
#include "live_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "u64set.h"

/* The bytes one plan around [lo, hi) must leave alone: gilk.ko's splices
 * there (the sorted list, searched) and the batch's earlier plans (a sliding
 * window over plans made in address order). A splice's bytes are within a
 * bounce's reach of its site, so nothing further away matters. */
int lv_near_ranges(struct live *lv, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = lv->noccupied;

	lv->nnear = 0;
	while (a < b) {	/* the first splice starting at or above lo - 2 * REACH */
		size_t m = a + (b - a) / 2;

		if (lv->occupied[m].start + 2 * REACH < lo)
			a = m + 1;
		else
			b = m;
	}
	for (; a < lv->noccupied && lv->occupied[a].start < hi; a++)
		if (lv->occupied[a].end > lo &&
		    lv_push_range(&lv->near, &lv->nnear, lv->occupied[a].start, lv->occupied[a].end))
			return -1;
	while (lv->pending_first < lv->npending &&
	       lv->pending_site[lv->pending_first] + 2 * REACH < lo)
		lv->pending_first++;
	for (size_t i = lv->pending_first; i < lv->npending; i++)
		if (lv->pending[i].start < hi && lv->pending[i].end > lo &&
		    lv_push_range(&lv->near, &lv->nnear, lv->pending[i].start, lv->pending[i].end))
			return -1;
	return 0;
}

/* A fact's kind is the planner's reservation of the same number. */
_Static_assert(RES_JUMP_LABEL == GILK_RES_JUMP_LABEL && RES_STATIC_CALL == GILK_RES_STATIC_CALL &&
	       RES_FTRACE == GILK_RES_FTRACE && RES_EXTABLE == GILK_RES_EXTABLE &&
	       RES_BLACKLIST == GILK_RES_BLACKLIST && RES_KPROBE == GILK_RES_KPROBE &&
	       RES_SMP_LOCK == GILK_RES_SMP_LOCK && RES_OWN_PATH == GILK_RES_OWN_PATH &&
	       RES_EARLY_CPU == GILK_RES_EARLY_CPU && RES_RCU_IDLE == GILK_RES_RCU_IDLE &&
	       RES_GILK_CODE == GILK_RES_GILK_CODE,
	       "core/'s reservation kinds are numbered as gilk.ko's facts");

static int add_fact(struct textfacts *tf, const struct gilk_fact *f)
{
	switch (f->kind) {
	case GILK_FACT_TARGET:
		return textfacts_add_target(tf, f->start);
	case GILK_FACT_BUG:
	case GILK_FACT_WARN:
		/* gilk.ko runs on x86-64: the trap is a 2-byte ud2 */
		return textfacts_add_bug(tf, f->start, 2, f->kind == GILK_FACT_WARN);
	default:
		/* a kind this planner does not know is left out */
		if (f->kind <= GILK_RES_GILK_CODE)
			return textfacts_add_range(tf, f->start, f->end, (enum res_kind)f->kind);
		return 0;
	}
}

/* ftrace sites, blacklist, kprobes and modules' tables live only in gilk.ko's
 * view. Added unsorted: lv_ensure_sorted() sorts once before planning. */
static int ask_facts(struct live *lv, uint64_t lo, uint64_t hi, struct gerr *e)
{
	struct gilk_fact few[256], *f = few;
	struct gilk_facts q = { .start = lo, .end = hi, .max = 256,
				.buf = (uintptr_t)few };
	int rc = 0;

	if (ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0)
		return gerr_setc(e, errno, "asking gilk.ko about 0x%llx: %s",
				(unsigned long long)lo, strerror(errno));
	if (q.count > q.max) {
		/* More than fit: ask again with room for all of them. */
		if (q.count > GILK_FACTS_MAX)
			return gerr_set(e, "0x%llx..0x%llx holds %u facts, more than gilk.ko reports at once",
					(unsigned long long)lo, (unsigned long long)hi, q.count);
		q.max = q.count;
		f = calloc(q.max, sizeof(*f));
		q.buf = (uintptr_t)f;
		if (!f)
			return gerr_setc(e, ENOMEM, "out of memory");
		if (ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0 || q.count > q.max) {
			free(f);
			return gerr_setc(e, errno, "asking gilk.ko about 0x%llx: %s",
					(unsigned long long)lo, strerror(errno));
		}
	}
	for (uint32_t i = 0; i < q.count && i < q.max && !rc; i++)
		rc = add_fact(lv->k.facts, &f[i]);
	if (f != few)
		free(f);
	if (rc)
		return gerr_setc(e, ENOMEM, "out of memory");
	lv->facts_unsorted = true;
	lv->gen++;
	return 0;
}

struct learnt_key {
	const struct live *lv;
	uint64_t at;
};

static bool learnt_ends_below(const void *ctx, size_t i)
{
	const struct learnt_key *k = ctx;

	return k->lv->learnt[i].end < k->at;
}

/* The first learnt range that ends at or past at (a whole kernel's
 * functions are tens of thousands of ranges, looked up once each). */
static size_t learnt_from(const struct live *lv, uint64_t at)
{
	struct learnt_key k = { lv, at };

	return u64_partition(lv->nlearnt, learnt_ends_below, &k);
}

/* Marks [lo, hi) as answered, keeping lv->learnt sorted and merged. */
static int mark_learnt(struct live *lv, uint64_t lo, uint64_t hi)
{
	size_t i = learnt_from(lv, lo), j;

	for (j = i; j < lv->nlearnt && lv->learnt[j].start <= hi; j++) {
		lo = lv->learnt[j].start < lo ? lv->learnt[j].start : lo;
		hi = lv->learnt[j].end > hi ? lv->learnt[j].end : hi;
	}
	if (j == i) {	/* overlaps none: a new one at i */
		if (lv_push_range(&lv->learnt, &lv->nlearnt, 0, 0))
			return -1;
		memmove(&lv->learnt[i + 1], &lv->learnt[i],
			(lv->nlearnt - 1 - i) * sizeof(*lv->learnt));
	} else {	/* i..j-1 become one */
		memmove(&lv->learnt[i + 1], &lv->learnt[j],
			(lv->nlearnt - j) * sizeof(*lv->learnt));
		lv->nlearnt -= j - i - 1;
	}
	lv->learnt[i] = (struct range){ lo, hi };
	return 0;
}

/* Asks FACTS about the parts of [lo, hi) not answered before. */
int lv_learn_facts(struct live *lv, uint64_t lo, uint64_t hi, struct gerr *e)
{
	uint64_t at = lo;

	for (size_t i = learnt_from(lv, lo); i < lv->nlearnt && at < hi; i++) {
		const struct range *r = &lv->learnt[i];

		if (r->end <= at)
			continue;
		if (r->start >= hi)
			break;
		if (r->start > at && ask_facts(lv, at, r->start, e))
			return -1;
		at = r->end;
	}
	if (at < hi && ask_facts(lv, at, hi, e))
		return -1;
	return mark_learnt(lv, lo, hi) ? gerr_setc(e, ENOMEM, "out of memory") : 0;
}

void lv_ensure_sorted(struct live *lv)
{
	if (lv->facts_unsorted)
		textfacts_finish(lv->k.facts);
	lv->facts_unsorted = false;
}

/* Where fs is named, and why nothing runs there: init code is freed once
 * the kernel (or its module) has booted, and kallsyms still names it. */
static int not_text(struct live *lv, uint64_t fs, struct gerr *e)
{
	const struct ksym *a, *b;
	char name[256];

	symtab_format(lv->k.syms, fs, name, sizeof(name));
	if (symtab_by_name(lv->k.syms, "_sinittext", &a, 1) == 1 &&
	    symtab_by_name(lv->k.syms, "_einittext", &b, 1) == 1 && fs >= a->addr && fs < b->addr)
		return gerr_set(e, "%s (0x%llx) is the kernel's init code, freed after boot: nothing runs there now",
				name, (unsigned long long)fs);
	return gerr_set(e, "%s (0x%llx) is not kernel or module text now", name,
			(unsigned long long)fs);
}

/* Module text is not in the snapshot taken at open: read the site's function
 * (modules come and go, so again each time) before planning there. */
int lv_snapshot_module_text(struct live *lv, uint64_t fs, uint64_t fe,
				struct gerr *e)
{
	struct gilk_facts q = { .start = fs, .end = fe };

	if (ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0 || q.text != GILK_TEXT_MODULE)
		return not_text(lv, fs, e);
	if (kimage_copy_range(lv->k.img, lv->kcore, "module", fs, fe - fs, e))
		return -1;
	lv_unsplice_snapshot(lv, fs, fe);
	return 0;
}

int live_text_kind(struct live *lv, uint64_t addr)
{
	struct gilk_facts q = { .start = addr, .end = addr + 1 };

	if (addr >= lv->k.text_start && addr < lv->k.text_end)
		return GILK_TEXT_KERNEL;
	return ioctl(lv->fd, GILK_IOC_FACTS, &q) < 0 ? GILK_TEXT_NONE : (int)q.text;
}

int live_load_text(struct live *lv, uint64_t addr, struct gerr *e)
{
	uint64_t fs, fe;

	if (symtab_function(lv->k.syms, addr, NULL, &fs, &fe))
		return gerr_set(e, "0x%llx is not inside a kernel function",
				(unsigned long long)addr);
	/* The original bytes under every splice, whoever made it: code is
	 * shown as it was, with its splices marked, not as their jumps. */
	if (addr >= lv->k.text_start && addr < lv->k.text_end)
		return lv->batch ? 0 : lv_learn_splices(lv, e);
	/* A module's facts (WARN continuations, fixup landings) are edges
	 * its CFG needs: ask before it is built. */
	if (lv_snapshot_module_text(lv, fs, fe, e) || (!lv->batch && lv_learn_splices(lv, e)) ||
	    lv_learn_facts(lv, fs, fe, e))
		return -1;
	lv_ensure_sorted(lv);
	return 0;
}

/* The range FACTS is asked about for a site in [fs, fe): the function and
 * whatever a bounce from any of its blocks may reach; in a module, only the
 * function (its neighbours may not be text). */
void lv_facts_range(const struct live *lv, uint64_t fs, uint64_t fe,
			uint64_t *lo, uint64_t *hi)
{
	bool module = fs < lv->k.text_start || fs >= lv->k.text_end;

	*lo = module ? fs : fs - REACH;
	*hi = module ? fe : fe + REACH;
}

/* FACTS for the functions of n addresses (ascending) first, sorted once
 * after. */
void lv_learn_batch_facts(struct live *lv, const uint64_t *addrs,
			      const size_t *order, size_t n)
{
	uint64_t fs, fe, lo, hi, last = 0;
	struct gerr e;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = addrs[order ? order[i] : i];

		if (a < last || symtab_function(lv->k.syms, a, NULL, &fs, &fe) ||
		    fs < lv->k.text_start || fs >= lv->k.text_end)
			continue;	/* module text: prepare() reads it */
		last = fe;
		lv_facts_range(lv, fs, fe, &lo, &hi);
		if (lv_learn_facts(lv, lo, hi, &e))
			break;	/* prepare() asks again, and says why */
	}
	lv_ensure_sorted(lv);
}
