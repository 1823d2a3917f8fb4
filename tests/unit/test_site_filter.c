/* Unit tests: splice filters compiled for gilk.ko (lib/site_filter.c).
 * A program must mean its expression: both are run on the same hits, the
 * expression by the event filter's evaluator, the program as gilk.ko runs
 * it, and must agree on every one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "filter.h"
#include "site_filter.h"
#include "unit.h"

static const char *const names[] = {
	"pid", "tid", "comm", "cpu", "context", NULL, NULL, NULL,
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip", "rflags",
};
static const char *const contexts[] = { "task", "softirq", "irq", "nmi" };

struct hit {
	uint64_t f[GILK_FF_NFIELDS];
	const char *comm;
};

static int field_index(const char *name)
{
	if (!strcmp(name, "retval"))
		return GILK_FF_RAX;
	for (int i = 0; i < GILK_FF_NFIELDS; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return -1;
}

static enum filter_kind kind(void *priv, const char *name)
{
	int i = field_index(name);

	(void)priv;
	return i < 0 ? FILTER_NONE : i == GILK_FF_COMM || i == GILK_FF_CONTEXT ?
	       FILTER_STRING : FILTER_NUMBER;
}

static bool value(void *priv, const char *name, uint64_t *num, const char **str)
{
	const struct hit *h = priv;
	int i = field_index(name);

	*str = NULL;
	if (i == GILK_FF_COMM)
		*str = h->comm;
	else if (i == GILK_FF_CONTEXT)
		*str = contexts[h->f[i] & 3];
	else
		*num = h->f[i];
	return true;
}

/* Values that make equalities and orders happen. */
static const uint64_t pool[] = { 0, 1, 2, 5, 42, 43, 0x40, 0x41, 0x1000, ~0ull };
static const char *const comms[] = { "cat", "kworker/1:2", "sshd", "", "dd" };

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void agree(const char *expr, bool self)
{
	struct gilk_filter g;
	struct filter f;
	struct gerr e;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t accepted = 0, rounds = 4000;

	if (site_filter_compile(expr, SF_ANY, self, &g, &e))
		fail_msg("'%s': %s", expr, e.msg);
	assert_int_equal(g.test[g.len - 1].op, GILK_FOP_RET);
	for (uint32_t i = 0; i < g.len; i++)
		if (g.test[i].op != GILK_FOP_RET)
			assert_true(i + 1u + g.test[i].jt < g.len && i + 1u + g.test[i].jf < g.len);
	assert_int_equal(filter_parse(&f, expr ? expr : "1", kind, NULL, &e), 0);
	for (size_t r = 0; r < rounds; r++) {
		struct hit h;
		bool want, got;

		for (int i = 0; i < GILK_FF_NFIELDS; i++)
			h.f[i] = pool[next_rand(&x) % (sizeof(pool) / sizeof(pool[0]))];
		h.f[GILK_FF_CONTEXT] = next_rand(&x) % 4;
		h.f[GILK_FF_SELF] = next_rand(&x) % 2;	/* in the splicing gilk or not */
		h.comm = comms[next_rand(&x) % (sizeof(comms) / sizeof(comms[0]))];
		want = filter_match(&f, value, &h) && (!self || !h.f[GILK_FF_SELF]);
		got = site_filter_run(&g, h.f, h.comm);
		if (want != got)
			fail_msg("'%s' (self %d): the program says %d, the expression %d, at pid %llu "
				 "arg0 %llu comm '%s'", expr ? expr : "", self, got, want,
				 (unsigned long long)h.f[GILK_FF_PID],
				 (unsigned long long)h.f[GILK_FF_ARG0], h.comm);
		accepted += got;
	}
	filter_free(&f);
	/* every expression below holds for some hits and fails for others */
	if (!self && (!accepted || accepted == rounds))
		fail_msg("'%s': accepted %zu of %zu hits: the test proves nothing", expr, accepted,
			 rounds);
}

static void programs_mean_their_expressions(void **st)
{
	static const char *const exprs[] = {
		"pid == 42", "pid != 42", "tid < 5", "cpu <= 1", "arg0 > 0x40", "arg1 >= 43",
		"5 < pid", "0x41 == arg0", "arg0 & 0x40", "!(arg0 & 0x40)", "(rax & 0xff) == 0x41",
		"arg2 & 0x1000 && arg3 != 0", "pid == 42 || tid == 43 || cpu == 2",
		"!(pid == 42 && comm == \"cat\")", "comm == \"sshd\" || comm ~ \"kw*\"",
		"comm != \"dd\" && arg0", "comm ~ \"[cd]*\"", "comm ~ \"?at\"",
		"context == irq || context == nmi", "context != task && pid > 1",
		"(pid == 1 || pid == 2) && (tid == 5 || !(tid < 43))", "retval == 0",
		"rip >= 0x40 && rflags & 1 && r15 != 5", "pid == 42 && 1", "pid == 42 || 0 > 1",
		"!!(arg5 == 43)", "rsp < 2 || r8 == 42 || r9 == 43 || r10 == 0x40",
	};

	(void)st;
	for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		agree(exprs[i], false);
		agree(exprs[i], true);
	}
	agree(NULL, true);	/* filter-self alone */
}

static void refusals(void **st)
{
	static const struct {
		const char *text;
		enum site_filter_scope scope;
		const char *says;
	} bad[] = {
		{ "arg0 == 1", SF_TASK, "differs between a function's entry and its exits" },
		{ "rax == 1 && pid == 2", SF_TASK, "differs between" },
		{ "pid == tid", SF_ANY, "not two fields" },
		{ "(arg0 & arg1) == 1", SF_ANY, "not with another field" },
		{ "comm == \"a_name_longer_than_15\"", SF_ANY, "at most 15 characters" },
		{ "comm == \"a\" || comm == \"b\" || comm == \"c\" || comm == \"d\" || comm == \"e\"",
		  SF_ANY, "at most 4 different strings" },
		{ "context == softirqs", SF_ANY, "task, softirq, irq or nmi" },
		{ "context ~ \"s*\"", SF_ANY, "task, softirq, irq or nmi" },
		{ "pdi == 1", SF_ANY, "a splice's filter reads: pid tid comm" },
		{ "pid ==", SF_ANY, "filter:" },
		{ "comm ~ \"a\\\\*\"", SF_ANY, "no \\ escapes" },
		{ "comm ~ \"k[ab\"", SF_ANY, "a [ without its ]" },
	};
	char many[2048] = "pid == 1";
	struct gilk_filter g;
	struct gerr e;

	(void)st;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(site_filter_compile(bad[i].text, bad[i].scope, 0, &g, &e), -1);
		if (!strstr(e.msg, bad[i].says))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].text, e.msg, bad[i].says);
	}
	/* the task's fields are the same at entry and exit */
	assert_int_equal(site_filter_compile("pid == 1 && comm ~ \"k*\" && context == task",
					     SF_TASK, 0, &g, &e), 0);
	/* 31 tests: within what the parser takes, past what gilk.ko runs */
	for (int i = 0; i < GILK_FILTER_MAX - 2; i++)
		strcat(many, " || pid == 1");
	assert_int_equal(site_filter_compile(many, SF_ANY, 0, &g, &e), -1);
	assert_non_null(strstr(e.msg, "too long for gilk.ko"));
}

static void text_says_what_runs(void **st)
{
	struct gilk_filter g;
	struct gerr e;

	(void)st;
	assert_int_equal(site_filter_compile("comm == \"cat\"", SF_ANY, 0, &g, &e), 0);
	assert_string_equal(g.text, "comm == \"cat\"");
	assert_int_equal(site_filter_compile("comm == \"cat\"", SF_ANY, true, &g, &e), 0);
	assert_string_equal(g.text, "(comm == \"cat\") && not gilk");
	/* gilk itself, not its pid: a kept splice leaves out no one after it */
	assert_int_equal(g.test[0].field, GILK_FF_SELF);
	assert_int_equal(site_filter_compile(NULL, SF_ANY, true, &g, &e), 0);
	assert_string_equal(g.text, "not gilk");
	/* one string, stored once */
	assert_int_equal(site_filter_compile("comm == \"a\" || comm == \"a\"", SF_ANY, 0, &g, &e), 0);
	assert_string_equal(g.str[0], "a");
	assert_string_equal(g.str[1], "");
}

/* At a function's entry its parameters' names are its argument registers:
 * the program for "count > 4096 && file != 0" is the one for
 * "arg2 > 4096 && arg0 != 0", and a name the function lacks is refused,
 * naming the ones it has. */
static void parameters_by_name(void **st)
{
	const char *const params[] = { "file", "buf", "count", "pos", NULL };
	struct gilk_filter named, plain;
	struct gerr e;

	(void)st;
	assert_int_equal(site_filter_compile_params("count > 4096 && file != 0", SF_ANY, 0, params,
						    &named, &e), 0);
	assert_int_equal(site_filter_compile("arg2 > 4096 && arg0 != 0", SF_ANY, 0, &plain, &e), 0);
	assert_int_equal(named.len, plain.len);
	assert_memory_equal(named.test, plain.test, plain.len * sizeof(plain.test[0]));
	assert_string_equal(named.text, "count > 4096 && file != 0");
	assert_int_equal(site_filter_compile_params("size > 1", SF_ANY, 0, params, &named, &e), -1);
	assert_non_null(strstr(e.msg, "file buf count pos"));
	/* without names, count is no field */
	assert_int_equal(site_filter_compile("count > 1", SF_ANY, 0, &named, &e), -1);
}

const struct CMUnitTest site_filter_tests[] = {
	cmocka_unit_test(parameters_by_name),
	cmocka_unit_test(programs_mean_their_expressions),
	cmocka_unit_test(refusals),
	cmocka_unit_test(text_says_what_runs),
};
const size_t site_filter_ntests = sizeof(site_filter_tests) / sizeof(site_filter_tests[0]);
