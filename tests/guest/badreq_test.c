/*
 * Bad requests: valid SPLICE requests with one field
 * changed (every field; 0, the maximum, one past it, -1 and random values),
 * sent while another process splices and unsplices through its own file and
 * while an instrument module comes and goes. gilk.ko must refuse each with
 * one of its own errnos and a reason, keep answering, and leak nothing:
 * no splice, no reservation, no trampoline page (run.sh compares module-area
 * memory before gilk.ko is loaded and after it is removed).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errnos.h"
#include "guest.h"

struct field {
	const char *name;
	size_t off, size;       /* size 1..8: an integer; larger: bytes;
				 * 0: GILK_SPLICE_FULL toggled */
};

#define F(name, member) { name, offsetof(struct gilk_splice, member), \
			  sizeof(((struct gilk_splice *)0)->member) }
#define P(i, name, member) { "patch[" #i "]." name, \
			     offsetof(struct gilk_splice, patch[i].member), \
			     sizeof(((struct gilk_splice *)0)->patch[i].member) }

static const struct field fields[] = {
	F("id", id), F("flags", flags), F("site", site), F("region_len", region_len),
	F("npatch", npatch), F("region_orig", region_orig),
	P(0, "addr", addr), P(0, "divert", divert), P(0, "len", len), P(0, "kind", kind),
	P(0, "bytes", bytes), P(0, "orig", orig),
	P(1, "addr", addr), P(1, "divert", divert), P(1, "len", len), P(1, "kind", kind),
	P(1, "bytes", bytes), P(1, "orig", orig),
	F("tramp_len", tramp_len), F("evict_len", evict_len), F("tramp", tramp),
	F("evict", evict), F("instrument", instrument), F("arg", arg), F("pad", pad),
	/* the template chooser: count's inline trampoline proposed as full
	 * (refused), argfilter's full one asked full again (harmless) */
	{ "flags.full", offsetof(struct gilk_splice, flags), 0 },
};

/*
 * A refusal through gilk.ko's table: a kind of reason it names, whose errno
 * is the one the ioctl failed with, and a sentence.
 */
static bool specific(int err, const struct gilk_splice *req)
{
	const struct gilk_refusal_row *r = gilk_refusal_of(req->refusal);

	return r && r->err == err && req->reason[0];
}

static uint64_t boundary(uint64_t *rng, size_t size, uint64_t now)
{
	uint64_t max = size >= 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
	static const uint64_t special[] = { 0, 1, 2, 5, 31, 32, 33, 255, 256, 511, 512, 513,
					    1024, 2048, 4096 };

	switch (rng_next(rng) % 8) {
	case 0: return 0;
	case 1: return max;
	case 2: return max - 1;
	case 3: return now + 1;
	case 4: return now - 1;
	case 5: return special[rng_next(rng) % (sizeof(special) / sizeof(special[0]))];
	case 6: return (uint64_t)(int64_t)-1 & max;
	default: return rng_next(rng) & max;
	}
}

static void change(struct gilk_splice *r, const struct field *f, uint64_t *rng)
{
	uint8_t *p = (uint8_t *)r + f->off;

	if (!f->size) {
		r->flags ^= GILK_SPLICE_FULL;
		return;
	}
	if (f->size <= 8) {
		uint64_t now = 0, v;

		memcpy(&now, p, f->size);
		v = boundary(rng, f->size, now);
		memcpy(p, &v, f->size);
		return;
	}
	switch (rng_next(rng) % 3) {
	case 0:	/* one byte */
		p[rng_next(rng) % f->size] ^= (uint8_t)(1 + rng_next(rng) % 255);
		break;
	case 1:	/* all of it */
		memset(p, (int)(rng_next(rng) & 0xff), f->size);
		break;
	default:	/* a run of random bytes */
		for (size_t i = rng_next(rng) % f->size, n = 1 + rng_next(rng) % 16; n-- && i < f->size; i++)
			p[i] = (uint8_t)rng_next(rng);
		break;
	}
}

/* Another file splicing and unsplicing the same site, until killed. */
static pid_t racer(uint64_t site)
{
	pid_t k = fork();

	if (k == 0) {
		struct live lv;
		struct splice_plan p;
		struct gerr e;
		uint32_t id;

		if (live_open(&lv, NULL, &e) || live_plan(&lv, site, 0, &p, &e))
			_exit(1);
		for (;;)
			if (live_splice(&lv, &p, "count", "", &id, &e) == 0)
				live_unsplice(&lv, id, &e);
	}
	return k;
}

/*
 * An instrument module loaded and unloaded, until its process group is
 * killed: the insmod or rmmod under way goes with it (killed alone, the
 * churner left one running, and the next test's insmod found the module
 * still going).
 */
static pid_t churner(void)
{
	pid_t k = fork();

	if (k == 0) {
		setpgid(0, 0);
		for (;;) {
			if (system("insmod build/instruments/argfilter.ko 2>/dev/null"))
				usleep(1000);
			if (system("rmmod argfilter 2>/dev/null"))
				usleep(1000);
		}
	}
	setpgid(k, k);	/* before the kill, whichever runs first */
	return k;
}

/* Waits until no module is coming or going (insmod and rmmod are done). */
static void modules_settled(void)
{
	for (int i = 0; i < 500; i++) {
		char line[256];
		bool busy = false;
		FILE *f = fopen("/proc/modules", "r");

		while (f && fgets(line, sizeof(line), f))
			busy |= strstr(line, " Loading ") || strstr(line, " Unloading ");
		if (f)
			fclose(f);
		if (!busy)
			return;
		usleep(10000);
	}
}

/* Trampoline pages gilk.ko holds: module-area memory it allocated. */
static int gilk_pages(void)
{
	FILE *f;
	char line[256];
	int n = 0;

	f = fopen("/proc/sys/kernel/kptr_restrict", "w");
	if (f) {
		fputs("1", f);	/* callers named, addresses real */
		fclose(f);
	}
	f = fopen("/proc/vmallocinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, "[gilk]") != NULL;
	if (f)
		fclose(f);
	return f ? n : -1;
}

/*
 * Bad batches (since ABI 6: a batch of any size up to GILK_BATCH_MAX, read one
 * request at a time): counts out of range, items that are not there, a
 * count past the requests given, a request refused in the middle. Each
 * refused with its errno, the failing index and reason where there is one;
 * nothing spliced or reserved after.
 */
static void bad_batches(struct live *lv, const struct splice_plan *p)
{
	static struct gilk_splice reqs[2];
	struct gilk_batch b;
	struct gilk_stats st;
	uint32_t ids[2] = { 0, 0 };
	size_t bad = 0;
	struct gerr e;
	const struct {
		const char *what;
		uint32_t count;
		uint64_t items;
		int err;
	} cases[] = {
		{ "count 0", 0, (uintptr_t)reqs, EINVAL },
		{ "count past GILK_BATCH_MAX", GILK_BATCH_MAX + 1, (uintptr_t)reqs, EINVAL },
		{ "count ~0", ~0u, (uintptr_t)reqs, EINVAL },
		{ "items NULL", 1, 0, EFAULT },
		{ "items in kernel space", 1, 0xffffffff81000000ull, EFAULT },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b = (struct gilk_batch){ .count = cases[i].count, .items = cases[i].items };
		if (ioctl(lv->fd, GILK_IOC_SPLICE_BATCH, &b) == 0 || errno != cases[i].err) {
			printf("  note: splice batch, %s: %s\n", cases[i].what, strerror(errno));
			bad++;
		}
		if (ioctl(lv->fd, GILK_IOC_UNSPLICE_BATCH, &b) == 0 ||
		    errno != (cases[i].err == EFAULT ? EFAULT : EINVAL)) {
			printf("  note: unsplice batch, %s: %s\n", cases[i].what, strerror(errno));
			bad++;
		}
	}
	/* a good request, then one with no reservation: refused at index 1
	 * with its reason, the first undone */
	if (live_request(lv, p, "count", "", &reqs[0], NULL, &e) == 0) {
		b = (struct gilk_batch){ .count = 2, .items = (uintptr_t)reqs };
		reqs[1] = reqs[0];
		reqs[1].id = 0;	/* no reservation 0 */
		if (ioctl(lv->fd, GILK_IOC_SPLICE_BATCH, &b) == 0 || errno != EINVAL ||
		    b.failed != 1 || !strstr(reqs[1].reason, "reservation 0") ||
		    reqs[1].refusal != GILK_REFUSED_MALFORMED) {
			printf("  note: a bad request inside a batch: %s, failed %u, \"%s\"\n",
			       strerror(errno), b.failed, reqs[1].reason);
			bad++;
		}
		ioctl(lv->fd, GILK_IOC_RELEASE, &reqs[0].id);
	}
	b = (struct gilk_batch){ .count = 2, .items = (uintptr_t)ids };
	if (ioctl(lv->fd, GILK_IOC_UNSPLICE_BATCH, &b) == 0 || errno != ENOENT || b.failed != 0) {
		printf("  note: unsplice batch of ids that are not splices: %s\n", strerror(errno));
		bad++;
	}
	check(bad == 0 && live_stats(lv, &st, &e) == 0 && st.splices == 0 && st.reserved == 0,
	      "bad batches: counts out of range, items not there, a bad request in the middle: each refused with its errno (and index and reason), nothing spliced or reserved after");
}

void test_badreq(struct live *lv, int count)
{
	static struct gilk_splice base, req;
	const uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_getppid"));
	const uint64_t other = live_block_site(lv, sym(lv, "do_prlimit"));
	struct splice_plan p;
	uint64_t rng = 0xbad5eed;
	size_t refused = 0, accepted = 0, vague = 0, by_field[32] = { 0 };
	struct gerr e;
	pid_t race, churn;
	bool have = false;
	int pages0, pages1;

	if (live_plan(lv, other, 0, &p, &e)) {
		check(0, "bad requests: a plan to change: %s", e.msg);
		return;
	}
	pages0 = gilk_pages();
	race = racer(site);
	churn = churner();
	for (int n = 0; n < count; n++) {
		const struct field *f = &fields[rng_next(&rng) % (sizeof(fields) / sizeof(fields[0]))];
		int err;

		/* a changed argument is accepted by design, and each accepted
		 * request costs grace periods: only now and then */
		if (!strcmp(f->name, "arg") && n % 500)
			f = &fields[0];

		/* one reservation serves until a request is accepted */
		if (!have) {
			if (live_request(lv, &p, (n & 1) ? "argfilter" : "count", "", &base, NULL, &e))
				continue;
			have = true;
		}
		req = base;
		change(&req, f, &rng);
		if (!memcmp(&req, &base, sizeof(req)))
			continue;
		req.reason[0] = 0;
		err = ioctl(lv->fd, GILK_IOC_SPLICE, &req) ? errno : 0;
		if (!err) {
			/* a harmless change (an argument, a reason, the other
			 * instrument): the splice is real, and goes */
			accepted++;
			live_unsplice(lv, req.id, &e);
			have = false;
			continue;
		}
		refused++;
		by_field[f - fields]++;
		if (!specific(err, &req)) {
			if (vague++ < 5)
				printf("  note: %s changed: %s, refusal %u, reason \"%s\"\n", f->name,
				       strerror(err), req.refusal, req.reason);
		}
	}
	kill(race, SIGKILL);
	kill(-churn, SIGKILL);
	waitpid(race, NULL, 0);
	waitpid(churn, NULL, 0);
	modules_settled();
	if (have)
		ioctl(lv->fd, GILK_IOC_RELEASE, &base.id);
	{
		struct gilk_splice_info *all = NULL;
		struct gilk_version v;
		size_t active = 1;
		int leaked;

		/* the racer's last splice or reservation, left as it was killed */
		live_list(lv, &all, &active, &e);
		for (size_t i = 0; i < active; i++)
			live_unsplice(lv, all[i].id, &e);
		free(all);
		release_all(lv);
		leaked = gilk_holds(lv) != 0;
		live_list(lv, &all, &active, &e);
		free(all);
		pages1 = gilk_pages();
		bad_batches(lv, &p);
		check(vague == 0 && refused > 0 && ioctl(lv->fd, GILK_IOC_VERSION, &v) == 0 &&
		      active == 0 && !leaked,
		      "bad requests: %d sent with one field changed (%zu refused, each with its own errno and a reason; %zu harmless accepted), racing another file's splices and an instrument module coming and going; no splice or reservation left",
		      count, refused, accepted);
		/* with nothing spliced, only the chunk kept for the next */
		check(pages0 >= 0 && pages1 >= 0 && pages1 <= 1,
		      "bad requests: no trampoline memory leaked (%d module-area areas before, %d after: the one chunk kept)",
		      pages0, pages1);
	}
	system("rmmod argfilter 2>/dev/null; insmod build/instruments/argfilter.ko");
}
