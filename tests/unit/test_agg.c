/*
 * Unit tests: aggregations as the shell reads them (shell/agg_view.c):
 * gilk.ko's slots (uapi struct gilk_agg_slot) merged over CPUs, a clear
 * taken away, and each format; the uapi's sizes and the template an
 * aggregation takes (lib/template.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agg_view.h"
#include "template.h"
#include "unit.h"

#define SLOT_MAX (sizeof(struct gilk_agg_slot) + 8 * 1100)

/* A slot as gilk.ko writes it: a name or a number as the key. */
static void slot(uint8_t *buf, uint32_t len, size_t i, const char *name, uint64_t num,
		 uint64_t count, uint64_t sum, uint64_t min, uint64_t max)
{
	struct gilk_agg_slot *s = (void *)(buf + i * len);

	memset(s, 0, len);
	if (name)
		strncpy((char *)s->key, name, sizeof(s->key));
	else
		memcpy(s->key, &num, sizeof(num));
	s->count = count;
	s->sum = sum;
	s->min = min;
	s->max = max;
}

static char *written(enum format f, const struct agg_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	agg_view_write(out, f, v);
	fclose(out);
	return buf;
}

static void sizes_and_needs(void **st)
{
	struct gilk_agg a = { .kind = GILK_AGG_HIST, .key = GILK_FF_COMM, .value = GILK_FF_PID };

	(void)st;
	assert_int_equal(sizeof(struct gilk_agg_slot), 48);
	assert_int_equal(gilk_agg_slot_len(&a), 48 + 8 * 65);
	a.kind = GILK_AGG_LHIST;
	a.buckets = 10;
	assert_int_equal(gilk_agg_buckets(&a), 12);
	a.kind = GILK_AGG_COUNT;
	assert_int_equal(gilk_agg_slot_len(&a), 48);
	/* a count by the task is a call; by a register, the full template */
	assert_int_equal(template_of(GILK_NEEDS_NOTHING, NULL, NULL, &a), GILK_TRAMP_SCRATCH);
	a.key = GILK_FF_ARG0 + 2;
	assert_int_equal(template_of(GILK_NEEDS_NOTHING, NULL, NULL, &a), GILK_TRAMP_FULL);
	a.key = GILK_FF_PID;
	a.kind = GILK_AGG_HIST;
	a.value = GILK_FF_RAX;
	assert_int_equal(template_of(GILK_NEEDS_NOTHING, NULL, NULL, &a), GILK_TRAMP_FULL);
	a.kind = 0;
	assert_int_equal(template_of(GILK_NEEDS_NOTHING, NULL, NULL, &a), GILK_TRAMP_COUNT);
}

/* Two CPUs' counts by comm: one entry a name, the most first. */
static void counts_merge(void **st)
{
	struct agg_view v = { .splice = { .id = 7, .agg = { .kind = GILK_AGG_COUNT,
							   .key = GILK_FF_COMM, .keys = 8,
							   .text = "count by comm" } } };
	uint8_t cpu0[3 * 48], cpu1[2 * 48];
	char *out;

	(void)st;
	slot(cpu0, 48, 0, "bash", 0, 3, 0, 0, 0);
	slot(cpu0, 48, 1, "cat", 0, 1, 0, 0, 0);
	slot(cpu0, 48, 2, "a-very-long-nam", 0, 4, 0, 0, 0);
	slot(cpu1, 48, 0, "cat", 0, 9, 0, 0, 0);
	slot(cpu1, 48, 1, "bash", 0, 2, 0, 0, 0);
	assert_int_equal(agg_view_add(&v, cpu0, 3, 48), 0);
	assert_int_equal(agg_view_add(&v, cpu1, 2, 48), 0);
	v.dropped = 5;
	v.nested = 2;
	agg_view_merge(&v);
	agg_view_finish(&v);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.hits, 19);
	out = written(FMT_TEXT, &v);
	assert_string_equal(out, "splice 7 (count by comm): 19 hits in 3 keys\n"
			    "@[cat]: 10\n@[bash]: 5\n@[a-very-long-nam]: 4\n"
			    "(5 hits not counted: their keys found no room among the 8 slots "
			    "of a CPU's map)\n"
			    "(2 hits not counted: they came inside another of gilk's on their "
			    "CPU, an interrupt's)\n");
	free(out);
	out = written(FMT_CSV, &v);
	assert_string_equal(out, "key,count\ncat,10\nbash,5\na-very-long-nam,4\n");
	free(out);
	agg_view_free(&v);
}

/* A log2 histogram by pid over two CPUs, then a clear taken away. */
static void hist_merge_and_clear(void **st)
{
	struct gilk_agg a = { .kind = GILK_AGG_HIST, .key = GILK_FF_PID, .value = GILK_FF_ARG0,
			      .keys = 4, .text = "hist arg0 by pid" };
	struct agg_view v = { .splice = { .id = 3, .agg = a }, .nbuckets = 65 };
	struct agg_view base = { .splice = { .id = 3, .agg = a }, .nbuckets = 65 };
	uint32_t len = gilk_agg_slot_len(&a);
	uint8_t *b = calloc(4, len);
	struct gilk_agg_slot *s0 = (void *)b, *s1 = (void *)(b + len), *s2 = (void *)(b + 2 * len);
	char *out;

	(void)st;
	slot(b, len, 0, NULL, 42, 3, 300, 100, 100);	/* 100: [64, 128) */
	s0->bucket[7] = 3;
	slot(b, len, 1, NULL, 42, 1, 4096, 4096, 4096);	/* 4096: [4K, 8K) */
	s1->bucket[13] = 1;
	slot(b, len, 2, NULL, 7, 2, 0, 0, 0);		/* 0: [0] */
	s2->bucket[0] = 2;
	assert_int_equal(agg_view_add(&v, b, 3, len), 0);
	agg_view_merge(&v);
	agg_view_finish(&v);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.e[0].count, 4);
	assert_int_equal(v.e[0].min, 100);
	assert_int_equal(v.e[0].max, 4096);
	out = written(FMT_TEXT, &v);
	assert_non_null(strstr(out, "@[42]: 4 hits, average 1099, min 100, max 4096\n"
				    "[64, 128)                 3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"));
	assert_non_null(strstr(out, "[4K, 8K)                  1 |@@@@@@@@@@@@@@@@@     "));
	assert_non_null(strstr(out, "\n@[7]: 2 hits, average 0, min 0, max 0\n[0]  "));
	free(out);
	out = written(FMT_CSV, &v);
	assert_string_equal(out, "key,low,high,count\n42,64,128,3\n42,4096,8192,1\n7,0,1,2\n");
	free(out);
	out = written(FMT_JSON, &v);
	assert_non_null(strstr(out, "{\"key\": \"42\", \"count\": 4, \"sum\": 4396, \"buckets\": "
				    "[{\"low\": 64, \"high\": 128, \"count\": 3}, {\"low\": 4096, "
				    "\"high\": 8192, \"count\": 1}]}"));
	free(out);

	/* what pid 42 had at the clear is taken away; pid 7, unchanged, goes */
	slot(b, len, 0, NULL, 42, 3, 300, 100, 100);
	s0->bucket[7] = 3;
	slot(b, len, 1, NULL, 7, 2, 0, 0, 0);
	s1->bucket[0] = 2;
	assert_int_equal(agg_view_add(&base, b, 2, len), 0);
	agg_view_merge(&base);
	agg_view_free(&v);
	memset(&v, 0, sizeof(v));
	v.splice.id = 3;
	v.splice.agg = a;
	v.nbuckets = 65;
	slot(b, len, 0, NULL, 42, 4, 4396, 100, 4096);
	memset(s0->bucket, 0, 65 * 8);
	s0->bucket[7] = 3;
	s0->bucket[13] = 1;
	slot(b, len, 1, NULL, 7, 2, 0, 0, 0);
	s1->bucket[0] = 2;
	assert_int_equal(agg_view_add(&v, b, 2, len), 0);
	agg_view_merge(&v);
	agg_view_subtract(&v, &base);
	agg_view_finish(&v);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.hits, 1);
	out = written(FMT_TEXT, &v);
	/* since a clear, min and max are not known: the buckets say the range */
	assert_string_equal(out, "splice 3 (hist arg0 by pid): 1 hits in 1 key since cleared\n"
			    "@[42]: 1 hits, average 4096\n"
			    "[4K, 8K)                  1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");
	free(out);
	agg_view_free(&v);
	agg_view_free(&base);
	free(b);
}

/* Linear buckets: below, the steps, at or above the end; a signed key. */
static void linear_and_signed_keys(void **st)
{
	struct gilk_agg a = { .kind = GILK_AGG_LHIST, .key = GILK_FF_ARG0,
			      .key_show = GILK_FSHOW_SIGNED, .key_size = 4, .value = GILK_FF_RAX,
			      .keys = 4, .buckets = 3, .min = -10, .step = 10,
			      .text = "lhist retval -10 20 10 by dfd" };
	struct agg_view v = { .splice = { .id = 9, .agg = a }, .nbuckets = 5 };
	uint32_t len = gilk_agg_slot_len(&a);
	uint8_t *b = calloc(1, len);
	struct gilk_agg_slot *s0 = (void *)b;
	char *out;

	(void)st;
	slot(b, len, 0, NULL, 0xffffff9cull, 6, 0, 0, 0);
	s0->bucket[0] = 1;	/* below -10 */
	s0->bucket[2] = 2;	/* [0, 10) */
	s0->bucket[4] = 3;	/* at or above 20 */
	assert_int_equal(agg_view_add(&v, b, 1, len), 0);
	agg_view_merge(&v);
	agg_view_finish(&v);
	out = written(FMT_TEXT, &v);
	assert_non_null(strstr(out, "@[-100]: 6 hits"));
	assert_non_null(strstr(out, "(..., -10)                1 |"));
	assert_non_null(strstr(out, "[-10, 0)                  0 |"));
	assert_non_null(strstr(out, "[0, 10)                   2 |"));
	assert_non_null(strstr(out, "[20, ...)                 3 |"));
	free(out);
	out = written(FMT_CSV, &v);
	assert_string_equal(out, "key,low,high,count\n-100,,-10,1\n-100,0,10,2\n-100,20,,3\n");
	free(out);
	agg_view_free(&v);
	free(b);
}

const struct CMUnitTest agg_tests[] = {
	cmocka_unit_test(sizes_and_needs),
	cmocka_unit_test(counts_merge),
	cmocka_unit_test(hist_merge_and_clear),
	cmocka_unit_test(linear_and_signed_keys),
};
const size_t agg_ntests = sizeof(agg_tests) / sizeof(agg_tests[0]);
