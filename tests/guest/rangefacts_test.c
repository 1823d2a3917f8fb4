/*
 * FACTS by range against a per-byte reference kept only
 * here: for every byte of a set of ranges, what the kernel's own per-address
 * predicates say, rebuilt from what user space can read of the same tables:
 *  - within_kprobe_blacklist(): the ranges debugfs lists, or a suffixed
 *    symbol (foo.cold) whose base symbol is in one;
 *  - search_exception_tables(): the core kernel's __ex_table, read through
 *    gilk.ko's READ, one entry per instruction address;
 *  - a kprobe on the byte or on one of the 4 before it (debugfs's list).
 * gilk.ko's per-byte FACTS gave a byte one kind, the first that held in that
 * order; its FACTS by range may report a byte under several, so both sides
 * are compared byte by byte under that order. Jump label and static call
 * sites, which gilk.ko now answers from its own index of the kernel's
 * tables, are compared with the same tables as the snapshot read them
 * (core/textfacts, from /proc/kcore). The ranges: a blacklisted
 * function, one with exception-table entries, a suffixed part of a
 * blacklisted function, a function under a kprobe (vfs_read), and random stretches
 * of kernel text; and a 1 MiB range, timed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define TRACING "/sys/kernel/debug/tracing"  /* tracefs, automounted */
#define KPROBES "/sys/kernel/debug/kprobes"

enum { NONE, BLACKLIST, EXTABLE, KPROBE };

struct spans {
	struct range *r;
	size_t n;
};

static void spans_add(struct spans *s, uint64_t lo, uint64_t hi)
{
	struct range *r = realloc(s->r, (s->n + 1) * sizeof(*r));

	if (!r)
		abort();
	s->r = r;
	r[s->n++] = (struct range){ lo, hi };
}

static bool spans_hold(const struct spans *s, uint64_t a)
{
	for (size_t i = 0; i < s->n; i++)
		if (a >= s->r[i].start && a < s->r[i].end)
			return true;
	return false;
}

struct reference {
	struct spans blacklist;
	uint64_t *ex, *kp;	/* extable instructions; kprobe addresses */
	size_t nex, nkp;
};

static void load_blacklist(struct reference *ref)
{
	FILE *f = fopen(KPROBES "/blacklist", "r");
	unsigned long long s, e;
	char name[256];

	while (f && fscanf(f, "0x%llx-0x%llx %255s\n", &s, &e, name) == 3)
		spans_add(&ref->blacklist, s, e);
	if (f)
		fclose(f);
}

static void load_kprobes(struct reference *ref)
{
	FILE *f = fopen(KPROBES "/list", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		uint64_t *k;

		if (strstr(line, "[GONE]"))
			continue;
		k = realloc(ref->kp, (ref->nkp + 1) * sizeof(*k));
		if (!k)
			abort();
		ref->kp = k;
		k[ref->nkp++] = strtoull(line, NULL, 16);
	}
	if (f)
		fclose(f);
}

/* The core kernel's table, entries of three s32s (insn, fixup, data), each
 * relative to its own address. */
static void load_extable(struct live *lv, struct reference *ref)
{
	uint64_t lo = sym(lv, "__start___ex_table"), hi = sym(lv, "__stop___ex_table");
	size_t n = (hi - lo) / 12;
	int32_t *t = malloc(hi - lo + 1);
	struct gerr e;

	ref->ex = calloc(n + 1, sizeof(*ref->ex));
	if (!t || !ref->ex || live_read_mem(lv, lo, t, hi - lo, &e)) {
		free(t);
		return;
	}
	for (size_t i = 0; i < n; i++)
		ref->ex[i] = lo + 12 * i + (uint64_t)(int64_t)t[3 * i];
	ref->nex = n;
	free(t);
}

/* The reference narrowed to [lo, hi), so each byte's answer is quick. */
static void narrow(const struct reference *ref, uint64_t lo, uint64_t hi,
		   struct reference *out)
{
	memset(out, 0, sizeof(*out));
	out->ex = calloc(ref->nex + 1, sizeof(*out->ex));
	out->kp = calloc(ref->nkp + 1, sizeof(*out->kp));
	if (!out->ex || !out->kp)
		abort();
	for (size_t i = 0; i < ref->blacklist.n; i++)
		if (ref->blacklist.r[i].start < hi && ref->blacklist.r[i].end > lo)
			spans_add(&out->blacklist, ref->blacklist.r[i].start, ref->blacklist.r[i].end);
	for (size_t i = 0; i < ref->nex; i++)
		if (ref->ex[i] >= lo && ref->ex[i] < hi)
			out->ex[out->nex++] = ref->ex[i];
	for (size_t i = 0; i < ref->nkp; i++)
		if (ref->kp[i] + 4 >= lo && ref->kp[i] < hi)
			out->kp[out->nkp++] = ref->kp[i];
}

/* Whether the symbol s is foo.SUFFIX with foo blacklisted. */
static bool base_blacklisted(struct live *lv, const struct reference *ref,
			     const struct ksym *s)
{
	const char *dot = s ? strchr(s->name, '.') : NULL;
	char base[256];

	if (!dot || (size_t)(dot - s->name) >= sizeof(base))
		return false;
	memcpy(base, s->name, (size_t)(dot - s->name));
	base[dot - s->name] = 0;
	return sym(lv, base) && spans_hold(&ref->blacklist, sym(lv, base));
}

/* near: ref narrowed to the range; a symbol's verdict is kept while a
 * range's bytes stay in it. */
static int kind_at(struct live *lv, const struct reference *ref,
		   const struct reference *near, uint64_t a,
		   const struct ksym **last, bool *last_base)
{
	const struct ksym *s = symtab_by_addr(lv->k.syms, a);

	if (s != *last) {
		*last = s;
		*last_base = base_blacklisted(lv, ref, s);
	}
	if (spans_hold(&near->blacklist, a) || *last_base)
		return BLACKLIST;
	for (size_t i = 0; i < near->nex; i++)
		if (near->ex[i] == a)
			return EXTABLE;
	for (size_t i = 0; i < near->nkp; i++)
		if (a >= near->kp[i] && a - near->kp[i] < 5)
			return KPROBE;
	return NONE;
}

static struct gilk_fact *ask(struct live *lv, uint64_t lo, uint64_t hi, uint32_t *n)
{
	struct gilk_facts q = { .start = lo, .end = hi };
	struct gilk_fact *f;

	if (ioctl(lv->fd, GILK_IOC_FACTS, &q))
		return NULL;
	q.max = q.count;
	f = calloc(q.max + 1, sizeof(*f));
	q.buf = (uintptr_t)f;
	if (!f || ioctl(lv->fd, GILK_IOC_FACTS, &q) || q.count > q.max) {
		free(f);
		return NULL;
	}
	*n = q.count;
	return f;
}

/* FACTS's kinds for each byte of [lo, hi), under the per-byte order; the
 * jump label and static call bytes in sites[] (bit 0 and bit 1). */
static int *answer(struct live *lv, uint64_t lo, uint64_t hi, uint8_t *sites)
{
	uint32_t n = 0;
	struct gilk_fact *f = ask(lv, lo, hi, &n);
	int *kind = calloc(hi - lo, sizeof(*kind));
	static const int rank[] = { [GILK_RES_BLACKLIST] = BLACKLIST,
				    [GILK_RES_EXTABLE] = EXTABLE,
				    [GILK_RES_KPROBE] = KPROBE };

	if (!f || !kind) {
		free(f);
		free(kind);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (f[i].kind == GILK_RES_JUMP_LABEL || f[i].kind == GILK_RES_STATIC_CALL)
			for (uint64_t a = f[i].start; a < f[i].end; a++)
				if (a >= lo && a < hi)
					sites[a - lo] |= f[i].kind == GILK_RES_JUMP_LABEL ? 1 : 2;
		if (f[i].kind != GILK_RES_BLACKLIST && f[i].kind != GILK_RES_EXTABLE &&
		    f[i].kind != GILK_RES_KPROBE)
			continue;
		for (uint64_t a = f[i].start; a < f[i].end; a++)
			if (a >= lo && a < hi &&
			    (!kind[a - lo] || kind[a - lo] > rank[f[i].kind]))
				kind[a - lo] = rank[f[i].kind];
	}
	free(f);
	return kind;
}

/* Returns whether every byte agrees; counts the kinds seen in seen[]. */
static bool compare(struct live *lv, const struct reference *ref, const char *what,
		    uint64_t lo, uint64_t hi, size_t *seen)
{
	uint8_t *sites = calloc(hi - lo, 1);
	int *got = sites ? answer(lv, lo, hi, sites) : NULL;
	size_t bad = 0, badsites = 0;
	uint64_t first = 0;
	int want0 = 0, got0 = 0;
	const struct ksym *last = NULL;
	bool last_base = false;
	struct reference near;

	if (!got) {
		free(sites);
		check(0, "FACTS by range on %s: asked", what);
		return false;
	}
	narrow(ref, lo, hi, &near);
	for (uint64_t a = lo; a < hi; a++) {
		int want = kind_at(lv, ref, &near, a, &last, &last_base);

		int snap = textfacts_overlaps(lv->k.facts, a, a + 1, RES_JUMP_LABEL) |
			   textfacts_overlaps(lv->k.facts, a, a + 1, RES_STATIC_CALL) << 1;

		seen[want]++;
		seen[4] += snap != 0;
		if (snap != sites[a - lo] && !badsites++)
			printf("  %s: at 0x%" PRIx64 " the snapshot has jump label/static call %d, FACTS %d\n",
			       what, a, snap, sites[a - lo]);
		if (want != got[a - lo] && !bad++) {
			first = a;
			want0 = want;
			got0 = got[a - lo];
		}
	}
	free(got);
	free(sites);
	free(near.blacklist.r);
	free(near.ex);
	free(near.kp);
	if (bad)
		printf("  %s: %zu bytes differ, the first at 0x%" PRIx64 ": per byte %d, by range %d\n",
		       what, bad, first, want0, got0);
	return bad == 0 && badsites == 0;
}

/* A suffixed symbol whose base is blacklisted, or 0. */
static uint64_t suffixed_blacklisted(struct live *lv, const struct reference *ref)
{
	for (size_t i = 0; i < symtab_count(lv->k.syms); i++) {
		const struct ksym *s = symtab_at(lv->k.syms, i);
		const char *dot = strchr(s->name, '.');
		char base[256];

		if (!dot || !ksym_is_text(s) || (size_t)(dot - s->name) >= sizeof(base))
			continue;
		memcpy(base, s->name, (size_t)(dot - s->name));
		base[dot - s->name] = 0;
		if (sym(lv, base) && spans_hold(&ref->blacklist, sym(lv, base)) &&
		    !spans_hold(&ref->blacklist, s->addr))
			return s->addr;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void test_rangefacts(struct live *lv)
{
	struct reference ref = { 0 };
	size_t seen[5] = { 0 }, agree = 0, asked = 0;
	uint64_t rng = 9, fs, fe, probed = sym(lv, "vfs_read");
	uint64_t cold;
	double t0;
	uint32_t n;
	struct gilk_fact *f;
	const struct {
		const char *name;
	} funcs[] = { { "notify_die" }, { "strncpy_from_user" }, { "vfs_read" },
		      { "exc_page_fault" }, { "copy_from_kernel_nofault" } };
	char def[128];
	bool armed;

	snprintf(def, sizeof(def), "p:gilk_rf 0x%" PRIx64 "\n", probed);
	armed = write_file(TRACING "/kprobe_events", def, O_APPEND) == 0;
	check(armed, "a kprobe placed at vfs_read for FACTS to find");
	load_blacklist(&ref);
	load_kprobes(&ref);
	load_extable(lv, &ref);
	check(ref.blacklist.n > 100 && ref.nex > 100 && ref.nkp >= armed,
	      "the reference: %zu blacklisted ranges, %zu exception-table entries, %zu kprobes",
	      ref.blacklist.n, ref.nex, ref.nkp);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (symtab_function(lv->k.syms, sym(lv, funcs[i].name), NULL, &fs, &fe))
			continue;
		asked++;
		agree += compare(lv, &ref, funcs[i].name, fs - 160, fe + 160, seen);
	}
	cold = suffixed_blacklisted(lv, &ref);
	if (cold && symtab_function(lv->k.syms, cold, NULL, &fs, &fe) == 0) {
		asked++;
		agree += compare(lv, &ref, symtab_by_addr(lv->k.syms, cold)->name, fs - 64,
				 fe + 64, seen);
	}
	for (int i = 0; i < 24; i++) {
		uint64_t lo = lv->k.text_start +
			      rng_next(&rng) % (lv->k.text_end - lv->k.text_start - 8192);

		asked++;
		agree += compare(lv, &ref, "random kernel text", lo, lo + 8192, seen);
	}
	check(agree == asked && seen[BLACKLIST] && seen[EXTABLE] && seen[KPROBE] >= (size_t)armed * 5 &&
	      seen[4],
	      "FACTS by range equals the per-byte answer on %zu of %zu ranges (%zu blacklisted, %zu exception-table, %zu kprobe, %zu jump label or static call bytes; a suffixed part of a blacklisted function %s)",
	      agree, asked, seen[BLACKLIST], seen[EXTABLE], seen[KPROBE], seen[4],
	      cold ? "included" : "not found");
	if (armed)
		write_file(TRACING "/kprobe_events", "-:gilk_rf\n", O_APPEND);
	t0 = now_s();
	f = ask(lv, lv->k.text_start, lv->k.text_start + (1 << 20), &n);
	check(f != NULL, "FACTS over 1 MiB of kernel text: %u facts in %.3f s", f ? n : 0,
	      now_s() - t0);
	free(f);
	free(ref.blacklist.r);
	free(ref.ex);
	free(ref.kp);
}
