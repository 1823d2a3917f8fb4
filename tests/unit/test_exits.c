/* Unit tests: how blocks leave their function (core/exits.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "exits.h"
#include "unit.h"

#define F 0xffffffff81002000ull

static const char syms[] =
	"ffffffff81002000 t f\n"
	"ffffffff81002040 T other\n"
	"ffffffff81002080 t f.cold\n"
	"ffffffff810020c0 T __x86_return_thunk\n"
	"ffffffff81002100 T __x86_indirect_thunk_rax\n"
	"ffffffff81002140 T srso_return_thunk\n";

/* A rel32 branch of len bytes at offset off of f, to target. */
static void rel32(uint8_t *code, unsigned off, unsigned len, uint64_t target)
{
	int32_t d = (int32_t)(target - (F + off + len));

	memcpy(code + off + len - 4, &d, 4);
}

static void every_way_out(void **state)
{
	uint8_t b[] = {
		0x85, 0xff,                         /* 0x00 test edi,edi     block 0 */
		0x0f, 0x84, 0, 0, 0, 0,             /* 0x02 je other: conditional */
		0xc3,                               /* 0x08 ret              block 1 */
		0xe9, 0, 0, 0, 0,                   /* 0x09 jmp __x86_return_thunk  2 */
		0xe9, 0, 0, 0, 0,                   /* 0x0e jmp other: tail call    3 */
		0xe9, 0, 0, 0, 0,                   /* 0x13 jmp f.cold              4 */
		0xff, 0xe0,                         /* 0x18 jmp rax                 5 */
		0x0f, 0x85, 0, 0, 0, 0,             /* 0x1a jne f.cold: stays       6 */
		0xe9, 0, 0, 0, 0,                   /* 0x20 jmp __x86_indirect_thunk_rax 7 */
		0xe9, 0, 0, 0, 0,                   /* 0x25 jmp srso_return_thunk   8 */
		0xe8, 0, 0, 0, 0,                   /* 0x2a call other: never returns 9 */
		0x66, 0x90,                         /* 0x2f nop */
	};
	static const enum exit_kind want[] = {
		EXIT_CONDITIONAL, EXIT_RET, EXIT_RETURN_THUNK, EXIT_TAIL_CALL, EXIT_COLD,
		EXIT_TAIL_INDIRECT, EXIT_NONE, EXIT_TAIL_INDIRECT, EXIT_RETURN_THUNK,
		EXIT_NORETURN,
	};
	static const unsigned at[] = { 0x02, 0x08, 0x09, 0x0e, 0x13, 0x18, 0, 0x20, 0x25, 0x2a };
	struct symtab *st;
	struct decoder *d;
	struct cfg g;
	struct gerr e;
	size_t nret = 0;

	(void)state;
	rel32(b, 0x02, 6, F + 0x40);
	rel32(b, 0x09, 5, F + 0xc0);
	rel32(b, 0x0e, 5, F + 0x40);
	rel32(b, 0x13, 5, F + 0x80);
	rel32(b, 0x1a, 6, F + 0x80);
	rel32(b, 0x20, 5, F + 0x100);
	rel32(b, 0x25, 5, F + 0x140);
	rel32(b, 0x2a, 5, F + 0x40);
	memset(&g, 0, sizeof(g));
	assert_int_equal(symtab_parse(syms, sizeof(syms) - 1, &st, &e), 0);
	assert_int_equal(decoder_open(&d, &e), 0);
	assert_int_equal(cfg_build(&g, d, b, F, F + sizeof(b), NULL, 0, &e), 0);
	assert_int_equal(g.nblocks, 10);
	for (size_t i = 0; i < g.nblocks; i++) {
		struct block_exit x = exit_of_block(&g, i, st);

		assert_int_equal(x.kind, want[i]);
		assert_true(x.addr == (want[i] == EXIT_NONE ? 0 : F + at[i]));
		nret += exit_is_return_point(x.kind);
	}
	/* ret, two return thunks, a tail call, two indirect ones */
	assert_int_equal(nret, 6);
	assert_true(exit_of_block(&g, 3, st).target == F + 0x40);
	assert_true(exit_of_block(&g, 9, st).target == F + 0x40);
	assert_string_equal(exit_kind_str(EXIT_NORETURN), "noreturn call");
	cfg_free(&g);
	decoder_close(d);
	symtab_free(st);
}

const struct CMUnitTest exits_tests[] = {
	cmocka_unit_test(every_way_out),
};
const size_t exits_ntests = sizeof(exits_tests) / sizeof(exits_tests[0]);
