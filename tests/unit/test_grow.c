/* Unit tests: arrays grown by doubling (core/grow.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "grow.h"
#include "unit.h"

/* Room doubles from the first size, is kept when it suffices, and what the
 * array held moves with it. */
static void doubles_and_keeps(void **st)
{
	uint32_t *a = NULL;
	size_t room = 0;

	(void)st;
	assert_int_equal(grow_room((void **)&a, &room, 1, sizeof(*a), 4), 0);
	assert_int_equal(room, 4);
	a[3] = 7;
	assert_int_equal(grow_room((void **)&a, &room, 4, sizeof(*a), 4), 0);
	assert_int_equal(room, 4);
	assert_int_equal(grow_room((void **)&a, &room, 9, sizeof(*a), 4), 0);
	assert_int_equal(room, 16);
	assert_int_equal(a[3], 7);
	assert_int_equal(grow_room((void **)&a, &room, 17, sizeof(*a), 4), 0);
	assert_int_equal(room, 32);
	free(a);
}

/* A size that cannot be had (its bytes overflow) fails and leaves the
 * array as it was. */
static void too_big_leaves_it(void **st)
{
	uint64_t *a = NULL;
	size_t room = 0;

	(void)st;
	assert_int_equal(grow_room((void **)&a, &room, 2, sizeof(*a), 0), 0);
	assert_int_equal(room, 2);
	a[1] = 42;
	assert_int_equal(grow_room((void **)&a, &room, SIZE_MAX / 4, sizeof(*a), 0), -1);
	assert_int_equal(room, 2);
	assert_int_equal(a[1], 42);
	free(a);
}

const struct CMUnitTest grow_tests[] = {
	cmocka_unit_test(doubles_and_keeps),
	cmocka_unit_test(too_big_leaves_it),
};
const size_t grow_ntests = sizeof(grow_tests) / sizeof(grow_tests[0]);
