/* Unit tests: text facts finished a few at a time, as live planning adds
 * them (core/textfacts.c, core/u64set.c), agree with facts finished at
 * once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "image.h"
#include "kernel.h"
#include "textfacts.h"
#include "u64set.h"
#include "unit.h"

/* A small deterministic generator: the same sets every run. */
static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void merge_unique_matches_sort(void **st)
{
	enum { N = 2000 };
	uint64_t a[N], b[N], x = 88172645463325252ull;

	(void)st;
	for (size_t round = 0; round < 40; round++) {
		size_t n = 1 + next(&x) % N, sorted = next(&x) % (n + 1), m;

		for (size_t i = 0; i < n; i++)
			a[i] = next(&x) % 500;	/* many duplicates */
		sorted = u64_sort_unique(a, sorted);
		/* the unsorted rest follows the sorted prefix */
		for (size_t i = sorted; i < n; i++)
			a[i] = next(&x) % 500;
		memcpy(b, a, n * sizeof(*a));
		m = u64_merge_unique(a, sorted, n);
		assert_int_equal(m, u64_sort_unique(b, n));
		assert_memory_equal(a, b, m * sizeof(*a));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first index sort_tail_in() reports changed: everything below it
 * is as it was, and it moved nothing it need not. */
static void tail_in_reports_first_change(void **st)
{
	uint64_t a[] = { 10, 20, 30, 40, 50, 35, 45 }, b[] = { 10, 20, 30, 60, 55 };
	const uint64_t want_a[] = { 10, 20, 30, 35, 40, 45, 50 }, want_b[] = { 10, 20, 30, 55, 60 };

	(void)st;
	assert_int_equal(sort_tail_in(a, 5, 7, sizeof(*a), cmp_u64), 3);
	assert_memory_equal(a, want_a, sizeof(a));
	assert_int_equal(sort_tail_in(b, 3, 5, sizeof(*b), cmp_u64), 3);
	assert_memory_equal(b, want_b, sizeof(b));
	assert_int_equal(sort_tail_in(b, 5, 5, sizeof(*b), cmp_u64), 5);
}

/* Ranges, targets and BUG/WARN sites added after a first finish are found,
 * overlaps through the running maximum of ends included: a long range
 * merged in low must still be seen from above its start. */
static void finish_again_finds_added(void **st)
{
	struct textfacts *tf = textfacts_new(), *ref = textfacts_new();
	const struct res_range *r;
	const uint64_t *t;
	uint64_t x = 42;

	(void)st;
	assert_non_null(tf);
	assert_non_null(ref);
	for (int i = 0; i < 3000; i++) {
		uint64_t at = next(&x) % 1000000, len = 1 + next(&x) % 8;

		textfacts_add_range(tf, at, at + len, RES_JUMP_LABEL);
		textfacts_add_range(ref, at, at + len, RES_JUMP_LABEL);
	}
	textfacts_add_target(tf, 500000);
	textfacts_add_bug(tf, 700000, 2, false);
	textfacts_finish(tf);
	/* nothing was added at 2000000.. yet */
	assert_null(textfacts_reserved(tf, 2000000, 2000001, RES_NKINDS));
	/* a long one from low down, and short ones, added and finished again */
	textfacts_add_range(tf, 100, 3000000, RES_KPROBE);
	textfacts_add_range(tf, 2500000, 2500005, RES_FTRACE);
	textfacts_add_target(tf, 400000);
	textfacts_add_target(tf, 500000);	/* twice: kept once */
	textfacts_add_bug(tf, 600000, 2, true);	/* a WARN: a target after it */
	/* not yet finished: queries see what was */
	assert_int_equal(textfacts_bug(tf, 600000), BUG_NONE);
	textfacts_finish(tf);
	r = textfacts_reserved(tf, 2000000, 2000001, RES_NKINDS);
	assert_non_null(r);
	assert_int_equal(r->kind, RES_KPROBE);
	assert_true(textfacts_overlaps(tf, 2500004, 2500006, RES_FTRACE));
	assert_false(textfacts_overlaps(tf, 2500005, 2500006, RES_FTRACE));
	assert_int_equal(textfacts_targets(tf, 400000, 500001, &t), 2);
	assert_int_equal(t[0], 400000);
	assert_int_equal(t[1], 500000);
	assert_int_equal(textfacts_targets(tf, 600002, 600003, &t), 1);
	assert_int_equal(textfacts_bug(tf, 600000), BUG_WARN);
	assert_int_equal(textfacts_bug(tf, 700000), BUG_BUG);
	/* and the jump labels agree with ref's, finished at once, byte by byte
	 * over a stretch (the KPROBE range skipped) */
	textfacts_finish(ref);
	for (uint64_t a = 0; a < 1000000; a += 7) {
		const struct res_range *p = textfacts_reserved(tf, a, a + 1, RES_KPROBE);
		const struct res_range *q = textfacts_reserved(ref, a, a + 1, RES_NKINDS);

		assert_true((p == NULL) == (q == NULL));
	}
	textfacts_free(tf);
	textfacts_free(ref);
}

/*
 * A running kernel as live mode reads it, made small: a kcore with one load
 * segment (text, then a bug table of 12-byte entries, one per function, each
 * at a ud2) and its kallsyms. Splices have put a jmp over the first
 * `covered` traps. What the snapshot held under them comes back through
 * kernel_open_live()'s restore, before the tables are read.
 */
#define FK_BASE 0xffffffff81000000ull
#define FK_TEXT 0x1000u		/* 64 functions of 0x40 bytes, a trap at +0x10 */
#define FK_BUGS 0x2000u
#define FK_NFN 64u
#define FK_SIZE 0x3000u

struct fake_kernel {
	char kcore[64], kallsyms[64];
};

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void fake_kernel_make(struct fake_kernel *fk, unsigned covered)
{
	static const char *const empty[] = {
		"__start___jump_table", "__stop___jump_table", "__start_static_call_sites",
		"__stop_static_call_sites", "__start___ex_table", "__stop___ex_table",
		"__noinstr_text_start", "__noinstr_text_end", "__entry_text_start",
		"__entry_text_end", "__kprobes_text_start", "__kprobes_text_end",
		"__irqentry_text_start", "__irqentry_text_end", "__softirqentry_text_start",
		"__softirqentry_text_end", "__static_call_text_start", "__static_call_text_end",
	};
	uint8_t *f = calloc(1, 0x1000 + FK_SIZE), *seg = f + 0x1000;
	FILE *out;
	int fd;

	assert_non_null(f);
	memcpy(f, "\177ELF\2\1\1", 7);
	le(f + 16, 4, 2);		/* ET_CORE */
	le(f + 18, 62, 2);		/* EM_X86_64 */
	le(f + 20, 1, 4);
	le(f + 32, 64, 8);		/* e_phoff */
	le(f + 52, 64, 2);
	le(f + 54, 56, 2);
	le(f + 56, 1, 2);		/* one PT_LOAD */
	le(f + 64, 1, 4);
	le(f + 64 + 8, 0x1000, 8);
	le(f + 64 + 16, FK_BASE, 8);
	le(f + 64 + 32, FK_SIZE, 8);
	le(f + 64 + 40, FK_SIZE, 8);
	memset(seg, 0x90, FK_TEXT);
	for (unsigned i = 0; i < FK_NFN; i++) {
		uint8_t *t = seg + 0x40 * i + 0x10, *b = seg + FK_BUGS + 12 * i;

		seg[0x40 * i + 0x3f] = 0xc3;
		if (i < covered) {	/* a splice's jmp, its int3 fill */
			t[0] = 0xe9;
			le(t + 1, 0x12345678, 4);
		} else {
			t[0] = 0x0f;
			t[1] = 0x0b;
		}
		le(b, (uint64_t)(0x40 * i + 0x10) - (FK_BUGS + 12 * i), 4);
		le(b + 10, i & 1, 2);	/* odd ones are WARN()s */
	}
	strcpy(fk->kcore, "/tmp/gilk-unit-XXXXXX-kcore");
	fd = mkstemps(fk->kcore, 6);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, f, 0x1000 + FK_SIZE), 0x1000 + FK_SIZE);
	close(fd);
	free(f);
	strcpy(fk->kallsyms, "/tmp/gilk-unit-XXXXXX");
	fd = mkstemp(fk->kallsyms);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	fprintf(out, "%llx T _stext\n", FK_BASE);
	for (unsigned i = 0; i < FK_NFN; i++)
		fprintf(out, "%llx t fn%u\n", FK_BASE + 0x40 * i, i);
	fprintf(out, "%llx T _etext\n", FK_BASE + FK_TEXT);
	fprintf(out, "%llx D __start___bug_table\n", FK_BASE + FK_BUGS);
	fprintf(out, "%llx D __stop___bug_table\n", FK_BASE + FK_BUGS + 12 * FK_NFN);
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
		fprintf(out, "%llx D %s\n", FK_BASE + FK_SIZE - 0x10, empty[i]);
	fclose(out);
}

static void fake_kernel_remove(struct fake_kernel *fk)
{
	unlink(fk->kcore);
	unlink(fk->kallsyms);
}

static int put_traps_back(void *ctx, struct kimage *snapshot, struct gerr *e)
{
	static const uint8_t orig[] = { 0x0f, 0x0b, 0x90, 0x90, 0x90 };
	unsigned covered = *(unsigned *)ctx;

	(void)e;
	for (unsigned i = 0; i < covered; i++)
		if (kimage_overlay(snapshot, FK_BASE + 0x40 * i + 0x10, orig, sizeof(orig)))
			return -1;
	return 0;
}

static void every_bug_site(const struct kernel *k)
{
	for (unsigned i = 0; i < FK_NFN; i++)
		assert_int_equal(textfacts_bug(k->facts, FK_BASE + 0x40 * i + 0x10),
				 i & 1 ? BUG_WARN : BUG_BUG);
}

/* Splices over most of the bug table's first traps: without their original
 * bytes the table's layout is unknown, and gilk could not start to remove
 * them; with them put back it reads every site. */
static void splices_over_bug_traps_do_not_lock_out(void **st)
{
	struct fake_kernel fk;
	unsigned covered = 40;
	struct kernel k;
	struct gerr e;

	(void)st;
	fake_kernel_make(&fk, covered);
	assert_int_equal(kernel_open_live(&k, fk.kcore, fk.kallsyms, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "__bug_table entries do not point at ud2"));
	assert_int_equal(kernel_open_live(&k, fk.kcore, fk.kallsyms,
					  &(struct kernel_restore){ put_traps_back, &covered }, &e), 0);
	every_bug_site(&k);
	kernel_close(&k);
	fake_kernel_remove(&fk);
}

/* A splice removed while gilk starts leaves its jmp in the snapshot, and
 * no original to put back: a few such do not hide the layout. */
static void a_few_traps_covered_still_read(void **st)
{
	struct fake_kernel fk;
	struct kernel k;
	struct gerr e;

	(void)st;
	fake_kernel_make(&fk, 5);
	assert_int_equal(kernel_open_live(&k, fk.kcore, fk.kallsyms, NULL, &e), 0);
	every_bug_site(&k);
	kernel_close(&k);
	fake_kernel_remove(&fk);
}

const struct CMUnitTest textfacts_tests[] = {
	cmocka_unit_test(merge_unique_matches_sort),
	cmocka_unit_test(tail_in_reports_first_change),
	cmocka_unit_test(finish_again_finds_added),
	cmocka_unit_test(splices_over_bug_traps_do_not_lock_out),
	cmocka_unit_test(a_few_traps_covered_still_read),
};
const size_t textfacts_ntests = sizeof(textfacts_tests) / sizeof(textfacts_tests[0]);
