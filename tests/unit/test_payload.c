/* Unit tests: event payloads named by the layouts instruments publish
 * (shell/payload.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "payload.h"
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
static const struct payload_layouts pl = { layouts, 2 };

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

const struct CMUnitTest payload_tests[] = {
	cmocka_unit_test(decodes_by_layout),
	cmocka_unit_test(names_and_lists),
	cmocka_unit_test(copies),
};
const size_t payload_ntests = sizeof(payload_tests) / sizeof(payload_tests[0]);
