/*
 * gilk-torture: the whole kernel, spliced (make torture; tests/torture boots
 * the guests, reads what this prints and finds the culprit of a death). In
 * the guest, with gilk.ko loaded and the checked load of load.c running on
 * both vCPUs all along:
 *   gilk-torture count
 *       prints how many core kernel functions there are ("torture:
 *       functions N"); the others take indices into them, in address order.
 *   gilk-torture entries FIRST LAST SECONDS
 *       splices the entry block of every function in [FIRST, LAST) that the
 *       planner accepts, all at once in one batch with count; keeps them
 *       SECONDS under the load; checks that the system calls it makes itself
 *       are counted at their entries (every call at least once); unsplices.
 *   gilk-torture blocks FIRST LAST CHUNK SECONDS
 *       every block of every function in [FIRST, LAST) that the planner
 *       accepts (trap mode where no jump fits), CHUNK functions at a time:
 *       each chunk spliced in one batch, SECONDS under the load, unspliced.
 *       Most chunks count; every tenth from the fourth uses tsc, every
 *       tenth from the eighth regs (events drained).
 * Beside the load, lifecycle.c takes CPUs off and on line, suspends the
 * guest and resumes it, and loads and unloads a module while gilk reads and
 * splices its text; every fifth chunk of blocks is removed with gilk.ko
 * itself (rmmod, with the splices in place), which is inserted again.
 * Functions named in the file given by -s FILE (one a line) are left out:
 * the culprits found so far. Before each batch the bytes every plan will
 * write (site region, bounce slot, evicted neighbour) are read; after its
 * unsplice they must be the same. A batch gilk.ko refuses is split in
 * halves until the plan it refuses is found (named and counted: the planner
 * and the checker disagree there). The harness follows the run by these
 * lines, each flushed:
 *   torture: chunk K functions I J blocks N begin
 *   torture: chunk K done: S spliced, H hits
 *   torture: entries done: ... / torture: blocks done: ...
 * and marks each chunk in the kernel log ("gilk-torture: chunk K begin"
 * and "... end"), so that a report names its chunk. The phases of a chunk
 * say how long each took ("torture: spliced in S s"), and while a chunk runs
 * a line every minute says so ("torture: chunk K: still at it after S s"):
 * a debug kernel takes minutes over a big chunk, and the harness stops a
 * guest that prints nothing for ten. A guest that really hangs stops these
 * lines too, and a chunk still at it after half an hour stops them: no
 * chunk takes that long.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lifecycle.h"
#include "live.h"
#include "load.h"

/* Runs over at most this many functions print their names. */
#define NAMED_MAX 4096

struct run {
	struct live lv;
	const struct ksym **fns;
	size_t nfns;
	char **skip;
	size_t nskip;
	unsigned long spliced, refused, differ, hits, chunks, blocks, planned;
	size_t why[SR_NREASONS];
	bool timed;		/* say how long each phase of a batch takes */
	struct timespec mark;
};

/* With r->timed: the seconds since the last mark, after what. */
static void phase(struct run *r, const char *what)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (r->timed)
		printf("torture: %s in %.1f s\n", what,
		       (double)(now.tv_sec - r->mark.tv_sec) +
		       (double)(now.tv_nsec - r->mark.tv_nsec) / 1e9);
	r->mark = now;
}

static void kmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void kmsg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(fd, line, strlen(line)) < 0)
		perror("torture: /dev/kmsg");
	close(fd);
}

static int load_skip(struct run *r, const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		char **m = realloc(r->skip, (r->nskip + 1) * sizeof(*m));

		line[strcspn(line, "\n")] = 0;
		if (!m || !line[0]) {
			if (m)
				r->skip = m;
			continue;
		}
		r->skip = m;
		r->skip[r->nskip++] = strdup(line);
	}
	fclose(f);
	return 0;
}

static bool skipped(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->nskip; i++)
		if (!strcmp(r->skip[i], name))
			return true;
	return false;
}

/* The bytes a plan writes: its region, its bounce slot, an evicted run. */
struct patch {
	uint64_t addr;
	uint8_t len;
	uint8_t before[SPLICE_REGION_MAX];
};

static size_t plan_patches(const struct splice_plan *p, struct patch *out)
{
	size_t n = 0;

	out[n++] = (struct patch){ .addr = p->region.addr, .len = p->region.len };
	if (p->mode == SPLICE_BOUNCE && p->slot)
		out[n++] = (struct patch){ .addr = p->slot, .len = 5 };
	if (p->bounce_kind == BOUNCE_EVICT && p->evict.len)
		out[n++] = (struct patch){ .addr = p->evict.addr, .len = p->evict.len };
	return n;
}

static int read_patches(struct run *r, struct patch *pt, size_t n, bool compare)
{
	uint8_t now[SPLICE_REGION_MAX];
	struct gerr e;

	for (size_t i = 0; i < n; i++) {
		if (live_read_mem(&r->lv, pt[i].addr, compare ? now : pt[i].before, pt[i].len, &e)) {
			printf("torture: reading 0x%" PRIx64 ": %s\n", pt[i].addr, e.msg);
			return -1;
		}
		for (size_t b = 0; compare && b < pt[i].len; b++)
			r->differ += now[b] != pt[i].before[b];
	}
	return 0;
}

static void name_site(struct run *r, uint64_t a, char *buf, size_t len)
{
	symtab_format(r->lv.k.syms, a, buf, len);
}

/*
 * Splices plans[0..n) with ins in one batch; where gilk.ko refuses the
 * batch, each half alone, down to the plan it refuses. ids[i] is plan i's
 * splice, or 0. Returns how many went in.
 */
static size_t splice_halving(struct run *r, const struct splice_plan *plans, size_t n,
			     const char *ins, uint32_t *ids)
{
	struct gerr e;
	char where[160];

	if (!n)
		return 0;
	if (!live_splice_batch(&r->lv, plans, n, ins, "", ids, &e))
		return n;
	if (n == 1) {
		ids[0] = 0;
		name_site(r, plans[0].region.addr, where, sizeof(where));
		if (r->refused++ < 50)
			printf("torture: gilk.ko refused the plan at %s (%s): %s\n", where,
			       splice_mode_name(plans[0].mode), e.msg);
		return 0;
	}
	return splice_halving(r, plans, n / 2, ins, ids) +
	       splice_halving(r, plans + n / 2, n - n / 2, ins, ids + n / 2);
}

static int unsplice(struct run *r, const uint32_t *ids, size_t n)
{
	uint32_t *live = malloc((n + 1) * sizeof(*live));
	size_t k = 0;
	struct gerr e;
	int rc;

	if (!live)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (ids[i])
			live[k++] = ids[i];
	rc = k ? live_unsplice_batch(&r->lv, live, k, &e) : 0;
	if (rc)
		printf("torture: unsplicing %zu splices: %s\n", k, e.msg);
	free(live);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Hits of the splices ids[0..n), summed. */
static unsigned long sum_hits(struct run *r, const uint32_t *ids, size_t n)
{
	struct gilk_splice_info *l = NULL;
	uint32_t *sorted = malloc((n + 1) * sizeof(*sorted));
	unsigned long h = 0;
	size_t nl = 0;
	struct gerr e;

	if (!sorted || live_list(&r->lv, &l, &nl, &e)) {
		free(sorted);
		return 0;
	}
	memcpy(sorted, ids, n * sizeof(*ids));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	for (size_t i = 0; i < nl; i++)
		if (bsearch(&l[i].id, sorted, n, sizeof(*sorted), cmp_u32))
			h += l[i].hits;
	free(l);
	free(sorted);
	return h;
}

static void drain_events(struct run *r)
{
	static uint8_t buf[1 << 16];
	struct gerr e;

	while (live_read_events(&r->lv, buf, sizeof(buf), &e) > 0)
		;
}

/*
 * Plans the sites of functions [first, last): their entry blocks, or every
 * block. *plans and *nplans get the accepted plans.
 */
static int plan_functions(struct run *r, size_t first, size_t last, bool every_block,
			  struct splice_plan **plans, size_t *nplans)
{
	uint64_t *starts = calloc(last - first + 1, sizeof(*starts)), *sites = NULL;
	size_t nstarts = 0, nsites = 0, cap = 0;
	struct splice_plan *p = NULL;
	static struct cfg g;
	enum splice_reason *why = NULL;
	bool *ok = NULL;
	struct gerr e;
	int rc = -1;

	*plans = NULL;
	*nplans = 0;
	if (!starts)
		return -1;
	for (size_t i = first; i < last; i++) {
		/* the harness names a culprit from a run over a few */
		if (last - first <= NAMED_MAX)
			printf("torture: function %zu %s\n", i, r->fns[i]->name);
		if (!skipped(r, r->fns[i]->name))
			starts[nstarts++] = r->fns[i]->addr;
	}
	if (live_batch_begin(&r->lv, starts, nstarts, &e)) {
		printf("torture: asking gilk.ko about functions %zu..%zu: %s\n", first, last, e.msg);
		goto out;
	}
	for (size_t i = 0; i < nstarts; i++) {
		size_t nb = 1;

		if (every_block) {
			if (kernel_cfg(&r->lv.k, starts[i], &g, &e))
				continue;
			nb = g.nblocks;
		}
		if (nsites + nb > cap) {
			uint64_t *m;

			cap = 2 * (nsites + nb);
			m = realloc(sites, cap * sizeof(*m));
			if (!m)
				goto out_batch;
			sites = m;
		}
		for (size_t b = 0; b < nb; b++)
			sites[nsites++] = live_block_site(&r->lv, every_block ? g.blocks[b].start : starts[i]);
	}
	p = calloc(nsites + 1, sizeof(*p));
	ok = calloc(nsites + 1, sizeof(*ok));
	why = calloc(nsites + 1, sizeof(*why));
	if (!p || !ok || !why)
		goto out_batch;
	live_plan_many(&r->lv, sites, nsites, every_block ? SPLICE_ALLOW_TRAP : 0, p, ok, why);
	for (size_t i = 0; i < nsites; i++) {
		if (!ok[i]) {
			r->why[why[i] < SR_NREASONS ? why[i] : 0]++;
			continue;
		}
		p[(*nplans)++] = p[i];
	}
	r->blocks += nsites;
	r->planned += *nplans;
	*plans = p;
	p = NULL;
	rc = 0;
out_batch:
	live_batch_end(&r->lv);
out:
	free(starts);
	free(sites);
	free(p);
	free(ok);
	free(why);
	return rc;
}

/* The core kernel's functions, in address order, from the session's
 * symbols (again after gilk.ko is inserted anew: they point into them). */
static int list_functions(struct run *r)
{
	free(r->fns);
	r->nfns = symtab_functions(r->lv.k.syms, r->lv.k.text_start, r->lv.k.text_end, NULL, 0);
	r->fns = calloc(r->nfns + 1, sizeof(*r->fns));
	if (!r->fns)
		return -1;
	symtab_functions(r->lv.k.syms, r->lv.k.text_start, r->lv.k.text_end, r->fns, r->nfns);
	return 0;
}

/*
 * gilk.ko removed with this batch's splices in place (its exit removes
 * every splice, under the load, as rmmod does for a user) and inserted
 * again; the session opened anew.
 */
static int reload_gilk(struct run *r)
{
	struct gerr e;
	int ok;

	pthread_mutex_lock(&lifecycle_gilk);
	live_close(&r->lv);
	ok = system("rmmod gilk") == 0 && system("insmod build/gilk.ko dyndbg=+p") == 0;
	if (live_open(&r->lv, NULL, &e)) {
		printf("torture: gilk.ko inserted again: %s\n", e.msg);
		ok = 0;
	} else if (list_functions(r)) {
		ok = 0;
	}
	pthread_mutex_unlock(&lifecycle_gilk);
	lifecycle_count_reload(ok);
	return ok ? 0 : -1;
}

/* Splices plans, holds them for secs under the load, unsplices them (or
 * removes gilk.ko with them in place: reload), and compares the bytes they
 * wrote. Hits summed into *hits. */
static int torture_batch(struct run *r, const struct splice_plan *plans, size_t n,
			 const char *ins, unsigned secs, bool reload, unsigned long *hits,
			 void (*check)(struct run *r, const struct splice_plan *plans,
				       const uint32_t *ids, size_t n))
{
	struct patch *pt = calloc(3 * n + 1, sizeof(*pt));
	uint32_t *ids = calloc(n + 1, sizeof(*ids));
	size_t npt = 0, made;
	int rc = -1;

	if (!pt || !ids)
		goto out;
	for (size_t i = 0; i < n; i++)
		npt += plan_patches(&plans[i], pt + npt);
	if (read_patches(r, pt, npt, false))
		goto out;
	phase(r, "text read");
	made = splice_halving(r, plans, n, ins, ids);
	r->spliced += made;
	phase(r, "spliced");
	sleep(secs);
	if (check)
		check(r, plans, ids, n);
	*hits = sum_hits(r, ids, n);
	phase(r, "held and checked");
	if (reload ? reload_gilk(r) : unsplice(r, ids, n))
		goto out;
	phase(r, reload ? "gilk.ko removed and inserted" : "unspliced");
	drain_events(r);
	rc = read_patches(r, pt, npt, true);
	phase(r, "text compared");
out:
	free(pt);
	free(ids);
	return rc;
}

/* The system calls this process makes, each counted at its entry. */
static const struct {
	const char *fn;
	int nr;
} calls[] = {
	{ "__x64_sys_getppid", SYS_getppid },
	{ "__x64_sys_getpid", SYS_getpid },
	{ "__x64_sys_getuid", SYS_getuid },
	{ "__x64_sys_getgid", SYS_getgid },
	{ "__x64_sys_newuname", SYS_uname },
};

static unsigned long checks_failed;

static void check_syscalls(struct run *r, const struct splice_plan *plans,
			   const uint32_t *ids, size_t n)
{
	enum { CALLS = 1000 };
	struct utsname u;

	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		const struct ksym *s;
		struct gilk_splice_info before, after;
		uint64_t start, end;
		struct gerr e;
		size_t i;

		if (symtab_by_name(r->lv.k.syms, calls[c].fn, &s, 1) != 1 ||
		    symtab_function(r->lv.k.syms, s->addr, NULL, &start, &end))
			continue;
		for (i = 0; i < n; i++)
			if (ids[i] && plans[i].region.addr >= start && plans[i].region.addr < end)
				break;
		if (i == n) {
			printf("torture: %s's entry was not spliced\n", calls[c].fn);
			checks_failed++;
			continue;
		}
		live_info(&r->lv, ids[i], &before, &e);
		for (int k = 0; k < CALLS; k++)
			syscall(calls[c].nr, &u);
		live_info(&r->lv, ids[i], &after, &e);
		printf("torture: %s: %" PRIu64 " hits for %d calls\n", calls[c].fn,
		       (uint64_t)(after.hits - before.hits), CALLS);
		if (after.hits - before.hits < CALLS)
			checks_failed++;
	}
}

static int entries(struct run *r, size_t first, size_t last, unsigned secs)
{
	struct splice_plan *plans;
	unsigned long hits = 0;
	size_t n;
	int rc;

	printf("torture: chunk 0 functions %zu %zu blocks 0 begin\n", first, last);
	kmsg("gilk-torture: chunk 0 begin\n");
	printf("torture: planning the entries of %zu functions\n", last - first);
	r->timed = true;
	clock_gettime(CLOCK_MONOTONIC, &r->mark);
	if (plan_functions(r, first, last, false, &plans, &n))
		return -1;
	phase(r, "planned");
	printf("torture: %zu of %zu function entries planned; splicing them in one batch\n", n,
	       r->blocks);
	rc = torture_batch(r, plans, n, "count", secs, false, &hits, check_syscalls);
	free(plans);
	kmsg("gilk-torture: chunk 0 end\n");
	printf("torture: chunk 0 done: %lu spliced, %lu hits\n", r->spliced, hits);
	r->hits = hits;
	r->chunks = 1;
	return rc || checks_failed ? -1 : 0;
}

static const char *instrument_of(unsigned long chunk)
{
	return chunk % 10 == 3 ? "tsc" : chunk % 10 == 7 ? "regs" : "count";
}

/* The chunk under way, for the heartbeat; -1 between chunks. */
struct heartbeat {
	pthread_mutex_t lock;
	long chunk;
	struct timespec since;
};

static void *heartbeat(void *arg)
{
	struct heartbeat *h = arg;

	for (;;) {
		struct timespec now;

		sleep(60);
		clock_gettime(CLOCK_MONOTONIC, &now);
		pthread_mutex_lock(&h->lock);
		/* past half an hour a chunk is stuck: let the harness see it */
		if (h->chunk >= 0 && now.tv_sec - h->since.tv_sec < 1800)
			printf("torture: chunk %ld: still at it after %ld s\n", h->chunk,
			       (long)(now.tv_sec - h->since.tv_sec));
		pthread_mutex_unlock(&h->lock);
	}
	return NULL;
}

static void heartbeat_set(struct heartbeat *h, long chunk)
{
	pthread_mutex_lock(&h->lock);
	h->chunk = chunk;
	clock_gettime(CLOCK_MONOTONIC, &h->since);
	pthread_mutex_unlock(&h->lock);
}

static int blocks(struct run *r, size_t first, size_t last, size_t chunk, unsigned secs)
{
	static struct heartbeat h = { PTHREAD_MUTEX_INITIALIZER, -1, { 0, 0 } };
	pthread_t beat;
	int rc = 0;

	if (pthread_create(&beat, NULL, heartbeat, &h) == 0)
		pthread_detach(beat);
	r->timed = true;
	for (size_t i = first; i < last; i += chunk) {
		size_t j = i + chunk < last ? i + chunk : last, n;
		unsigned long k = r->chunks++, hits = 0, before = r->blocks;
		struct splice_plan *plans;

		printf("torture: chunk %lu functions %zu %zu blocks ? begin\n", k, i, j);
		kmsg("gilk-torture: chunk %lu begin\n", k);
		heartbeat_set(&h, (long)k);
		clock_gettime(CLOCK_MONOTONIC, &r->mark);
		if (plan_functions(r, i, j, true, &plans, &n)) {
			heartbeat_set(&h, -1);
			rc = -1;
			continue;
		}
		phase(r, "planned");
		/* every fifth chunk, from the third, goes with gilk.ko itself */
		rc |= torture_batch(r, plans, n, instrument_of(k), secs, k % 5 == 2, &hits, NULL);
		free(plans);
		r->hits += hits;
		heartbeat_set(&h, -1);
		kmsg("gilk-torture: chunk %lu end\n", k);
		printf("torture: chunk %lu done: %zu of %lu blocks planned, %lu hits (%s)\n", k, n,
		       r->blocks - before, hits, instrument_of(k));
	}
	return rc;
}

static int usage(void)
{
	fprintf(stderr, "usage: gilk-torture [-s SKIPFILE] count | entries FIRST LAST SECONDS |"
		" blocks FIRST LAST CHUNK SECONDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct run r;
	const char *skip = NULL;
	size_t first, last;
	unsigned long load_errors;
	struct lifecycle_counts lc;
	struct gerr e;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "-s")) {
		skip = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		return usage();
	if (live_open(&r.lv, NULL, &e)) {
		fprintf(stderr, "torture: %s\n", e.msg);
		return 1;
	}
	if (skip && load_skip(&r, skip)) {
		perror(skip);
		return 1;
	}
	if (list_functions(&r))
		return 1;
	if (!strcmp(argv[1], "count")) {
		printf("torture: functions %zu\n", r.nfns);
		return 0;
	}
	if (argc < 5 || (!strcmp(argv[1], "blocks") && argc < 6))
		return usage();
	first = strtoul(argv[2], NULL, 0);
	last = strtoul(argv[3], NULL, 0);
	if (last > r.nfns)
		last = r.nfns;
	if (first > last)
		return usage();
	load_start();
	lifecycle_start(8);
	if (setpriority(PRIO_PROCESS, 0, -15))
		perror("torture: setpriority");
	if (!strcmp(argv[1], "entries"))
		rc = entries(&r, first, last, (unsigned)strtoul(argv[4], NULL, 0));
	else if (!strcmp(argv[1], "blocks"))
		rc = blocks(&r, first, last, strtoul(argv[4], NULL, 0),
			    (unsigned)strtoul(argv[5], NULL, 0));
	else
		return usage();
	lifecycle_stop(&lc);
	load_errors = load_stop();
	printf("torture: lifecycles: %lu cpu cycles, %lu suspends (%lu refused by the kernel), %lu module loads (%lu FACTS while loading), %lu gilk.ko reloads, %lu failed\n",
	       lc.cpu_cycles, lc.suspends, lc.suspend_refusals, lc.module_loads, lc.module_facts,
	       lc.reloads, lc.errors);
	for (int w = 1; w < SR_NREASONS; w++)
		if (r.why[w])
			printf("torture: refused by the planner: %zu %s\n", r.why[w],
			       splice_reason_name((enum splice_reason)w));
	printf("torture: %s done: %lu sites, %lu planned, %lu spliced, %lu refused by gilk.ko, %lu hits, %lu chunks, %lu text bytes differ, %lu load errors, %lu checks failed\n",
	       argv[1], r.blocks, r.planned, r.spliced, r.refused, r.hits, r.chunks, r.differ,
	       load_errors, checks_failed);
	live_close(&r.lv);
	return rc || r.differ || load_errors || checks_failed || lc.errors ? 1 : 0;
}
