/*
 * Scale: every block of every function a glob matches,
 * well over 256 splices, in one batch; the trampolines packed many to a
 * page, each sized to what it holds, the memory per splice read from
 * gilk.ko; a batch as large refused whole when its last request is bad;
 * unsplice of them all in one batch leaving nothing (no splice, no
 * reservation, no trampoline byte, freed trampoline memory int3 again).
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "guest.h"

struct many {
	uint64_t *sites;
	struct splice_plan *plans;
	bool *ok;
	enum splice_reason *why;
	size_t n, good;
};

/* The first block site of every block of every function matching glob. */
static void collect(struct live *lv, const char *glob, struct many *m)
{
	static struct cfg g;
	size_t cap = 0;
	struct gerr e;

	for (size_t i = 0; i < symtab_count(lv->k.syms); i++) {
		const struct ksym *s = symtab_at(lv->k.syms, i);
		uint64_t fs;

		if (!ksym_is_text(s) || fnmatch(glob, s->name, 0) ||
		    symtab_function(lv->k.syms, s->addr, NULL, &fs, NULL) || fs != s->addr ||
		    fs < lv->k.text_start || fs >= lv->k.text_end ||
		    (m->n && m->sites[m->n - 1] >= fs) || kernel_cfg(&lv->k, fs, &g, &e))
			continue;
		if (m->n + g.nblocks > cap) {
			cap = (cap + g.nblocks) * 2;
			m->sites = realloc(m->sites, cap * sizeof(*m->sites));
			if (!m->sites)
				abort();
		}
		for (size_t b = 0; b < g.nblocks; b++)
			m->sites[m->n++] = live_block_site(lv, g.blocks[b].start);
	}
	m->plans = calloc(m->n + 1, sizeof(*m->plans));
	m->ok = calloc(m->n + 1, sizeof(*m->ok));
	m->why = calloc(m->n + 1, sizeof(*m->why));
	if (!m->plans || !m->ok || !m->why)
		abort();
	live_plan_many(lv, m->sites, m->n, 0, m->plans, m->ok, m->why);
	for (size_t i = 0; i < m->n; i++)
		if (m->ok[i])
			m->plans[m->good++] = m->plans[i];
}

static int by_tramp(const void *a, const void *b)
{
	const struct gilk_splice_info *x = a, *y = b;

	return x->tramp < y->tramp ? -1 : x->tramp > y->tramp;
}

/* Trampolines of the active splices: none overlaps another, and how many
 * pages they use. */
static bool packed(struct live *lv, size_t *pages, uint64_t *first)
{
	struct gilk_splice_info *all;
	size_t n;
	struct gerr e;
	bool ok = true;

	*pages = 0;
	if (live_list(lv, &all, &n, &e) || !n)
		return false;
	qsort(all, n, sizeof(*all), by_tramp);
	*first = all[0].tramp;
	for (size_t i = 0; i < n; i++) {
		if (i && all[i].tramp < all[i - 1].tramp + all[i - 1].tramp_len)
			ok = false;
		if (!i || all[i].tramp / 4096 != all[i - 1].tramp / 4096)
			(*pages)++;
	}
	free(all);
	return ok;
}

void test_scale(struct live *lv, const char *glob)
{
	struct many m = { 0 };
	struct gilk_stats st0, st1, st2;
	uint32_t *ids;
	size_t pages = 0;
	uint64_t first = 0;
	uint8_t freed[64];
	struct gerr e;
	bool all_int3 = true, apart;

	collect(lv, glob, &m);
	ids = calloc(m.good + 1, sizeof(*ids));
	check(m.good > 1000 && ids, "%zu of %zu blocks of the functions matching %s planned together",
	      m.good, m.n, glob);
	if (!ids || m.good < 2)
		return;
	live_stats(lv, &st0, &e);
	{
		/* the whole batch again with its last request a copy of the
		 * first: refused at that index, nothing left */
		struct splice_plan keep = m.plans[m.good - 1];

		m.plans[m.good - 1] = m.plans[0];
		check(live_splice_batch(lv, m.plans, m.good, "count", "", ids, &e) != 0 &&
		      errno == EADDRNOTAVAIL && live_stats(lv, &st1, &e) == 0 && st1.splices == 0 &&
		      st1.reserved == 0 && st1.tramp_bytes == 0,
		      "a batch of %zu whose last request overlaps its first is refused whole: %s",
		      m.good, e.msg);
		m.plans[m.good - 1] = keep;
	}
	e.msg[0] = 0;
	check(live_splice_batch(lv, m.plans, m.good, "count", "", ids, &e) == 0,
	      "all %zu spliced in one batch%s%s", m.good, e.msg[0] ? ": " : "", e.msg);
	live_stats(lv, &st1, &e);
	apart = packed(lv, &pages, &first);
	check(st1.splices == m.good && st1.reserved == 0 && apart && pages * 4 < m.good &&
	      st1.tramp_bytes <= st1.tramp_mapped,
	      "trampolines packed, none overlapping another: %zu splices in %zu pages, %" PRIu64 " bytes of trampolines (%" PRIu64
	      " a splice) in %" PRIu64 " KiB of module memory (%" PRIu64 " bytes a splice)",
	      m.good, pages, (uint64_t)st1.tramp_bytes, (uint64_t)st1.tramp_bytes / m.good,
	      (uint64_t)st1.tramp_mapped / 1024, (uint64_t)st1.tramp_mapped / m.good);
	e.msg[0] = 0;
	check(live_unsplice_batch(lv, ids, m.good, &e) == 0, "all %zu unspliced in one batch%s%s",
	      m.good, e.msg[0] ? ": " : "", e.msg);
	live_stats(lv, &st2, &e);
	/* a freed trampoline's bytes: int3 again, or no longer mapped */
	if (live_read_mem(lv, first, freed, sizeof(freed), &e) == 0)
		for (size_t i = 0; i < sizeof(freed); i++)
			all_int3 &= freed[i] == 0xcc;
	check(st2.splices == 0 && st2.reserved == 0 && st2.tramp_bytes == 0 &&
	      st2.tramp_mapped <= st0.tramp_mapped + 65536 && all_int3,
	      "nothing left after: no splice, reservation or trampoline byte (%" PRIu64
	      " KiB of module memory kept), a freed trampoline int3 again",
	      (uint64_t)st2.tramp_mapped / 1024);
	free(ids);
	free(m.sites);
	free(m.plans);
	free(m.ok);
	free(m.why);
}
