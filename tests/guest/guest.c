/* Shared by the guest test files (see guest.h). */
#include "guest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

uint64_t sym(struct live *lv, const char *name)
{
	const struct ksym *s;

	return symtab_by_name(lv->k.syms, name, &s, 1) == 1 ? s->addr : 0;
}

uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s += 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
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

