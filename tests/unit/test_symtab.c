/* Unit tests: the symbol table (core/symtab.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "symtab.h"
#include "unit.h"

static const char text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t helper\n"
	"ffffffff81000180 t dup\n"
	"ffffffff81000200 T do_work\n"
	"ffffffff81000300 t dup\n"
	"ffffffff81000400 t do_work.cold\n"
	"ffffffff81000420 t do_work.cold.2\n"
	"ffffffff81000440 t do_workers\n"
	"ffffffff81000500 T _etext\n"
	"ffffffff82000000 D some_data\n"
	"ffffffffc0000000 t mod_fn\t[e1000]\n";

static struct symtab *load(void)
{
	struct symtab *st;
	struct gerr e;

	assert_int_equal(symtab_parse(text, sizeof(text) - 1, &st, &e), 0);
	return st;
}

static void lookups(void **s)
{
	struct symtab *st = load();
	const struct ksym *k;
	uint64_t lo, hi;

	(void)s;
	assert_int_equal(symtab_count(st), 12);
	assert_int_equal(symtab_by_name(st, "do_work", &k, 1), 1);
	assert_true(k->addr == 0xffffffff81000200ull);
	k = symtab_by_addr(st, 0xffffffff81000210ull);
	assert_string_equal(k->name, "do_work");
	assert_int_equal(symtab_function(st, 0xffffffff81000210ull, &k, &lo, &hi), 0);
	assert_true(lo == 0xffffffff81000200ull && hi == 0xffffffff81000300ull);
	assert_int_equal(symtab_by_name(st, "mod_fn", &k, 1), 1);
	assert_string_equal(k->module, "e1000");
	assert_int_equal(symtab_function(st, 0xffffffff82000010ull, NULL, NULL, NULL), -1);
	symtab_free(st);
}

static void cold_parts_and_completion(void **s)
{
	struct symtab *st = load();
	const struct ksym *c[4];
	const char *names[8];

	(void)s;
	assert_int_equal(symtab_cold_parts(st, "do_work", c, 4), 2);
	assert_int_equal(symtab_cold_parts(st, "helper", c, 4), 0);
	assert_int_equal(symtab_complete(st, "do_", names, 8), 4);
	assert_string_equal(names[0], "do_work");
	assert_string_equal(names[3], "do_workers");
	/* a name shared by two symbols completes once */
	assert_int_equal(symtab_complete(st, "du", names, 8), 1);
	/* cut short: the total is still told */
	assert_int_equal(symtab_complete(st, "do_", names, 2), 4);
	assert_int_equal(symtab_complete(st, "zzz", names, 8), 0);
	symtab_free(st);
}

static void resolve_expressions(void **s)
{
	struct symtab *st = load();
	struct gerr e;
	uint64_t a;
	char buf[64];

	(void)s;
	assert_int_equal(symtab_resolve(st, "do_work+0x10", &a, &e), 0);
	assert_true(a == 0xffffffff81000210ull);
	assert_int_equal(symtab_resolve(st, "do_work+16", &a, &e), 0);
	assert_true(a == 0xffffffff81000210ull);
	assert_int_equal(symtab_resolve(st, "0xffffffff81000123", &a, &e), 0);
	assert_true(a == 0xffffffff81000123ull);
	assert_int_equal(symtab_resolve(st, "ffffffff81000123", &a, &e), 0);
	assert_int_equal(symtab_resolve(st, "nosuch", &a, &e), -1);
	assert_non_null(strstr(e.msg, "no symbol 'nosuch'"));
	assert_int_equal(symtab_resolve(st, "dup", &a, &e), -1);
	assert_non_null(strstr(e.msg, "names 2 symbols"));
	/* each named as it is asked for: NAME@ADDR */
	for (size_t i = 0; i < 2; i++) {
		const struct ksym *d[2];
		char each[64];

		assert_int_equal(symtab_by_name(st, "dup", d, 2), 2);
		snprintf(each, sizeof(each), "dup@0x%llx", (unsigned long long)d[i]->addr);
		assert_non_null(strstr(e.msg, each));
		snprintf(each, sizeof(each), "dup@%llx+0x4", (unsigned long long)d[i]->addr);
		assert_int_equal(symtab_resolve(st, each, &a, &e), 0);
		assert_true(a == d[i]->addr + 4);
	}
	assert_int_equal(symtab_resolve(st, "dup@0x1", &a, &e), -1);
	assert_non_null(strstr(e.msg, "no 'dup' at 0x1; its copies: dup@0x"));
	assert_int_equal(symtab_resolve(st, "dup@xyz", &a, &e), -1);
	assert_non_null(strstr(e.msg, "NAME@ADDR names a symbol by its address"));
	assert_int_equal(symtab_resolve(st, "nosuch@0x1", &a, &e), -1);
	assert_non_null(strstr(e.msg, "no symbol 'nosuch'"));
	assert_int_equal(symtab_resolve(st, "do_work+zz", &a, &e), -1);
	symtab_format(st, 0xffffffff81000210ull, buf, sizeof(buf));
	assert_string_equal(buf, "do_work+0x10");
	symtab_free(st);
}

/* The compiler's copies of a function, and the names close to another. */
static void compiler_copies(void **s)
{
	static const char copies[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t core_fn.constprop.0\n"
		"ffffffff81000200 t two.isra.0\n"
		"ffffffff81000300 t two.part.0\n"
		"ffffffff81000400 t cold_only.cold\n"
		"ffffffff81000500 t hot.isra.0\n"
		"ffffffff81000600 t hot.isra.0.cold\n"
		"ffffffff81000700 t core_fnx\n"
		"ffffffff81000800 t core_fn.notacopy\n"
		"ffffffff81000900 T tcp_v4_do_rcv\n"
		"ffffffff81000a00 T _etext\n";
	const struct ksym *v = NULL, *out[4];
	struct symtab *st;
	struct gerr e;
	const char *near[3];
	uint64_t a;

	(void)s;
	assert_int_equal(symtab_parse(copies, sizeof(copies) - 1, &st, &e), 0);
	assert_int_equal(symtab_resolve_as(st, "core_fn+4", &a, &v, &e), 0);
	assert_true(a == 0xffffffff81000104ull);
	assert_non_null(v);
	assert_string_equal(v->name, "core_fn.constprop.0");
	assert_int_equal(symtab_resolve_as(st, "core_fnx", &a, &v, &e), 0);
	assert_null(v);
	assert_int_equal(symtab_variants(st, "core_fn", out, 4), 1);
	assert_int_equal(symtab_resolve_as(st, "two", &a, &v, &e), -1);
	assert_non_null(strstr(e.msg, "the compiler made 2 copies of it: two.isra.0, two.part.0"));
	/* a .cold part stands for its function only where nothing else does */
	assert_int_equal(symtab_resolve_as(st, "hot", &a, &v, &e), 0);
	assert_string_equal(v->name, "hot.isra.0");
	assert_int_equal(symtab_resolve_as(st, "cold_only", &a, &v, &e), 0);
	assert_string_equal(v->name, "cold_only.cold");
	assert_int_equal(symtab_resolve(st, "tcp_v4_do_rcvv", &a, &e), -1);
	assert_non_null(strstr(e.msg, "did you mean tcp_v4_do_rcv?"));
	assert_int_equal(symtab_near(st, "zzzzzzzz", near, 3), 0);
	assert_int_equal(symtab_resolve(st, "zzzzzzzz", &a, &e), -1);
	assert_string_equal(e.msg, "no symbol 'zzzzzzzz'");
	symtab_free(st);
}

/* Of aliases, the one a user named is the one shown from then on; lookups
 * by name still find each, and a data alias never displaces text. */
static void preferred_alias(void **s)
{
	static const char aliases[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t __do_sys_getppid\n"
		"ffffffff81000100 T __ia32_sys_getppid\n"
		"ffffffff81000100 T __x64_sys_getppid\n"
		"ffffffff81000100 D shadow\n"
		"ffffffff81000200 T next\n"
		"ffffffff81000300 T _etext\n";
	const char *names[] = { "__do_sys_getppid", "__ia32_sys_getppid", "__x64_sys_getppid" };
	struct symtab *st;
	const struct ksym *k;
	struct gerr e;
	char buf[64];

	(void)s;
	assert_int_equal(symtab_parse(aliases, sizeof(aliases) - 1, &st, &e), 0);
	symtab_format(st, 0xffffffff81000105, buf, sizeof(buf));
	assert_string_equal(buf, "__ia32_sys_getppid+0x5");
	symtab_prefer(st, "__x64_sys_getppid");
	symtab_format(st, 0xffffffff81000105, buf, sizeof(buf));
	assert_string_equal(buf, "__x64_sys_getppid+0x5");
	symtab_prefer(st, "__do_sys_getppid");
	assert_string_equal(symtab_by_addr(st, 0xffffffff81000100)->name, "__do_sys_getppid");
	symtab_prefer(st, "shadow");	/* not text: text still first */
	assert_string_equal(symtab_by_addr(st, 0xffffffff81000100)->name, "__do_sys_getppid");
	symtab_prefer(st, "no_such_symbol");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(symtab_by_name(st, names[i], &k, 1), 1);
		assert_string_equal(k->name, names[i]);
		assert_true(k->addr == 0xffffffff81000100);
	}
	assert_int_equal(symtab_by_name(st, "shadow", &k, 1), 1);
	assert_int_equal(k->type, 'D');
	assert_int_equal(symtab_by_name(st, "next", &k, 1), 1);
	assert_true(k->addr == 0xffffffff81000200);
	symtab_free(st);
}

static void malformed_input(void **s)
{
	struct symtab *st;
	struct gerr e;

	(void)s;
	assert_int_equal(symtab_parse("ffffffff81000000 T a\nnot a line\n", 31, &st, &e), -1);
	assert_non_null(strstr(e.msg, "line 2"));
	assert_int_equal(symtab_parse("", 0, &st, &e), -1);
	assert_int_equal(symtab_load("/nonexistent/kallsyms", &st, &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/kallsyms"));
}

static volatile sig_atomic_t alarm_again;

/* A module loading lists its init symbols, '?' for those of sections with
 * no type letter (.modinfo): the table reads on, and they are no text. */
static void loading_module_symbols(void **s)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T do_work\n"
		"ffa0000000415331 ? __UNIQUE_ID_depends197\t[loading]\n"
		"ffffffffc023c000 t fields_fn\t[loading]\n";
	const struct ksym *k;
	struct symtab *st;
	struct gerr e;

	(void)s;
	assert_int_equal(symtab_parse(text, sizeof(text) - 1, &st, &e), 0);
	assert_int_equal(symtab_by_name(st, "__UNIQUE_ID_depends197", &k, 1), 1);
	assert_false(ksym_is_text(k));
	assert_int_equal(symtab_by_name(st, "fields_fn", &k, 1), 1);
	assert_true(ksym_is_text(k));
	symtab_free(st);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (alarm_again) {
		alarm_again = 0;
		alarm(1);
	}
}

/*
 * A signal while the symbols are read (Ctrl-C as gilk starts, reading the
 * slow /proc/kallsyms) cuts a read short: the table still holds them all.
 * The file is a pipe whose writer pauses halfway for 3 s; a signal comes
 * after 1 s (a read with half the bytes), and again after 2 (a read with
 * none yet, which looks like the end unless its error is looked at).
 */
static void signal_mid_read(void **s)
{
	char dir[] = "/tmp/gilk-unit-XXXXXX", path[64];
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	const struct ksym *sym;
	struct symtab *st;
	struct gerr e;
	size_t half = sizeof(text) / 2;
	pid_t child;
	int status;

	(void)s;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		FILE *w = fopen(path, "w");

		if (!w)
			_exit(1);
		fwrite(text, 1, half, w);
		fflush(w);
		sleep(3);
		fwrite(text + half, 1, sizeof(text) - 1 - half, w);
		_exit(fclose(w) ? 1 : 0);
	}
	/* no SA_RESTART, as the shell's own Ctrl-C handler */
	sigaction(SIGALRM, &sa, &old);
	alarm_again = 1;
	alarm(1);
	assert_int_equal(symtab_load(path, &st, &e), 0);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(status, 0);
	assert_int_equal(symtab_by_name(st, "startup_64", &sym, 1), 1);
	assert_int_equal(symtab_by_name(st, "mod_fn", &sym, 1), 1);
	symtab_free(st);
	unlink(path);
	rmdir(dir);
}

const struct CMUnitTest symtab_tests[] = {
	cmocka_unit_test(lookups),
	cmocka_unit_test(loading_module_symbols),
	cmocka_unit_test(cold_parts_and_completion),
	cmocka_unit_test(resolve_expressions),
	cmocka_unit_test(compiler_copies),
	cmocka_unit_test(preferred_alias),
	cmocka_unit_test(malformed_input),
	cmocka_unit_test(signal_mid_read),
};
const size_t symtab_ntests = sizeof(symtab_tests) / sizeof(symtab_tests[0]);
