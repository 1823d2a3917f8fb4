/* Live splicing through /dev/gilk (see live.h): the ioctl client, and the
 * snapshot of the splices there are. */
#include "live_internal.h"

#include "grow.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
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

/* The original bytes of a splice put back in img. */
static void overlay_splice(struct kimage *img, const struct gilk_splice_info *s)
{
	kimage_overlay(img, s->site, s->region_orig, s->region_len);
	for (uint32_t k = 0; k < s->npatch && k < GILK_MAX_PATCHES; k++)
		kimage_overlay(img, s->patch[k].addr, s->patch[k].orig, s->patch[k].len);
}

static int overlay_listed(void *ctx, const struct gilk_splice_info *in)
{
	overlay_splice(ctx, in);
	return 0;
}

/* Asked once the snapshot is taken and before its tables are read: the
 * splices listed now include every one whose jmp the snapshot holds, but
 * one removed in between (its jmp in the snapshot, its original in the
 * kernel again), which core/ tolerates and gilk.ko's stale check refuses
 * to plan over. */
static int restore_originals(void *ctx, struct kimage *snapshot, struct gerr *e)
{
	return live_each_splice(ctx, overlay_listed, snapshot, e);
}

int live_version(const struct live *lv, struct gilk_version *v, struct gerr *e)
{
	if (ioctl(lv->fd, GILK_IOC_VERSION, v) < 0)
		return gerr_setc(e, errno, "asking gilk.ko its version: %s", strerror(errno));
	return 0;
}

/* Why /dev/gilk is missing, as far as the machine tells: gilk.ko is built
 * for x86-64 kernels only (the planner reads arm64's too). */
static const char *missing_dev_hint(void)
{
	struct utsname u;

	if (uname(&u) == 0 && strcmp(u.machine, "x86_64"))
		return " (gilk.ko is not built for this machine's kernel yet: gilk reads it with"
		       " gilk --kernel /proc/kcore --symbols /proc/kallsyms)";
	return " (is gilk.ko loaded? modprobe gilk)";
}

int live_open(struct live *lv, const struct live_paths *paths, struct gerr *e)
{
	const char *dev = paths && paths->dev ? paths->dev : "/dev/gilk";
	struct gilk_version v;

	memset(lv, 0, sizeof(*lv));
	lv->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (lv->fd < 0)
		return gerr_setc(e, errno, "%s: %s%s", dev, strerror(errno),
				errno == ENOENT ? missing_dev_hint() :
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
	free(lv->orig);
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

/*
 * GILK_IOC_LIST and GILK_IOC_BRIEFS: a page of records of size bytes (at
 * most max) from an id on, the same request for both, and fn called with
 * each record until the last page or fn's non-zero return.
 */
static_assert(sizeof(struct gilk_list) == sizeof(struct gilk_briefs),
	      "LIST and BRIEFS ask for a page alike");

struct pager {
	unsigned long cmd;
	size_t size;
	uint32_t max;
	int (*info)(void *ctx, const struct gilk_splice_info *in);
	int (*brief)(void *ctx, const struct gilk_brief *b);
};

static int each_page(struct live *lv, const struct pager *pg, void *ctx, struct gerr *e)
{
	uint8_t *page = calloc(pg->max, pg->size);
	struct gilk_list l = { .from = 0 };
	int rc = 0;

	if (!page)
		return gerr_setc(e, ENOMEM, "out of memory");
	do {
		l = (struct gilk_list){ .from = l.next, .max = pg->max, .buf = (uintptr_t)page };
		if (ioctl(lv->fd, pg->cmd, &l) < 0) {
			rc = gerr_setc(e, errno, "listing splices: %s", strerror(errno));
			break;
		}
		for (uint32_t i = 0; i < l.count && !rc; i++)
			rc = pg->info ? pg->info(ctx, (const void *)(page + i * pg->size)) :
					pg->brief(ctx, (const void *)(page + i * pg->size));
	} while (!rc && l.next);
	free(page);
	return rc;
}

int live_each_splice(struct live *lv, int (*fn)(void *ctx, const struct gilk_splice_info *in),
		     void *ctx, struct gerr *e)
{
	const struct pager pg = { GILK_IOC_LIST, sizeof(struct gilk_splice_info), GILK_LIST_MAX,
				  fn, NULL };

	return each_page(lv, &pg, ctx, e);
}

int live_each_brief(struct live *lv, int (*fn)(void *ctx, const struct gilk_brief *b),
		    void *ctx, struct gerr *e)
{
	const struct pager pg = { GILK_IOC_BRIEFS, sizeof(struct gilk_brief), GILK_BRIEFS_MAX,
				  NULL, fn };

	return each_page(lv, &pg, ctx, e);
}

struct listed {
	struct gilk_splice_info *all;
	size_t n, room;
	bool (*keep)(const struct gilk_splice_info *in);
	bool full;	/* no memory for more */
};

static int list_one(void *ctx, const struct gilk_splice_info *in)
{
	struct listed *l = ctx;

	if (l->keep && !l->keep(in))
		return 0;
	if (grow_room((void **)&l->all, &l->room, l->n + 1, sizeof(*l->all), 64)) {
		l->full = true;
		return -1;
	}
	l->all[l->n++] = *in;
	return 0;
}

static int list_kept(struct live *lv, bool (*keep)(const struct gilk_splice_info *in),
		     struct gilk_splice_info **out, size_t *n, struct gerr *e)
{
	struct listed l = { .keep = keep };
	int rc = live_each_splice(lv, list_one, &l, e);

	if (l.full)
		gerr_setc(e, ENOMEM, "out of memory");
	if (rc) {
		free(l.all);
		return -1;
	}
	*out = l.all;
	*n = l.n;
	return 0;
}

int live_list(struct live *lv, struct gilk_splice_info **out, size_t *n,
	      struct gerr *e)
{
	return list_kept(lv, NULL, out, n, e);
}

bool live_splice_records(const struct gilk_splice_info *in)
{
	return strcmp(in->instrument, "count") || in->agg.kind;
}

int live_list_recording(struct live *lv, struct gilk_splice_info **out, size_t *n,
			struct gerr *e)
{
	return list_kept(lv, live_splice_records, out, n, e);
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

static bool owns(const struct gilk_splice_info *in, uint64_t addr, size_t len)
{
	bool mine = overlaps(in->site, in->region_len, addr, len);

	for (uint32_t k = 0; k < in->npatch && k < GILK_MAX_PATCHES; k++)
		mine |= overlaps(in->patch[k].addr, in->patch[k].len, addr, len);
	return mine;
}

struct owner_hunt {
	uint64_t addr;
	size_t len;
	struct gilk_splice_info *out;
};

static int owner_listed(void *ctx, const struct gilk_splice_info *in)
{
	struct owner_hunt *h = ctx;

	if (!owns(in, h->addr, h->len))
		return 0;
	*h->out = *in;
	return 1;
}

int live_owner(struct live *lv, uint64_t addr, size_t len, struct gilk_splice_info *out)
{
	struct owner_hunt h = { addr, len, out };
	struct gerr e;

	return live_each_splice(lv, owner_listed, &h, &e) == 1 ? 0 : -1;
}

/* " (splice 7, count, at vfs_read+0x5)", or "" for no owner. */
static void owner_text(const struct live *lv, uint32_t id, uint64_t site, const char *label,
		       char *buf, size_t n)
{
	char where[128];

	buf[0] = '\0';
	if (!label)
		return;
	symtab_format(lv->k.syms, site, where, sizeof(where));
	snprintf(buf, n, " (splice %u, %s, at %s)", id, label, where);
}

static const char *splice_label(const struct gilk_splice_info *in)
{
	return in->agg.kind ? in->agg.text : in->instrument;
}

void live_owner_text(struct live *lv, uint64_t addr, size_t len, char *buf, size_t n)
{
	struct gilk_splice_info o = { 0 };
	bool found = !live_owner(lv, addr, len, &o);

	owner_text(lv, o.id, o.site, found ? splice_label(&o) : NULL, buf, n);
}

void lv_known_owner_text(const struct live *lv, uint64_t addr, size_t len, char *buf, size_t n)
{
	for (size_t i = 0; i < lv->nsplices; i++) {
		const struct lv_splice *s = &lv->splices[i];
		bool mine = overlaps(s->site, s->region_len, addr, len);

		for (uint32_t k = 0; k < s->npatch; k++)
			mine |= overlaps(s->patch_addr[k], s->patch_len[k], addr, len);
		if (mine) {
			owner_text(lv, s->id, s->site, lv_splice_label(lv, s), buf, n);
			return;
		}
	}
	buf[0] = '\0';
}

int live_info(struct live *lv, uint32_t id, struct gilk_splice_info *out,
	      struct gerr *e)
{
	struct gilk_list l = { .from = id, .max = 1, .buf = (uintptr_t)out };

	if (ioctl(lv->fd, GILK_IOC_LIST, &l) < 0)
		return gerr_setc(e, errno, "listing splices: %s", strerror(errno));
	if (!l.count || out->id != id)
		return gerr_setc(e, ENOENT, "no splice %u", id);
	return 0;
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
	const struct lv_splice *all = ctx;
	uint64_t x = all[*(const size_t *)a].site, y = all[*(const size_t *)b].site;

	return x < y ? -1 : x > y;
}

const struct lv_splice *lv_splice_at(const struct live *lv, uint64_t site)
{
	size_t lo = 0, hi = lv->by_site ? lv->nsplices : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lv_splice *s = &lv->splices[lv->by_site[mid]];

		if (s->site == site)
			return s;
		if (s->site < site)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const uint8_t *lv_splice_patch_orig(const struct live *lv, const struct lv_splice *s,
				    unsigned k)
{
	const uint8_t *o = lv->orig + s->orig + s->region_len;

	for (unsigned i = 0; i < k; i++)
		o += s->patch_len[i];
	return o;
}

const char *lv_splice_label(const struct live *lv, const struct lv_splice *s)
{
	return (const char *)lv_splice_patch_orig(lv, s, s->npatch);
}

/* The splices as they are listed, kept as the planner needs them: what
 * half a million of them take is tens of megabytes, not their full
 * records' gigabyte. */
struct learning {
	struct live *lv;
	struct lv_splice *sp;
	size_t n, room;
	uint8_t *orig;		/* each one's original bytes and label */
	size_t norig, origroom;
	uint64_t sig;		/* which splices exist, and where: equal
				 * for the same set */
	bool full;
};

static int learn_one(void *ctx, const struct gilk_splice_info *in)
{
	struct learning *l = ctx;
	uint32_t npatch = in->npatch < GILK_MAX_PATCHES ? in->npatch : GILK_MAX_PATCHES;
	uint32_t rlen = in->region_len < GILK_PATCH_MAX_LEN ? in->region_len : GILK_PATCH_MAX_LEN;
	const char *label = in->agg.kind ? in->agg.text : in->instrument;
	size_t llen = strnlen(label, in->agg.kind ? sizeof(in->agg.text) : sizeof(in->instrument));
	size_t need = rlen + llen + 1;
	uint64_t v[3] = { in->id, in->site, in->npatch };
	struct lv_splice *s;
	uint8_t *o;

	for (uint32_t k = 0; k < npatch; k++)
		need += in->patch[k].len < GILK_PATCH_MAX_LEN ? in->patch[k].len : GILK_PATCH_MAX_LEN;
	if (grow_room((void **)&l->sp, &l->room, l->n + 1, sizeof(*l->sp), 1024) ||
	    grow_room((void **)&l->orig, &l->origroom, l->norig + need, 1, 16384) ||
	    l->norig + need > UINT32_MAX) {
		l->full = true;
		return -1;
	}
	for (size_t k = 0; k < 3; k++)
		l->sig = (l->sig ^ v[k]) * 1099511628211ull;
	s = &l->sp[l->n++];
	*s = (struct lv_splice){ .site = in->site, .join_at = in->join_at, .join_top = in->join_top,
				 .id = in->id, .orig = (uint32_t)l->norig,
				 .join_depth = in->join_depth, .region_len = (uint8_t)rlen,
				 .npatch = (uint8_t)npatch };
	o = l->orig + l->norig;
	memcpy(o, in->region_orig, rlen);
	o += rlen;
	for (uint32_t k = 0; k < npatch; k++) {
		uint32_t len = in->patch[k].len < GILK_PATCH_MAX_LEN ? in->patch[k].len :
								       GILK_PATCH_MAX_LEN;

		s->patch_addr[k] = in->patch[k].addr;
		s->patch_len[k] = (uint8_t)len;
		memcpy(o, in->patch[k].orig, len);
		o += len;
	}
	memcpy(o, label, llen);
	o[llen] = '\0';
	l->norig += need;
	/* shown by the alias it was made by, as its maker showed it */
	if (in->site_name[0] && memchr(in->site_name, 0, sizeof(in->site_name)))
		symtab_prefer(l->lv->k.syms, in->site_name);
	return 0;
}

/* A learnt splice's original bytes put back in the snapshot where they
 * fall in [lo, hi). */
static void overlay_learnt(struct live *lv, const struct lv_splice *s, uint64_t lo, uint64_t hi)
{
	if (s->site >= lo && s->site + s->region_len <= hi)
		kimage_overlay(lv->k.img, s->site, lv->orig + s->orig, s->region_len);
	for (unsigned k = 0; k < s->npatch; k++)
		if (s->patch_addr[k] >= lo && s->patch_addr[k] + s->patch_len[k] <= hi)
			kimage_overlay(lv->k.img, s->patch_addr[k], lv_splice_patch_orig(lv, s, k),
				       s->patch_len[k]);
}

/* What other splices own and changed: occupied ranges, and their original
 * bytes put back into the snapshot. Nothing changes (and cached CFGs stay)
 * when the splices are the ones learnt last time. */
int lv_learn_splices(struct live *lv, struct gerr *e)
{
	struct learning l = { .lv = lv, .sig = 1469598103934665603ull };
	int rc = 0;

	if (live_each_splice(lv, learn_one, &l, e)) {
		free(l.sp);
		free(l.orig);
		return l.full ? gerr_setc(e, ENOMEM, "out of memory") : -1;
	}
	if (lv->gen && l.sig == lv->splices_sig) {
		free(l.sp);
		free(l.orig);
		return 0;
	}
	free(lv->splices);
	free(lv->orig);
	lv->splices = l.sp;
	lv->nsplices = l.n;
	lv->orig = l.orig;
	free(lv->by_site);
	lv->by_site = malloc((l.n ? l.n : 1) * sizeof(*lv->by_site));
	for (size_t i = 0; lv->by_site && i < l.n; i++)
		lv->by_site[i] = i;
	if (lv->by_site)
		qsort_r(lv->by_site, l.n, sizeof(*lv->by_site), cmp_by_site, l.sp);
	lv->splices_sig = l.sig;
	lv->gen++;
	lv->noccupied = 0;
	kernel_text_changed(&lv->k);
	for (size_t i = 0; i < l.n && !rc; i++) {
		const struct lv_splice *s = &l.sp[i];

		overlay_learnt(lv, s, 0, UINT64_MAX);
		rc |= lv_push_range(&lv->occupied, &lv->noccupied, s->site, s->site + s->region_len);
		/* No bounce slot goes in the dead tail of another splice's
		 * region: that splice's unsplice would put the original bytes
		 * back under it, and gilk.ko's checker accepts slots only over
		 * padding or in a neighbour the same splice evicts. */
		for (unsigned k = 0; k < s->npatch; k++)
			rc |= lv_push_range(&lv->occupied, &lv->noccupied, s->patch_addr[k],
					    s->patch_addr[k] + s->patch_len[k]);
	}
	if (lv->noccupied)
		qsort(lv->occupied, lv->noccupied, sizeof(*lv->occupied), cmp_range_start);
	return rc ? gerr_setc(e, ENOMEM, "out of memory") : 0;
}

/* A splice's patches lie within a short jump of its site (a jmp rel8's
 * reach, on x86-64): splices whose sites are this far outside a range
 * write nothing in it. */
#define PATCH_REACH 4096

/* The original bytes of the splices last learnt, where they fall in
 * [lo, hi): module text read again holds their jumps. Found by site, not
 * by a walk of every splice: coverage of the whole kernel reads thousands
 * of module functions with half a million splices in place. */
void lv_unsplice_snapshot(struct live *lv, uint64_t lo, uint64_t hi)
{
	uint64_t from = lo > PATCH_REACH ? lo - PATCH_REACH : 0;
	uint64_t to = hi < UINT64_MAX - PATCH_REACH ? hi + PATCH_REACH : UINT64_MAX;
	size_t a = 0, b = lv->nsplices;

	if (!lv->by_site) {
		for (size_t i = 0; i < lv->nsplices; i++)
			overlay_learnt(lv, &lv->splices[i], lo, hi);
		return;
	}
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (lv->splices[lv->by_site[mid]].site < from)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < lv->nsplices && lv->splices[lv->by_site[a]].site < to; a++)
		overlay_learnt(lv, &lv->splices[lv->by_site[a]], lo, hi);
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
