/* Unit tests: event payloads named by the layouts instruments publish
 * (shell/events/payload.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "events/payload.h"
#include "unit.h"

/* stack's shape: a count, then up to three frames, any of which may be missing */
static struct gilk_instrument_info layouts[2] = {
	{ .name = "frames", .nfields = 4, .fields = {
		{ "suppressed", 0 },
		{ "frame0", GILK_FIELD_HEX | GILK_FIELD_OPTIONAL },
		{ "frame1", GILK_FIELD_HEX | GILK_FIELD_OPTIONAL },
		{ "frame2", GILK_FIELD_HEX | GILK_FIELD_OPTIONAL } } },
	{ .name = "pair", .nfields = 2, .fields = { { "ns", 0 }, { "where", GILK_FIELD_HEX } } },
};
static const struct payload_layouts pl = { layouts, 2, NULL, 0 };

static void decodes_by_layout(void **st)
{
	uint64_t words[4] = { 7, 0xffffffff81000000ull, 0xffffffff81000010ull, 3 };
	struct payload_field f[PAYLOAD_FIELDS_MAX];

	(void)st;
	assert_int_equal(payload_decode(&pl, "pair", (uint8_t *)words, 16, f), 2);
	assert_string_equal(f[0].name, "ns");
	assert_int_equal(f[0].value, 7);
	assert_false(f[0].hex);
	assert_string_equal(f[1].name, "where");
	assert_true(f[1].hex);
	/* an event may end before its optional fields, never before the rest */
	assert_int_equal(payload_decode(&pl, "frames", (uint8_t *)words, 32, f), 4);
	assert_int_equal(payload_decode(&pl, "frames", (uint8_t *)words, 16, f), 2);
	assert_string_equal(f[1].name, "frame0");
	assert_int_equal(payload_decode(&pl, "frames", (uint8_t *)words, 8, f), 1);
	assert_int_equal(payload_decode(&pl, "pair", (uint8_t *)words, 8, f), 0);
	/* longer than its fields, not whole words, or no layout: bytes */
	assert_int_equal(payload_decode(&pl, "pair", (uint8_t *)words, 24, f), 0);
	assert_int_equal(payload_decode(&pl, "pair", (uint8_t *)words, 12, f), 0);
	assert_int_equal(payload_decode(&pl, "hello", (uint8_t *)words, 8, f), 0);
}

static void names_and_lists(void **st)
{
	char buf[256];

	(void)st;
	assert_true(payload_field_known(&pl, "frame2"));
	assert_false(payload_field_known(&pl, "frame3"));
	assert_true(payload_field_hex(&pl, "where"));
	assert_false(payload_field_hex(&pl, "suppressed"));
	payload_fields_list(&pl, buf, sizeof(buf));
	assert_string_equal(buf, "frames: suppressed frame0 frame1 frame2; pair: ns where");
	/* cut, not overrun */
	payload_fields_list(&pl, buf, 10);
	assert_string_equal(buf, "frames: s");
}

static void copies(void **st)
{
	struct payload_layouts to;

	(void)st;
	assert_true(payload_layouts_copy(&to, &pl));
	assert_int_equal(to.n, 2);
	assert_string_equal(to.ins[1].fields[1].name, "where");
	payload_layouts_free(&to);
	assert_null(to.ins);
}

/* A fetch's bytes as gilk.ko appends them: the fault bits, then each value. */
static void decodes_fetched(void **st)
{
	struct gilk_fetch f = { .len = 4 };
	struct gilk_splice_info in = { .id = 7 };
	struct payload_layouts mine = { 0 };
	struct payload_field out[PAYLOAD_FIELDS_MAX];
	uint8_t bytes[8 + 16 + 8 + 8 + 16];
	uint64_t faults = 0x4, neg = 0xfffffffe, p = 0xffff888000001000ull;

	(void)st;
	f.value[0] = (struct gilk_fetch_value){ .from = GILK_FF_ARG0, .nsteps = 1,
						.show = GILK_FSHOW_STRING, .name = "filename" };
	f.value[0].step[0] = (struct gilk_fetch_step){ .op = GILK_FSTEP_STRING, .width = 13 };
	f.value[1] = (struct gilk_fetch_value){ .from = GILK_FF_ARG0, .show = GILK_FSHOW_SIGNED,
						.size = 4, .name = "dfd" };
	f.value[2] = (struct gilk_fetch_value){ .from = GILK_FF_ARG0, .show = GILK_FSHOW_HEX,
						.size = 8, .name = "how" };
	f.value[3] = f.value[0];
	snprintf(f.value[3].name, sizeof(f.value[3].name), "%s", "bad");
	assert_int_equal(gilk_fetch_out_len(&f), sizeof(bytes));
	memset(bytes, 'x', sizeof(bytes));	/* the last string has no NUL */
	memcpy(bytes, &faults, 8);
	memcpy(bytes + 8, "/etc/passwd\0\0\0\0", 16);
	memcpy(bytes + 24, &neg, 8);
	memcpy(bytes + 32, &p, 8);
	in.fetch = f;
	assert_true(payload_fetches_add(&mine, &in, 1));
	assert_true(payload_fetches_add(&mine, &in, 1));	/* once */
	assert_int_equal(mine.nfetch, 1);
	assert_non_null(payload_fetch_of(&mine, 7));
	assert_null(payload_fetch_of(&mine, 8));
	assert_true(payload_field_string(&mine, "filename"));
	assert_true(payload_field_hex(&mine, "how"));
	assert_true(payload_fetched(&mine, "dfd"));
	assert_false(payload_fetched(&mine, "rax"));
	assert_int_equal(payload_fetch_decode(payload_fetch_of(&mine, 7), bytes, out), 4);
	assert_string_equal(out[0].str, "/etc/passwd");
	assert_false(out[0].fault);
	/* an int's 4 bytes, sign-extended */
	assert_true(out[1].is_signed);
	assert_int_equal((int64_t)out[1].value, -2);
	/* bit 2: its read faulted */
	assert_true(out[2].fault);
	/* a string gilk.ko did not end is not shown */
	assert_true(out[3].fault);
	assert_string_equal(out[3].str, "");
	payload_layouts_free(&mine);
}

const struct CMUnitTest payload_tests[] = {
	cmocka_unit_test(decodes_fetched),
	cmocka_unit_test(decodes_by_layout),
	cmocka_unit_test(names_and_lists),
	cmocka_unit_test(copies),
};
const size_t payload_ntests = sizeof(payload_tests) / sizeof(payload_tests[0]);
