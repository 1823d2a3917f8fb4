/*
 * Unit tests: aggregations as the shell reads them (shell/events/agg_view.c):
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

#include "events/agg_view.h"
#include "symtab.h"
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

static char *written_by(enum format f, const struct agg_view *v, const struct symbolizer *y)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (f == FMT_CHROME)	/* standing for folded, which is no event format */
		assert_int_equal(agg_view_write_folded(out, v, y), 0);
	else
		agg_view_write(out, f, v, y);
	fclose(out);
	return buf;
}

static char *written(enum format f, const struct agg_view *v)
{
	return written_by(f, v, NULL);
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
	/* a stack's frames follow the buckets; it is walked from the registers */
	a.kind = GILK_AGG_COUNT;
	a.key = GILK_AGG_KEY_STACK;
	assert_int_equal(gilk_agg_frames(&a), GILK_AGG_STACK_FRAMES);
	assert_int_equal(gilk_agg_slot_len(&a), 48 + 8 * GILK_AGG_STACK_FRAMES);
	assert_int_equal(template_of(GILK_NEEDS_NOTHING, NULL, NULL, &a), GILK_TRAMP_FULL);
	a.kind = GILK_AGG_HIST;
	assert_int_equal(gilk_agg_slot_len(&a), 48 + 8 * (65 + GILK_AGG_STACK_FRAMES));
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

/*
 * Keys a fetch read: a string (no size), a number (its type's size and
 * sign), and one the fetch could not read (GILK_AGG_KEY_FAULT in its last
 * byte), as gilk.ko writes them; and the call they take, not inline.
 */
static void fetched_keys(void **st)
{
	struct gilk_agg a = { .kind = GILK_AGG_COUNT, .key = GILK_AGG_KEY_FETCH + 1, .keys = 4,
			      .text = "count by filename" };
	struct agg_view v = { .splice = { .id = 4, .agg = a } };
	uint32_t len = gilk_agg_slot_len(&a);
	uint8_t *b = calloc(3, len);
	struct gilk_agg_slot *faulted = (void *)(b + 2 * len);
	char *out;

	(void)st;
	assert_int_equal(gilk_agg_needs(&a, GILK_NEEDS_NOTHING), GILK_NEEDS_SCRATCH);
	slot(b, len, 0, "/tmp/gk_longnam", 0, 3, 0, 0, 0);
	slot(b, len, 1, "/etc/passwd", 0, 5, 0, 0, 0);
	slot(b, len, 2, NULL, 0, 2, 0, 0, 0);
	faulted->key[GILK_AGG_KEY_LEN - 1] = GILK_AGG_KEY_FAULT;
	assert_int_equal(agg_view_add(&v, b, 3, len), 0);
	agg_view_merge(&v);
	agg_view_finish(&v);
	out = written(FMT_TEXT, &v);
	assert_non_null(strstr(out, "@[/etc/passwd]: 5\n"));
	assert_non_null(strstr(out, "@[/tmp/gk_longnam]: 3\n"));
	assert_non_null(strstr(out, "@[<fault>]: 2\n"));
	free(out);
	agg_view_free(&v);
	/* a number the fetch read, an int: signed, by its size */
	a.key_show = GILK_FSHOW_SIGNED;
	a.key_size = 4;
	v = (struct agg_view){ .splice = { .id = 4, .agg = a } };
	slot(b, len, 0, NULL, 0xffffff9cull, 7, 0, 0, 0);
	assert_int_equal(agg_view_add(&v, b, 1, len), 0);
	agg_view_merge(&v);
	agg_view_finish(&v);
	out = written(FMT_CSV, &v);
	assert_string_equal(out, "key,count\n-100,7\n");
	free(out);
	agg_view_free(&v);
	free(b);
}

/* A stack key's slot: its hash, depth, whether more frames were beyond,
 * and the frames after the buckets. */
static void stack_slot(uint8_t *buf, uint32_t len, uint32_t nbuckets, size_t i, uint64_t hash,
		       const uint64_t *frames, uint32_t n, uint32_t more, uint64_t count)
{
	struct gilk_agg_slot *s = (void *)(buf + i * len);

	slot(buf, len, i, NULL, hash, count, 0, 0, 0);
	memcpy(s->key + 8, &n, 4);
	memcpy(s->key + 12, &more, 4);
	memcpy(s->bucket + nbuckets, frames, n * sizeof(*frames));
}

/*
 * Stacks over two CPUs: one stack on both is one entry; two stacks of one
 * hash and depth (a collision) stay two; frames are named by symbol, a
 * return address by the call before it; a walk cut short says so; folded
 * lines go from the outermost frame, function names only, added up.
 */
static void stacks(void **st)
{
	static const char syms[] =
		"ffffffff81000000 T entry_SYSCALL_64\n"
		"ffffffff81000100 T do_syscall_64\n"
		"ffffffff81000200 T ksys_read\n"
		"ffffffff81000300 T vfs_read\n"
		"ffffffff81000400 T next_fn\n";
	const uint64_t one[] = { 0xffffffff81000300, 0xffffffff81000273, 0xffffffff81000138,
				 0xffffffff81000063 };
	/* a return address at next_fn's start: a call that ends vfs_read */
	const uint64_t other[] = { 0xffffffff81000300, 0xffffffff81000400, 0xffffffff81000138,
				   0xffffffff81000063 };
	uint64_t deep[GILK_AGG_STACK_FRAMES];
	struct gilk_agg a = { .kind = GILK_AGG_COUNT, .key = GILK_AGG_KEY_STACK, .keys = 4,
			      .text = "count by stack" };
	struct agg_view v = { .splice = { .id = 5, .agg = a }, .nframes = GILK_AGG_STACK_FRAMES };
	struct agg_view base = v;
	uint32_t len = gilk_agg_slot_len(&a);
	uint8_t *cpu0 = calloc(3, len), *cpu1 = calloc(2, len);
	struct symtab *syms_t;
	struct symbolizer y = { 0 };
	struct gerr e;
	char *out;

	(void)st;
	assert_int_equal(symtab_parse(syms, sizeof(syms) - 1, &syms_t, &e), 0);
	y.syms = syms_t;
	for (int i = 0; i < GILK_AGG_STACK_FRAMES; i++)
		deep[i] = 0xffffffff81000310 + (uint64_t)i;
	stack_slot(cpu0, len, 0, 0, 0x1111, one, 4, 0, 7);
	stack_slot(cpu0, len, 0, 1, 0x2222, deep, GILK_AGG_STACK_FRAMES, 1, 1);
	stack_slot(cpu0, len, 0, 2, 0x1111, other, 4, 0, 2);
	stack_slot(cpu1, len, 0, 0, 0x1111, one, 4, 0, 5);
	stack_slot(cpu1, len, 0, 1, 0x1111, other, 4, 0, 1);
	assert_int_equal(agg_view_add(&v, cpu0, 3, len), 0);
	assert_int_equal(agg_view_add(&v, cpu1, 2, len), 0);
	agg_view_merge(&v);
	agg_view_finish(&v);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.hits, 16);
	assert_int_equal(v.e[0].count, 12);
	assert_int_equal(v.e[1].count, 3);
	out = written_by(FMT_TEXT, &v, &y);
	assert_non_null(strstr(out, "splice 5 (count by stack): 16 hits in 3 keys\n"
				    "@[\n    vfs_read+0\n    ksys_read+115\n    do_syscall_64+56\n"
				    "    entry_SYSCALL_64+99\n]: 12\n\n"
				    "@[\n    vfs_read+0\n    vfs_read+256\n"));
	assert_non_null(strstr(out, "    ... (more than 32 frames)\n]: 1\n"));
	free(out);
	out = written_by(FMT_CSV, &v, &y);
	assert_non_null(strstr(out, "key,count\nentry_SYSCALL_64+99;do_syscall_64+56;ksys_read+115;"
				    "vfs_read+0,12\n"));
	free(out);
	out = written_by(FMT_JSON, &v, &y);
	assert_non_null(strstr(out, "\"stack\": [\"vfs_read+0\", \"ksys_read+115\", "
				    "\"do_syscall_64+56\", \"entry_SYSCALL_64+99\"], "
				    "\"truncated\": false, \"count\": 12"));
	free(out);
	out = written_by(FMT_CHROME, &v, &y);
	assert_non_null(strstr(out, "entry_SYSCALL_64;do_syscall_64;ksys_read;vfs_read 12\n"));
	assert_non_null(strstr(out, "entry_SYSCALL_64;do_syscall_64;vfs_read;vfs_read 3\n"));
	assert_non_null(strstr(out, "...;vfs_read;vfs_read;"));
	free(out);
	/* a clear, then 2 more hits of the second stack only */
	assert_int_equal(agg_view_add(&base, cpu0, 3, len), 0);
	assert_int_equal(agg_view_add(&base, cpu1, 2, len), 0);
	agg_view_merge(&base);
	agg_view_free(&v);
	v = (struct agg_view){ .splice = { .id = 5, .agg = a }, .nframes = GILK_AGG_STACK_FRAMES };
	stack_slot(cpu0, len, 0, 2, 0x1111, other, 4, 0, 4);
	assert_int_equal(agg_view_add(&v, cpu0, 3, len), 0);
	assert_int_equal(agg_view_add(&v, cpu1, 2, len), 0);
	agg_view_merge(&v);
	agg_view_subtract(&v, &base);
	agg_view_finish(&v);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.hits, 2);
	assert_memory_equal(v.e[0].frames, other, sizeof(other));
	agg_view_free(&v);
	agg_view_free(&base);
	symtab_free(syms_t);
	free(cpu0);
	free(cpu1);
}

const struct CMUnitTest agg_tests[] = {
	cmocka_unit_test(sizes_and_needs),
	cmocka_unit_test(counts_merge),
	cmocka_unit_test(hist_merge_and_clear),
	cmocka_unit_test(linear_and_signed_keys),
	cmocka_unit_test(fetched_keys),
	cmocka_unit_test(stacks),
};
const size_t agg_ntests = sizeof(agg_tests) / sizeof(agg_tests[0]);
