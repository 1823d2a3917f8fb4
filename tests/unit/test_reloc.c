/* Unit tests: one per relocation rule (core/reloc_x86_64.c), on hand-assembled
 * instructions with known answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "decode.h"
#include "reloc_x86_64.h"
#include "unit.h"

#define SRC 0xffffffff81001000ull
#define DST 0xffffffffc0002000ull

static struct insn dec(const uint8_t *b, size_t n, uint64_t at)
{
	struct decoder *d;
	struct gerr e;
	struct insn in;

	assert_int_equal(decoder_open(&d, &e), 0);
	assert_int_equal(decode_one(d, b, n, at, &in), 0);
	decoder_close(d);
	return in;
}

/* Relocates b (at SRC) to DST; returns the status, output in out/len. */
static enum reloc_status relocate(const uint8_t *b, size_t n, uint8_t *out,
				  size_t *len, uint64_t dst)
{
	struct insn in = dec(b, n, SRC);
	struct x86w w;
	enum reloc_status s;

	xw_init(&w, out, 64, dst);
	s = reloc_insn(&w, &in);
	*len = w.len;
	return s;
}

static uint64_t target_of(const uint8_t *b, size_t n, uint64_t at)
{
	struct insn in = dec(b, n, at);

	return in.target;
}

static void jmp_rel8_widened(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t jmp8[] = { 0xeb, 0x10 };

	(void)st;
	assert_int_equal(relocate(jmp8, 2, out, &len, DST), RELOC_OK);
	assert_int_equal(len, 5);
	assert_int_equal(out[0], 0xe9);
	assert_true(target_of(out, len, DST) == SRC + 2 + 0x10);
}

static void jcc_rel8_and_rel32_widened(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t je8[] = { 0x74, 0xfe };           /* je . */
	static const uint8_t jg32[] = { 0x0f, 0x8f, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t hinted[] = { 0x3e, 0x75, 0x05 }; /* ds jne */

	(void)st;
	assert_int_equal(relocate(je8, 2, out, &len, DST), RELOC_OK);
	assert_memory_equal(out, ((uint8_t[]){ 0x0f, 0x84 }), 2);
	assert_true(target_of(out, len, DST) == SRC);
	assert_int_equal(relocate(jg32, 6, out, &len, DST), RELOC_OK);
	assert_memory_equal(out, ((uint8_t[]){ 0x0f, 0x8f }), 2);
	assert_true(target_of(out, len, DST) == SRC + 6 + 0x100);
	assert_int_equal(relocate(hinted, 3, out, &len, DST), RELOC_OK);
	assert_memory_equal(out, ((uint8_t[]){ 0x0f, 0x85 }), 2);
	assert_true(target_of(out, len, DST) == SRC + 3 + 5);
}

/* Prefixes a compiler never puts on a direct branch (32-bit code read as
 * 64-bit has them), refused as gilk.ko's checker refuses them. */
static void branch_with_odd_prefix_refused(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t rex_jne[] = { 0x49, 0x75, 0xf0 };	/* dec ecx; jne (32-bit) */
	static const uint8_t jmp16[] = { 0x66, 0xe9, 0x10, 0, 0, 0 };
	static const uint8_t rex_call[] = { 0x48, 0xe8, 0, 0, 0, 0 };
	static const uint8_t bnd_jmp[] = { 0xf2, 0xe9, 0x10, 0, 0, 0 };

	(void)st;
	assert_int_equal(relocate(rex_jne, 3, out, &len, DST), RELOC_UNSUPPORTED);
	assert_int_equal(relocate(jmp16, sizeof(jmp16), out, &len, DST), RELOC_UNSUPPORTED);
	assert_int_equal(relocate(rex_call, 6, out, &len, DST), RELOC_UNSUPPORTED);
	assert_int_equal(relocate(bnd_jmp, 6, out, &len, DST), RELOC_OK);
}

static void call_pushes_original_return(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t call[] = { 0xe8, 0x00, 0x02, 0x00, 0x00 };
	int32_t pushed;

	(void)st;
	assert_int_equal(relocate(call, 5, out, &len, DST), RELOC_OK);
	/* push imm32 (sign-extends to the kernel address), then jmp */
	assert_int_equal(out[0], 0x68);
	memcpy(&pushed, out + 1, 4);
	assert_true((uint64_t)(int64_t)pushed == SRC + 5);
	assert_int_equal(out[5], 0xe9);
	assert_true(target_of(out + 5, 5, DST + 5) == SRC + 5 + 0x200);
}

static void call_return_address_above_2g(void **st)
{
	struct insn in;
	uint8_t out[64];
	struct x86w w;
	static const uint8_t call[] = { 0xe8, 0x00, 0x00, 0x00, 0x00 };

	(void)st;
	/* Outside the top 2 GiB a push imm32 cannot hold it: lea + two movs. */
	in = dec(call, 5, 0x0000100000001000ull);
	xw_init(&w, out, sizeof(out), 0x0000100000002000ull);
	assert_int_equal(reloc_insn(&w, &in), RELOC_OK);
	assert_memory_equal(out, ((uint8_t[]){ 0x48, 0x8d, 0x64, 0x24, 0xf8 }), 5);
	assert_memory_equal(out + 5, ((uint8_t[]){ 0xc7, 0x04, 0x24, 0x05, 0x10, 0x00, 0x00 }), 7);
	assert_memory_equal(out + 12, ((uint8_t[]){ 0xc7, 0x44, 0x24, 0x04, 0x00, 0x10, 0x00, 0x00 }), 8);
}

static void call_indirect_becomes_push_jmp(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t call_rax[] = { 0xff, 0xd0 };
	static const uint8_t call_rip[] = { 0xff, 0x15, 0x00, 0x10, 0x00, 0x00 };
	struct insn j;

	(void)st;
	assert_int_equal(relocate(call_rax, 2, out, &len, DST), RELOC_OK);
	assert_int_equal(out[0], 0x68);
	assert_memory_equal(out + 5, ((uint8_t[]){ 0xff, 0xe0 }), 2); /* jmp rax */
	assert_int_equal(relocate(call_rip, 6, out, &len, DST), RELOC_OK);
	j = dec(out + 5, 6, DST + 5);
	assert_int_equal(j.kind, IK_JMP_IND);
	/* Same memory operand: SRC+6+0x1000, from the jmp's own end. */
	{
		int32_t d;

		memcpy(&d, out + 5 + 2, 4);
		assert_true(DST + 5 + 6 + (uint64_t)(int64_t)d == SRC + 6 + 0x1000);
	}
}

static void call_through_rsp_refused(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t call_rsp[] = { 0xff, 0x54, 0x24, 0x08 };

	(void)st;
	assert_int_equal(relocate(call_rsp, 4, out, &len, DST), RELOC_UNSUPPORTED);
}

static void loop_family_hops_to_long_jmp(void **st)
{
	static const uint8_t loops[][3] = {
		{ 0xe2, 0x10 }, { 0xe1, 0x10 }, { 0xe0, 0x10 }, { 0xe3, 0x10 },
		{ 0x67, 0xe3, 0x10 },
	};
	static const size_t lens[] = { 2, 2, 2, 2, 3 };

	(void)st;
	for (size_t i = 0; i < 5; i++) {
		uint8_t out[64];
		size_t len, n = lens[i];

		assert_int_equal(relocate(loops[i], n, out, &len, DST), RELOC_OK);
		/* same prefix and opcode, rel8 = 2; jmp8 +5; jmp rel32 target */
		assert_memory_equal(out, loops[i], n - 1);
		assert_int_equal(out[n - 1], 2);
		assert_memory_equal(out + n, ((uint8_t[]){ 0xeb, 0x05 }), 2);
		assert_int_equal(out[n + 2], 0xe9);
		assert_true(target_of(out + n + 2, 5, DST + n + 2) == SRC + n + 0x10);
	}
}

static void rip_relative_rebased(void **st)
{
	uint8_t out[64];
	size_t len;
	/* mov rax, [rip+0x100]; cmp qword [rip+0x20], 7 (imm after disp) */
	static const uint8_t mov[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t cmp[] = { 0x48, 0x83, 0x3d, 0x20, 0x00, 0x00, 0x00, 0x07 };
	int32_t d;

	(void)st;
	assert_int_equal(relocate(mov, 7, out, &len, DST), RELOC_OK);
	assert_int_equal(len, 7);
	memcpy(&d, out + 3, 4);
	assert_true(DST + 7 + (uint64_t)(int64_t)d == SRC + 7 + 0x100);
	assert_int_equal(relocate(cmp, 8, out, &len, DST), RELOC_OK);
	memcpy(&d, out + 3, 4);
	assert_true(DST + 8 + (uint64_t)(int64_t)d == SRC + 8 + 0x20);
	assert_int_equal(out[7], 7);
}

static void out_of_reach_refused(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t mov[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t jmp[] = { 0xe9, 0x00, 0x00, 0x00, 0x00 };

	(void)st;
	assert_int_equal(relocate(mov, 7, out, &len, 0xffff800000000000ull), RELOC_RIP_RANGE);
	assert_int_equal(relocate(jmp, 5, out, &len, 0xffff800000000000ull), RELOC_BRANCH_RANGE);
}

static void plain_copied_and_traps_refused(void **st)
{
	uint8_t out[64];
	size_t len;
	static const uint8_t x[] = { 0x31, 0xc0 };
	static const uint8_t ud2[] = { 0x0f, 0x0b };
	static const uint8_t int3[] = { 0xcc };
	static const uint8_t ret[] = { 0xc3 };
	/* the hypervisor finds its emulation prefix by address and bytes */
	static const uint8_t xen[] = { 0x0f, 0x0b, 0x78, 0x65, 0x6e, 0x0f, 0xa2 };

	(void)st;
	assert_int_equal(relocate(x, 2, out, &len, DST), RELOC_OK);
	assert_memory_equal(out, x, 2);
	assert_int_equal(relocate(ret, 1, out, &len, DST), RELOC_OK);
	assert_int_equal(out[0], 0xc3);
	assert_int_equal(relocate(ud2, 2, out, &len, DST), RELOC_UNSUPPORTED);
	assert_int_equal(relocate(int3, 1, out, &len, DST), RELOC_UNSUPPORTED);
	assert_int_equal(relocate(xen, sizeof(xen), out, &len, DST), RELOC_UNSUPPORTED);
}

const struct CMUnitTest reloc_tests[] = {
	cmocka_unit_test(jmp_rel8_widened),
	cmocka_unit_test(jcc_rel8_and_rel32_widened),
	cmocka_unit_test(branch_with_odd_prefix_refused),
	cmocka_unit_test(call_pushes_original_return),
	cmocka_unit_test(call_return_address_above_2g),
	cmocka_unit_test(call_indirect_becomes_push_jmp),
	cmocka_unit_test(call_through_rsp_refused),
	cmocka_unit_test(loop_family_hops_to_long_jmp),
	cmocka_unit_test(rip_relative_rebased),
	cmocka_unit_test(out_of_reach_refused),
	cmocka_unit_test(plain_copied_and_traps_refused),
};
const size_t reloc_ntests = sizeof(reloc_tests) / sizeof(reloc_tests[0]);
