/* Live splicing through /dev/gilk (see live.h): the ioctl client, and the
 * snapshot of the splices there are. */
#include "live_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static bool cpu_has_smap(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool yes = false;

	if (!f)
		return false;
	while (!yes) {
		if (!fgets(line, sizeof(line), f)) {
			/* a signal (Ctrl-C while gilk starts): read on */
			if (!ferror(f) || errno != EINTR)
				break;
			clearerr(f);
			continue;
		}
		if (!strncmp(line, "flags", 5) && strstr(line, " smap"))
			yes = true;
	}
	fclose(f);
	return yes;
}

/* The original bytes of every splice in all[0..n) put back in img. */
static void overlay_splices(struct kimage *img, const struct gilk_splice_info *all, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct gilk_splice_info *s = &all[i];

		kimage_overlay(img, s->site, s->region_orig, s->region_len);
		for (uint32_t k = 0; k < s->npatch && k < GILK_MAX_PATCHES; k++)
			kimage_overlay(img, s->patch[k].addr, s->patch[k].orig, s->patch[k].len);
	}
}

/* Asked once the snapshot is taken and before its tables are read: the
 * splices listed now include every one whose jmp the snapshot holds, but
 * one removed in between (its jmp in the snapshot, its original in the
 * kernel again), which core/ tolerates and gilk.ko's stale check refuses
 * to plan over. */
static int restore_originals(void *ctx, struct kimage *snapshot, struct gerr *e)
{
	struct gilk_splice_info *all;
	size_t n;

	if (live_list(ctx, &all, &n, e))
		return -1;
	overlay_splices(snapshot, all, n);
	free(all);
	return 0;
}

int live_version(const struct live *lv, struct gilk_version *v, struct gerr *e)
{
	if (ioctl(lv->fd, GILK_IOC_VERSION, v) < 0)
		return gerr_setc(e, errno, "asking gilk.ko its version: %s", strerror(errno));
	return 0;
}

int live_open(struct live *lv, const struct live_paths *paths, struct gerr *e)
{
	const char *dev = paths && paths->dev ? paths->dev : "/dev/gilk";
	struct gilk_version v;

	memset(lv, 0, sizeof(*lv));
	lv->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (lv->fd < 0)
		return gerr_setc(e, errno, "%s: %s%s", dev, strerror(errno),
				errno == ENOENT ? " (is gilk.ko loaded? modprobe gilk)" :
				(errno == EACCES || errno == EPERM) && geteuid() ?
				" (live, gilk needs root; offline it reads an image: gilk --kernel FILE --symbols FILE)" :
				errno == EPERM ? " (needs CAP_SYS_ADMIN, and no kernel lockdown)" : "");
	if (ioctl(lv->fd, GILK_IOC_VERSION, &v) < 0) {
		int err = errno;

		close(lv->fd);
		return gerr_setc(e, err, "%s does not answer gilk's VERSION request: %s", dev,
				 strerror(err));
	}
	if (v.abi != GILK_ABI_VERSION) {
		close(lv->fd);
		return gerr_setc(e, EPROTO, "%s speaks ABI %u, this gilk speaks %u", dev,
				v.abi, GILK_ABI_VERSION);
	}
	if (kernel_open_live(&lv->k, paths && paths->kcore ? paths->kcore : "/proc/kcore",
			     paths && paths->kallsyms ? paths->kallsyms : "/proc/kallsyms",
			     &(struct kernel_restore){ restore_originals, lv }, e)) {
		close(lv->fd);
		return -1;
	}
	if (kimage_open(paths && paths->kcore ? paths->kcore : "/proc/kcore", &lv->kcore, e)) {
		kernel_close(&lv->k);
		close(lv->fd);
		return -1;
	}
	lv->smap = cpu_has_smap();
	/* The snapshot holds the jumps of the splices there now: put their
	 * original bytes back at once, or one removed later (by this
	 * session, or another) would leave its jump in the snapshot, and
	 * every plan there would be refused as made from the wrong bytes. */
	if (lv_learn_splices(lv, e)) {
		live_close(lv);
		return -1;
	}
	return 0;
}

void live_close(struct live *lv)
{
	window_free(&lv->w);
	kernel_close(&lv->k);
	kimage_close(lv->kcore);
	free(lv->occupied);
	free(lv->splices);
	free(lv->by_site);
	free(lv->pending);
	free(lv->pending_site);
	free(lv->near);
	free(lv->learnt);
	if (lv->fd >= 0)
		close(lv->fd);
	memset(lv, 0, sizeof(*lv));
	lv->fd = -1;
}

int live_list(struct live *lv, struct gilk_splice_info **out, size_t *n,
	      struct gerr *e)
{
	struct gilk_list l = { 0 };
	struct gilk_splice_info *buf = NULL;

	for (;;) {
		l.buf = (uintptr_t)buf;
		if (ioctl(lv->fd, GILK_IOC_LIST, &l) < 0) {
			free(buf);
			return gerr_setc(e, errno, "listing splices: %s", strerror(errno));
		}
		if (l.count <= l.max)
			break;
		free(buf);
		l.max = l.count + 8;
		buf = calloc(l.max, sizeof(*buf));
		if (!buf)
			return gerr_setc(e, ENOMEM, "out of memory");
	}
	*out = buf;
	*n = l.count;
	return 0;
}

int live_each_brief(struct live *lv, int (*fn)(void *ctx, const struct gilk_brief *b),
		    void *ctx, struct gerr *e)
{
	struct gilk_brief *page = calloc(GILK_BRIEFS_MAX, sizeof(*page));
	struct gilk_briefs b = { .from = 0 };
	int rc = 0;

	if (!page)
		return gerr_setc(e, ENOMEM, "out of memory");
	do {
		b = (struct gilk_briefs){ .from = b.next, .max = GILK_BRIEFS_MAX,
					  .buf = (uintptr_t)page };
		if (ioctl(lv->fd, GILK_IOC_BRIEFS, &b) < 0) {
			rc = gerr_setc(e, errno, "listing splices: %s", strerror(errno));
			break;
		}
		for (uint32_t i = 0; i < b.count && !rc; i++)
			rc = fn(ctx, &page[i]);
	} while (!rc && b.next);
	free(page);
	return rc;
}

int live_stats(struct live *lv, struct gilk_stats *st, struct gerr *e)
{
	if (ioctl(lv->fd, GILK_IOC_STATS, st) < 0)
		return gerr_setc(e, errno, "asking gilk.ko what it holds: %s", strerror(errno));
	return 0;
}

int live_agg_read(struct live *lv, uint32_t id, uint32_t cpu, uint8_t **slots, size_t *n,
		  uint32_t *slot_len, uint64_t *dropped, uint32_t *cpus, struct gerr *e)
{
	struct gilk_agg_read r = { .splice = id, .cpu = cpu };
	uint8_t *buf = NULL;

	/* how many first, then all of them: a map only grows between */
	for (;;) {
		struct gilk_agg_read ask = r;

		if (ioctl(lv->fd, GILK_IOC_AGG_READ, &ask) < 0) {
			free(buf);
			if (errno == ENODATA)
				return gerr_setc(e, errno, "splice %u aggregates nothing", id);
			if (errno == ENOENT)
				return gerr_setc(e, errno, "no such splice: %u", id);
			return gerr_setc(e, errno, "reading splice %u's map: %s", id,
					 strerror(errno));
		}
		if (ask.count <= r.max) {
			*slots = buf;
			*n = ask.count;
			*slot_len = ask.slot_len;
			*dropped = ask.dropped;
			*cpus = ask.cpus;
			return 0;
		}
		free(buf);
		r.max = ask.count + 64;
		buf = malloc((size_t)r.max * ask.slot_len);
		if (!buf)
			return gerr_setc(e, ENOMEM, "out of memory");
		r.buf = (uintptr_t)buf;
	}
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* The splice of all[0..n) that owns bytes of [addr, addr + len), or NULL. */
static const struct gilk_splice_info *owner_in(const struct gilk_splice_info *all, size_t n,
					       uint64_t addr, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		bool mine = overlaps(all[i].site, all[i].region_len, addr, len);

		for (uint32_t k = 0; k < all[i].npatch && k < GILK_MAX_PATCHES; k++)
			mine |= overlaps(all[i].patch[k].addr, all[i].patch[k].len, addr, len);
		if (mine)
			return &all[i];
	}
	return NULL;
}

int live_owner(struct live *lv, uint64_t addr, size_t len, struct gilk_splice_info *out)
{
	const struct gilk_splice_info *o;
	struct gilk_splice_info *all;
	struct gerr e;
	size_t n;

	if (live_list(lv, &all, &n, &e))
		return -1;
	o = owner_in(all, n, addr, len);
	if (o)
		*out = *o;
	free(all);
	return o ? 0 : -1;
}

/* " (splice 7, count, at vfs_read+0x5)" for o, or "" for none. */
static void owner_text(const struct live *lv, const struct gilk_splice_info *o, char *buf,
		       size_t n)
{
	char where[128];

	buf[0] = '\0';
	if (!o)
		return;
	symtab_format(lv->k.syms, o->site, where, sizeof(where));
	snprintf(buf, n, " (splice %u, %s, at %s)", o->id, o->agg.kind ? o->agg.text : o->instrument,
		 where);
}

void live_owner_text(struct live *lv, uint64_t addr, size_t len, char *buf, size_t n)
{
	struct gilk_splice_info o;

	owner_text(lv, live_owner(lv, addr, len, &o) ? NULL : &o, buf, n);
}

void lv_known_owner_text(const struct live *lv, uint64_t addr, size_t len, char *buf, size_t n)
{
	owner_text(lv, owner_in(lv->splices, lv->nsplices, addr, len), buf, n);
}

int live_info(struct live *lv, uint32_t id, struct gilk_splice_info *out,
	      struct gerr *e)
{
	struct gilk_splice_info *all;
	size_t n;

	if (live_list(lv, &all, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (all[i].id == id) {
			*out = all[i];
			free(all);
			return 0;
		}
	free(all);
	return gerr_setc(e, ENOENT, "no splice %u", id);
}

/* Room grows by doubling: it is a power of two at least *n (lists emptied
 * by setting *n to 0 keep theirs, and only shrink-and-grow on the way). */
int lv_push_range(struct range **arr, size_t *n, uint64_t lo, uint64_t hi)
{
	if (!(*n & (*n - 1))) {	/* 0 or a power of two: full */
		struct range *r = realloc(*arr, (*n ? 2 * *n : 1) * sizeof(**arr));

		if (!r)
			return -1;
		*arr = r;
	}
	(*arr)[(*n)++] = (struct range){ lo, hi };
	return 0;
}

static int cmp_range_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_by_site(const void *a, const void *b, void *ctx)
{
	const struct gilk_splice_info *all = ctx;
	uint64_t x = all[*(const size_t *)a].site, y = all[*(const size_t *)b].site;

	return x < y ? -1 : x > y;
}

const struct gilk_splice_info *lv_splice_at(const struct live *lv, uint64_t site)
{
	size_t lo = 0, hi = lv->by_site ? lv->nsplices : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gilk_splice_info *s = &lv->splices[lv->by_site[mid]];

		if (s->site == site)
			return s;
		if (s->site < site)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Which splices exist, and where: equal for the same set. */
static uint64_t splices_sig(const struct gilk_splice_info *all, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		uint64_t v[3] = { all[i].id, all[i].site, all[i].npatch };

		for (size_t k = 0; k < 3; k++)
			h = (h ^ v[k]) * 1099511628211ull;
	}
	return h;
}

/* What other splices own and changed: occupied ranges, and their original
 * bytes put back into the snapshot. Nothing changes (and cached CFGs stay)
 * when the splices are the ones learnt last time. */
int lv_learn_splices(struct live *lv, struct gerr *e)
{
	struct gilk_splice_info *all;
	size_t n;
	uint64_t sig;
	int rc = 0;

	if (live_list(lv, &all, &n, e))
		return -1;
	sig = splices_sig(all, n);
	if (lv->gen && sig == lv->splices_sig) {
		free(all);
		return 0;
	}
	free(lv->splices);
	lv->splices = all;
	lv->nsplices = n;
	free(lv->by_site);
	lv->by_site = malloc((n ? n : 1) * sizeof(*lv->by_site));
	for (size_t i = 0; lv->by_site && i < n; i++)
		lv->by_site[i] = i;
	if (lv->by_site)
		qsort_r(lv->by_site, n, sizeof(*lv->by_site), cmp_by_site, all);
	lv->splices_sig = sig;
	lv->gen++;
	lv->noccupied = 0;
	kernel_text_changed(&lv->k);
	overlay_splices(lv->k.img, all, n);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct gilk_splice_info *s = &all[i];

		/* shown by the alias it was made by, as its maker showed it */
		if (s->site_name[0] && memchr(s->site_name, 0, sizeof(s->site_name)))
			symtab_prefer(lv->k.syms, s->site_name);

		rc |= lv_push_range(&lv->occupied, &lv->noccupied, s->site, s->site + s->region_len);
		for (uint32_t k = 0; k < s->npatch && k < GILK_MAX_PATCHES; k++) {
			const struct gilk_owned *p = &s->patch[k];

			rc |= lv_push_range(&lv->occupied, &lv->noccupied, p->addr, p->addr + p->len);
			/* No bounce slot goes in the dead tail of another
			 * splice's region: that splice's unsplice would put
			 * the original bytes back under it, and gilk.ko's
			 * checker accepts slots only over padding or in a
			 * neighbour the same splice evicts. */
		}
	}
	if (lv->noccupied)
		qsort(lv->occupied, lv->noccupied, sizeof(*lv->occupied), cmp_range_start);
	return rc ? gerr_setc(e, ENOMEM, "out of memory") : 0;
}

/* The original bytes of the splices last learnt, where they fall in
 * [lo, hi): module text read again holds their jumps. */
void lv_unsplice_snapshot(struct live *lv, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < lv->nsplices; i++) {
		const struct gilk_splice_info *s = &lv->splices[i];

		if (s->site >= lo && s->site + s->region_len <= hi)
			kimage_overlay(lv->k.img, s->site, s->region_orig, s->region_len);
		for (uint32_t k = 0; k < s->npatch && k < GILK_MAX_PATCHES; k++)
			if (s->patch[k].addr >= lo && s->patch[k].addr + s->patch[k].len <= hi)
				kimage_overlay(lv->k.img, s->patch[k].addr, s->patch[k].orig,
					       s->patch[k].len);
	}
}

int live_unsplice(struct live *lv, uint32_t id, struct gerr *e)
{
	if (ioctl(lv->fd, GILK_IOC_UNSPLICE, &id) < 0)
		return gerr_setc(e, errno, "unsplice %u: %s", id,
				errno == ENOENT ? "no such splice" : strerror(errno));
	return 0;
}

int live_instruments(struct live *lv, struct gilk_instrument_info **out,
		     size_t *n, struct gerr *e)
{
	struct gilk_instruments l = { .max = 256 };
	struct gilk_instrument_info *buf = calloc(256, sizeof(*buf));

	if (!buf)
		return gerr_setc(e, ENOMEM, "out of memory");
	l.buf = (uintptr_t)buf;
	if (ioctl(lv->fd, GILK_IOC_INSTRUMENTS, &l) < 0) {
		free(buf);
		return gerr_setc(e, errno, "listing instruments: %s", strerror(errno));
	}
	*out = buf;
	*n = l.count < l.max ? l.count : l.max;
	return 0;
}

int live_read_mem(struct live *lv, uint64_t addr, void *buf, size_t len,
		  struct gerr *e)
{
	struct gilk_read r = { .addr = addr, .len = len, .buf = (uintptr_t)buf };

	if (ioctl(lv->fd, GILK_IOC_READ, &r) < 0)
		return gerr_setc(e, errno, "reading %zu bytes at 0x%llx: %s", len,
				(unsigned long long)addr,
				errno == EIO ? "not mapped" : strerror(errno));
	return 0;
}

ssize_t live_read_events(struct live *lv, void *buf, size_t len, struct gerr *e)
{
	ssize_t n = read(lv->fd, buf, len);

	if (n < 0)
		gerr_setc(e, errno, "reading events: %s", strerror(errno));
	return n;
}
