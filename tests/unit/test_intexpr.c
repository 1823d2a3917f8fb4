/* Unit tests: integer constants in C's notation (core/intexpr.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "intexpr.h"
#include "unit.h"

static uint64_t value(const char *text)
{
	uint64_t v = 0xdead;

	assert_int_equal(intexpr_eval(text, &v), 0);
	return v;
}

static void precedence_as_c(void **st)
{
	(void)st;
	assert_int_equal(value("39*8"), 312);
	assert_int_equal(value("1+2*3"), 7);
	assert_int_equal(value("(1+2)*3"), 9);
	assert_int_equal(value("0x10 + 010 + 1"), 16 + 8 + 1);
	assert_int_equal(value("1 << 3 + 1"), 16);	/* + binds tighter than << */
	assert_int_equal(value("6 & 3 | 8"), 10);
	assert_int_equal(value("5 ^ 1"), 4);
	assert_int_equal(value("-7 / 2"), (uint64_t)-3);	/* toward 0, as C */
	assert_int_equal(value("-7 % 2"), (uint64_t)-1);
	assert_int_equal(value("~0"), UINT64_MAX);
	assert_int_equal(value("1 << 64"), 0);
	assert_int_equal(value("0xffffffffffffffff + 1"), 0);	/* wraps, as the CPU */
}

static void refusals(void **st)
{
	static const char *const bad[] = {
		"", "1 +", "3*", "5/0", "5%0", "(1", "1)", "abc", "1x", "1 2", "1 && 2",
		"99999999999999999999",
		"((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
	};
	uint64_t v;

	(void)st;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(intexpr_eval(bad[i], &v), -1);
}

const struct CMUnitTest intexpr_tests[] = {
	cmocka_unit_test(precedence_as_c),
	cmocka_unit_test(refusals),
};
const size_t intexpr_ntests = sizeof(intexpr_tests) / sizeof(intexpr_tests[0]);
