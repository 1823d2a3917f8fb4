/* Unit tests: the live library's errors when no gilk.ko answers (lib/live.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "live.h"
#include "unit.h"

/* A file that is not /dev/gilk: its VERSION ioctl fails, and the message
 * says so instead of an ABI number read from uninitialised memory. */
static void version_fails(void **st)
{
	struct live_paths paths = { .dev = "/dev/null" };
	struct live lv;
	struct gerr e;

	(void)st;
	memset(&e, 0, sizeof(e));
	assert_int_equal(live_open(&lv, &paths, &e), -1);
	assert_non_null(strstr(e.msg, "/dev/null does not answer gilk's VERSION request"));
	assert_null(strstr(e.msg, "ABI"));
}

static void no_device(void **st)
{
	struct live_paths paths = { .dev = "/nonexistent/gilk" };
	struct live lv;
	struct gerr e;

	(void)st;
	assert_int_equal(live_open(&lv, &paths, &e), -1);
	assert_non_null(strstr(e.msg, "is gilk.ko loaded?"));
}

const struct CMUnitTest live_tests[] = {
	cmocka_unit_test(version_fails),
	cmocka_unit_test(no_device),
};
const size_t live_ntests = sizeof(live_tests) / sizeof(live_tests[0]);
