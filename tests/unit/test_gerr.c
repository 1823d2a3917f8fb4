/* Unit tests: errors carry a code as well as a message (core/gerr.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gerr.h"
#include "unit.h"

static void input_errors_are_einval(void **st)
{
	struct gerr e;

	(void)st;
	assert_int_equal(gerr_set(&e, "no symbol '%s'", "x"), -1);
	assert_int_equal(e.code, EINVAL);
	assert_string_equal(e.msg, "no symbol 'x'");
}

static void system_errors_keep_their_code(void **st)
{
	struct gerr e;

	(void)st;
	assert_int_equal(gerr_setc(&e, ENOENT, "unsplice %u: %s", 7u, "no such splice"), -1);
	assert_int_equal(e.code, ENOENT);
	assert_string_equal(e.msg, "unsplice 7: no such splice");
	/* a failed call that left errno 0 still says it failed */
	gerr_setc(&e, 0, "reading");
	assert_int_equal(e.code, EIO);
}

static void no_gerr_and_long_messages(void **st)
{
	struct gerr e;
	char big[1024];

	(void)st;
	assert_int_equal(gerr_setc(NULL, EPERM, "ignored"), -1);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	gerr_set(&e, "%s", big);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
}

const struct CMUnitTest gerr_tests[] = {
	cmocka_unit_test(input_errors_are_einval),
	cmocka_unit_test(system_errors_keep_their_code),
	cmocka_unit_test(no_gerr_and_long_messages),
};
const size_t gerr_ntests = sizeof(gerr_tests) / sizeof(gerr_tests[0]);
