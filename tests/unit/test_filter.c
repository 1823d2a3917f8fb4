/* Unit tests: event filters (lib/filter.c), parsed and matched against a
 * table of fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "filter.h"
#include "unit.h"

/* One event: pid 42, tid 43, cpu 1, comm "kworker/1:2", arg0 0x41; no rip. */
static enum filter_kind kind(void *priv, const char *name)
{
	(void)priv;
	if (!strcmp(name, "comm") || !strcmp(name, "context"))
		return FILTER_STRING;
	if (!strcmp(name, "pid") || !strcmp(name, "tid") || !strcmp(name, "cpu") ||
	    !strcmp(name, "arg0") || !strcmp(name, "rip"))
		return FILTER_NUMBER;
	return FILTER_NONE;
}

static bool value(void *priv, const char *name, uint64_t *num, const char **str)
{
	(void)priv;
	*str = NULL;
	if (!strcmp(name, "comm"))
		*str = "kworker/1:2";
	else if (!strcmp(name, "context"))
		*str = "irq";
	else if (!strcmp(name, "pid"))
		*num = 42;
	else if (!strcmp(name, "tid"))
		*num = 43;
	else if (!strcmp(name, "cpu"))
		*num = 1;
	else if (!strcmp(name, "arg0"))
		*num = 0x41;
	else
		return false;	/* rip: this event has none */
	return true;
}

static int matches(const char *text)
{
	struct filter f;
	struct gerr e;
	bool m;

	if (filter_parse(&f, text, kind, NULL, &e)) {
		print_message("%s: %s\n", text, e.msg);
		return -1;
	}
	m = filter_match(&f, value, NULL);
	filter_free(&f);
	return m;
}

static void numbers_and_logic(void **st)
{
	(void)st;
	assert_int_equal(matches("pid == 42"), 1);
	assert_int_equal(matches("pid != 42"), 0);
	assert_int_equal(matches("pid < 43 && tid >= 43"), 1);
	assert_int_equal(matches("pid > 42 || cpu <= 1"), 1);
	assert_int_equal(matches("!(pid == 42)"), 0);
	assert_int_equal(matches("! pid == 41"), 1);
	assert_int_equal(matches("arg0 & 0x40"), 1);
	assert_int_equal(matches("(arg0 & 0x2) == 0"), 1);
	assert_int_equal(matches("arg0 & 0x2"), 0);
	assert_int_equal(matches("cpu"), 1);
	/* && binds tighter than ||: false || (true && true) */
	assert_int_equal(matches("pid == 0 || cpu == 1 && tid == 43"), 1);
	assert_int_equal(matches("(pid == 0 || cpu == 1) && tid == 0"), 0);
	/* -1 is all ones, compared unsigned */
	assert_int_equal(matches("pid < -1"), 1);
	assert_int_equal(matches("pid==42&&cpu==1"), 1);
}

static void strings_and_globs(void **st)
{
	(void)st;
	assert_int_equal(matches("comm == \"kworker/1:2\""), 1);
	assert_int_equal(matches("comm == kworker/1:2"), 1);	/* a bare word */
	assert_int_equal(matches("\"kworker/1:2\" == comm"), 1);
	assert_int_equal(matches("comm != 'bash'"), 1);
	assert_int_equal(matches("comm ~ \"kworker*\""), 1);
	assert_int_equal(matches("comm ~ \"k?orker/[0-9]:*\""), 1);
	assert_int_equal(matches("comm ~ bash*"), 0);
	assert_int_equal(matches("context == irq && comm ~ \"kw*\""), 1);
}

static void absent_fields_are_false(void **st)
{
	(void)st;
	assert_int_equal(matches("rip == 0"), 0);
	assert_int_equal(matches("rip != 0"), 0);
	assert_int_equal(matches("!(rip == 0)"), 1);
	assert_int_equal(matches("rip"), 0);
}

/* Each bad filter is refused, with words that say why. */
static void refusals(void **st)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "", "empty" },
		{ "pidd == 1", "no field 'pidd'" },
		{ "pid ==", "expected a field" },
		{ "pid == 1 &&", "expected a field" },
		{ "pid == 1)", "unmatched ')'" },
		{ "(pid == 1", "expected ')'" },
		{ "comm == \"bash", "unterminated string" },
		{ "comm < \"bash\"", "strings compare with" },
		{ "comm", "not true or false" },
		{ "pid ~ 3", "~ matches strings" },
		{ "pid == \"x\"", "a string compares with a string" },
		{ "comm == pid", "a string compares with a string" },
		{ "comm == comm", "compare a string field" },
		{ "pid == 12abc", "not a number" },
		{ "pid == 1 pid", "expected && or ||" },
		{ "pid $ 1", "unknown character" },
		{ "comm & 1", "masks numbers only" },
	};
	char deep[300];

	(void)st;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct filter f;
		struct gerr e;

		assert_int_equal(filter_parse(&f, bad[i].text, kind, NULL, &e), -1);
		if (!strstr(e.msg, bad[i].says))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].text, e.msg, bad[i].says);
	}
	/* bounded: nesting and length */
	memset(deep, '(', 100);
	snprintf(deep + 100, sizeof(deep) - 100, "pid");
	assert_int_equal(matches(deep), -1);
	{
		char many[4096] = "pid == 1";

		for (int i = 0; i < 100; i++)
			strcat(many, " || pid == 1");
		assert_int_equal(matches(many), -1);
	}
}

const struct CMUnitTest filter_tests[] = {
	cmocka_unit_test(numbers_and_logic),
	cmocka_unit_test(strings_and_globs),
	cmocka_unit_test(absent_fields_are_false),
	cmocka_unit_test(refusals),
};
const size_t filter_ntests = sizeof(filter_tests) / sizeof(filter_tests[0]);
