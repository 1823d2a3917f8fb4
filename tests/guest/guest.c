/* Shared by the guest test files (see guest.h). */
#include "guest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int passed, failed;

void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

int check_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* NAME or NAME+OFFSET (decimal, or hex with 0x) */
uint64_t sym(struct live *lv, const char *name)
{
	const char *plus = strchr(name, '+');
	char base[256];
	const struct ksym *s;
	uint64_t off = 0;
	char *end;

	snprintf(base, sizeof(base), "%.*s", (int)(plus ? (size_t)(plus - name) : strlen(name)),
		 name);
	if (plus) {
		off = strtoull(plus + 1, &end, 0);
		if (end == plus + 1 || *end)
			return 0;
	}
	return symtab_by_name(lv->k.syms, base, &s, 1) == 1 ? s->addr + off : 0;
}

uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s += 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void release_all(struct live *lv)
{
	struct gilk_reserve r = { .tramp_size = 64 };

	/* the newest id bounds every id given so far */
	if (ioctl(lv->fd, GILK_IOC_RESERVE, &r))
		return;
	for (uint32_t id = 1; id <= r.id; id++)
		ioctl(lv->fd, GILK_IOC_RELEASE, &id);
}

long gilk_holds(struct live *lv)
{
	struct gilk_stats st;

	if (ioctl(lv->fd, GILK_IOC_STATS, &st))
		return -1;
	return (long)st.splices + (long)st.reserved;
}

uint64_t hits(struct live *lv, uint32_t id)
{
	struct gilk_splice_info in;
	struct gerr e;

	return live_info(lv, id, &in, &e) ? UINT64_MAX : in.hits;
}

int splice_at(struct live *lv, uint64_t site, unsigned flags,
		     const char *ins, const char *arg, uint32_t *id,
		     struct splice_plan *p)
{
	struct gerr e;

	if (live_plan(lv, site, flags, p, &e) || live_splice(lv, p, ins, arg, id, &e)) {
		printf("  note: %s\n", e.msg);
		return -1;
	}
	return 0;
}

int restored(struct live *lv, const struct splice_plan *p)
{
	uint8_t b[SPLICE_REGION_MAX];
	struct gerr e;

	return live_read_mem(lv, p->region.addr, b, p->region.len, &e) == 0 &&
	       memcmp(b, p->region.orig, p->region.len) == 0;
}

/* The plan is a 5-byte jmp over orig, one 5-byte nop in its place. */
int force_splice(struct live *lv, uint64_t site, const uint8_t *orig,
		 enum bug_kind bug, int *err, char *reason, size_t rlen)
{
	struct splice_plan p;
	struct gerr e;
	uint32_t id;
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	memset(&p, 0, sizeof(p));
	p.mode = SPLICE_JMP;
	p.bug = bug;
	p.region.addr = site;
	p.region.len = p.region.live = 5;
	p.region.ninsn = 1;
	memcpy(p.region.orig, orig, 5);
	p.region.insns[0].addr = site;
	p.region.insns[0].len = 5;
	memcpy(p.region.insns[0].bytes, nop5, 5);
	if (live_splice(lv, &p, "count", "", &id, &e) == 0) {
		live_unsplice(lv, id, &e);
		*err = 0;
		return 0;
	}
	*err = errno;
	snprintf(reason, rlen, "%s", e.msg);
	return -1;
}

void expect_refusal(struct live *lv, const char *what, uint64_t site,
		    int want, const char *words)
{
	uint8_t live5[5] = { 0 };
	char reason[512] = "";
	struct gerr e;
	int err = 0;

	live_read_mem(lv, site, live5, 5, &e);
	force_splice(lv, site, live5, BUG_NONE, &err, reason, sizeof(reason));
	check(err == want && strstr(reason, words), "%s refused by gilk.ko: %s (%s)", what,
	      strerror(err), reason);
}

int write_file(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

long target_result(void)
{
	char buf[32];
	int fd = open("/proc/gilk_target", O_RDONLY);
	ssize_t k = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (k <= 0)
		return LONG_MIN;
	buf[k] = 0;
	return strtol(buf, NULL, 10);
}

void open_n(int n)
{
	for (int i = 0; i < n; i++) {
		int fd = open("/gilk/build/bin/test-live", O_RDONLY);

		if (fd >= 0)
			close(fd);
	}
}

size_t plan_blocks(struct live *lv, const char *fn, struct splice_plan *plans, size_t max,
		   size_t *nblocks)
{
	uint64_t *sites = calloc(max, sizeof(*sites)), f = sym(lv, fn);
	enum splice_reason *why = calloc(max, sizeof(*why));
	bool *ok = calloc(max, sizeof(*ok));
	static struct cfg g;
	struct gerr e;
	size_t n = 0;

	*nblocks = 0;
	if (sites && why && ok && f && !kernel_cfg(&lv->k, f, &g, &e)) {
		*nblocks = g.nblocks < max ? g.nblocks : max;
		for (size_t b = 0; b < *nblocks; b++)
			sites[b] = live_block_site(lv, g.blocks[b].start);
		live_plan_many(lv, sites, *nblocks, 0, plans, ok, why);
	}
	for (size_t b = 0; b < *nblocks; b++) {
		if (ok[b])
			plans[n++] = plans[b];
		else
			printf("  note: %s block at 0x%" PRIx64 ": %s\n", fn, sites[b],
			       splice_reason_name(why[b]));
	}
	free(sites);
	free(why);
	free(ok);
	return n;
}
