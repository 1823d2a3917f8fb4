/*
 * gilk.ko writes a batch a page at a time (kmod/arch/x86/pokes.c): the bytes
 * between the writes on a page are read from the text and written back as
 * they were. Around a batch over the blocks of path_init, everything else
 * on those pages must stay as it was and keep working: a splice made before
 * the batch, a kprobe's int3 between its sites, the code itself; and the
 * batch's unsplice, written the same way, must leave the pages exactly as
 * they were before it.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "guest.h"
#include "live.h"

#define TRACING "/sys/kernel/tracing"
#define KPROBE_OPT "/proc/sys/debug/kprobes-optimization"
#define MAXB 512
#define SPAN_MAX (4 * 4096)

struct span {
	uint64_t lo, hi;		/* whole pages */
	uint8_t before[SPAN_MAX];	/* before the batch */
	uint8_t orig[SPAN_MAX];		/* before anything of the test */
	uint8_t now[SPAN_MAX];
	uint8_t mask[SPAN_MAX];		/* 1: a byte the batch writes */
};

static void widen(struct span *s, uint64_t a, uint64_t len)
{
	if (!len)
		return;
	if (!s->lo || a < s->lo)
		s->lo = a & ~4095ull;
	if (a + len > s->hi)
		s->hi = (a + len + 4095) & ~4095ull;
}

/* The bytes a plan's splice writes: its region, a bounce slot, an evicted run. */
static void plan_ranges(const struct splice_plan *p, uint64_t lo[3], uint64_t hi[3])
{
	lo[0] = p->region.addr, hi[0] = p->region.addr + p->region.len;
	lo[1] = hi[1] = lo[2] = hi[2] = 0;
	if (p->mode == SPLICE_BOUNCE)
		lo[1] = p->slot, hi[1] = p->slot + 5;
	if (p->bounce_kind == BOUNCE_EVICT)
		lo[2] = p->evict.addr, hi[2] = p->evict.addr + p->evict.len;
}

/* Where a kprobe may go between the batch's sites: an instruction start
 * right after a region, no patch of any plan on it or in the 4 bytes
 * after it (gilk.ko keeps splices off a kprobe's reach). */
static int free_for_kprobe(const struct splice_plan *plans, size_t n, uint64_t k)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t lo[3], hi[3];

		plan_ranges(&plans[i], lo, hi);
		for (int r = 0; r < 3; r++)
			if (hi[r] && k + 5 > lo[r] && k < hi[r])
				return 0;
	}
	return 1;
}

static int read_span(struct live *lv, const struct span *s, uint8_t *out)
{
	struct gerr e;

	return live_read_mem(lv, s->lo, out, s->hi - s->lo, &e);
}

/* Bytes of now that differ from want where the mask is mask_is. */
static size_t differ(const struct span *s, const uint8_t *want, int mask_is)
{
	size_t n = 0;

	for (uint64_t i = 0; i < s->hi - s->lo; i++)
		if (s->mask[i] == mask_is && s->now[i] != want[i])
			n++;
	return n;
}

static long kprobe_hits(const char *name)
{
	FILE *f = fopen(TRACING "/kprobe_profile", "r");
	char line[256], ev[128];
	unsigned long hits, miss;
	long found = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lu %lu", ev, &hits, &miss) == 3 && !strcmp(ev, name))
			found = (long)hits;
	if (f)
		fclose(f);
	return found;
}

void test_page_runs(struct live *lv)
{
	static struct splice_plan plans[MAXB];
	static struct span s;
	static uint32_t ids[MAXB];
	uint64_t f = sym(lv, "path_init"), k = 0;
	size_t nblocks, n = plan_blocks(lv, "path_init", plans, MAXB, &nblocks);
	size_t m, nb = 0, written = 0;
	struct gilk_splice_info *act = NULL;
	size_t nact = 0;
	uint32_t id_m = 0;
	char def[128], opt[8] = "1";
	long h0, h1;
	struct gerr e;
	bool ok;
	int fd;

	check(n >= 10, "page runs: path_init has blocks to splice (%zu)", n);
	if (n < 10)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t lo[3], hi[3];

		plan_ranges(&plans[i], lo, hi);
		for (int r = 0; r < 3; r++)
			widen(&s, lo[r], hi[r] - lo[r]);
	}
	check(s.hi - s.lo <= SPAN_MAX && !read_span(lv, &s, s.orig),
	      "page runs: path_init's splices lie in %" PRIu64 " bytes of pages, read", s.hi - s.lo);
	if (s.hi - s.lo > SPAN_MAX || read_span(lv, &s, s.orig))
		return;

	/* Between the batch's sites: one splice made before it, a kprobe. */
	m = n / 2;
	e.msg[0] = 0;
	ok = live_splice_batch(lv, &plans[m], 1, "count", "", &id_m, &e) == 0;
	check(ok, "page runs: a splice before the batch, at 0x%" PRIx64 "%s%s",
	      plans[m].region.addr, ok ? "" : ": ", e.msg);
	if (!ok)
		id_m = 0;
	fd = open(KPROBE_OPT, O_RDONLY);
	if (fd >= 0 && read(fd, opt, 1) == 1)
		opt[1] = 0;
	if (fd >= 0)
		close(fd);
	write_file(KPROBE_OPT, "0", 0);	/* the kprobe stays an int3 */
	mount("nodev", TRACING, "tracefs", 0, NULL);
	for (size_t i = 1; i + 1 < n && !k; i++) {
		uint64_t at = plans[i].region.addr + plans[i].region.len;

		if (i == m || at >= plans[n - 1].region.addr || !free_for_kprobe(plans, n, at))
			continue;
		snprintf(def, sizeof(def), "p:gilk_pageruns path_init+%" PRIu64 "\n", at - f);
		if (write_file(TRACING "/kprobe_events", def, O_APPEND) == 0 &&
		    write_file(TRACING "/events/kprobes/gilk_pageruns/enable", "1", 0) == 0)
			k = at;
		else
			write_file(TRACING "/kprobe_events", "-:gilk_pageruns\n", O_APPEND);
	}
	read_span(lv, &s, s.before);
	check(k && s.before[k - s.lo] == 0xcc,
	      "page runs: a kprobe (an int3) between the batch's sites, at path_init+%" PRIu64,
	      k ? k - f : 0);

	for (size_t i = 0; i < n; i++)
		if (i != m)
			plans[nb++] = plans[i];
	e.msg[0] = 0;
	ok = live_splice_batch(lv, plans, nb, "count", "", ids, &e) == 0;
	check(ok, "page runs: the other %zu blocks in one batch%s%s", nb, ok ? "" : ": ", e.msg);
	if (!ok)
		goto out;
	live_list(lv, &act, &nact, &e);
	for (size_t i = 0; i < nact; i++) {
		if (act[i].id == id_m)
			continue;
		for (uint32_t j = 0; j < act[i].region_len; j++)
			if (act[i].site + j >= s.lo && act[i].site + j < s.hi)
				s.mask[act[i].site + j - s.lo] = 1;
		for (uint32_t p = 0; p < act[i].npatch; p++)
			for (uint32_t j = 0; j < act[i].patch[p].len; j++)
				if (act[i].patch[p].addr + j >= s.lo && act[i].patch[p].addr + j < s.hi)
					s.mask[act[i].patch[p].addr + j - s.lo] = 1;
	}
	free(act);
	read_span(lv, &s, s.now);
	check(differ(&s, s.before, 0) == 0,
	      "page runs: no byte the batch does not own changed on its pages (%zu did)",
	      differ(&s, s.before, 0));
	for (uint64_t i = 0; i < s.hi - s.lo; i++)
		written += s.mask[i] && s.now[i] != s.before[i];
	check(written >= nb, "page runs: the batch's own bytes changed (%zu)", written);

	h0 = kprobe_hits("gilk_pageruns");
	{
		uint64_t before_m = hits(lv, id_m), sum = 0;

		open_n(200);
		for (size_t i = 0; i < nb; i++)
			sum += hits(lv, ids[i]);
		h1 = kprobe_hits("gilk_pageruns");
		check(sum > 0 && hits(lv, id_m) != UINT64_MAX && h0 >= 0 && h1 > h0,
		      "page runs: the batch counts (%" PRIu64 " hits), the splice before it is "
		      "there (%" PRIu64 " more), the kprobe fires (%ld more)", sum,
		      hits(lv, id_m) - before_m, h1 - h0);
	}
	check(live_unsplice_batch(lv, ids, nb, &e) == 0 && !read_span(lv, &s, s.now) &&
	      !memcmp(s.now, s.before, s.hi - s.lo),
	      "page runs: after the batch's unsplice, its pages are as before it, byte for byte");
out:
	write_file(TRACING "/events/kprobes/gilk_pageruns/enable", "0", 0);
	write_file(TRACING "/kprobe_events", "-:gilk_pageruns\n", O_APPEND);
	write_file(KPROBE_OPT, opt, 0);
	if (id_m)
		live_unsplice_batch(lv, &id_m, 1, &e);
	check(!read_span(lv, &s, s.now) && !memcmp(s.now, s.orig, s.hi - s.lo),
	      "page runs: with the kprobe and the first splice gone, the pages are as at first");
}
