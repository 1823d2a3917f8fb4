/* Unit tests: the CFA from an ORC table (core/orc.c), on a table laid out
 * here as the kernel lays its own: ips relative to their slots, sorted,
 * and six-byte entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "orc.h"
#include "unit.h"

#define BASE 0x10000u	/* where the fake kernel's memory starts */

static uint8_t mem[256];

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len, struct gerr *e)
{
	(void)ctx;
	if (addr < BASE || addr + len > BASE + sizeof(mem))
		return gerr_set(e, "no memory at 0x%llx", (unsigned long long)addr);
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

/* ip slot i at BASE + 4 i holds ip - its own address */
static void table(void)
{
	static const uint64_t ips[3] = { 0x100, 0x200, 0x300 };
	/* sp_offset, bp_offset, then sp_reg in the low nibble: SP (5), SP, BP (4) */
	static const uint8_t entries[3][6] = {
		{ 8, 0, 0, 0, 0x05, 0 }, { 0x28, 0, 0, 0, 0x05, 0 }, { 16, 0, 0, 0, 0x04, 0 },
	};

	memset(mem, 0, sizeof(mem));
	for (int i = 0; i < 3; i++) {
		int32_t rel = (int32_t)(ips[i] - (BASE + 4 * i));

		memcpy(mem + 4 * i, &rel, 4);
	}
	memcpy(mem + 64, entries, sizeof(entries));
}

static void cfa_from_the_table(void **st)
{
	struct orc_table t = { BASE, BASE + 12, BASE + 64, read_mem, NULL };
	struct gerr e;
	int32_t off = 0;

	(void)st;
	table();
	assert_int_equal(orc_cfa_offset(&t, 0x100, &off, &e), 0);
	assert_int_equal(off, 8);
	assert_int_equal(orc_cfa_offset(&t, 0x2ff, &off, &e), 0);
	assert_int_equal(off, 0x28);
	/* before the first ip: no entry; a frame pointer's CFA: not rsp's */
	assert_int_equal(orc_cfa_offset(&t, 0xff, &off, &e), -1);
	assert_non_null(strstr(e.msg, "no ORC entry"));
	assert_int_equal(orc_cfa_offset(&t, 0x300, &off, &e), -1);
	assert_non_null(strstr(e.msg, "not the stack pointer's"));
	/* a table that cannot be read, and none at all */
	t.entries = BASE + 4096;
	assert_int_equal(orc_cfa_offset(&t, 0x100, &off, &e), -1);
	t.ip_stop = t.ip_start;
	assert_int_equal(orc_cfa_offset(&t, 0x100, &off, &e), -1);
	assert_non_null(strstr(e.msg, "no ORC table"));
}

const struct CMUnitTest orc_tests[] = {
	cmocka_unit_test(cfa_from_the_table),
};
const size_t orc_ntests = sizeof(orc_tests) / sizeof(orc_tests[0]);
