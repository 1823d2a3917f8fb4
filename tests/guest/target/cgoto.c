// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target_cgoto(n) is a computed goto, as ___bpf_prog_run's `goto
 * *jumptable[op]` compiles: the label is loaded from a table, [table +
 * n*8], in the section the kernel puts C's in (.rodata..c_jump_table, on
 * 6.12 .data.rel.ro.c_jump_table), and jumped to through a retpoline
 * thunk. n 0 gives 0xa, n 1 gives 0xb. The first label (+13, right after the thunk's jmp) is a
 * nop to a decoder, dead padding unless the table is read: a region over
 * the jmp and it looks sound (on a kernel built with IBT each label starts
 * with an endbr64 instead).
 */
#include <linux/linkage.h>
#include <asm/ibt.h>

#include "target.h"

/* the section of the kernel's __annotate_jump_table (see Kbuild) */
#ifdef GILK_C_JUMP_TABLE_RELRO
#define C_JUMP_TABLE ".data.rel.ro.c_jump_table, \"aw\""
#else
#define C_JUMP_TABLE ".rodata..c_jump_table, \"a\""
#endif

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_cgoto\n"
	".type gilk_target_cgoto, @function\n"
	".p2align 4\n"
	"gilk_target_cgoto:\n"
	"	mov gilk_target_cgoto_table(,%rdi,8), %rax\n"	/* +0 */
	"	jmp __x86_indirect_thunk_rax\n"			/* +8 */
	".Lgilk_target_cgoto_a:\n"				/* +13 */
	"	" ASM_ENDBR "nop\n"
	"	mov $0xa, %eax\n"
	"	jmp __x86_return_thunk\n"
	".Lgilk_target_cgoto_b:\n"
	"	" ASM_ENDBR "mov $0xb, %eax\n"
	"	jmp __x86_return_thunk\n"
	".size gilk_target_cgoto, .-gilk_target_cgoto\n"
	".popsection\n"
	/* where objtool looks for a computed goto's table, as for C's */
	".pushsection " C_JUMP_TABLE "\n"
	".balign 8\n"
	".type gilk_target_cgoto_table, @object\n"
	"gilk_target_cgoto_table:\n"
	"	.quad .Lgilk_target_cgoto_a, .Lgilk_target_cgoto_b\n"
	".size gilk_target_cgoto_table, .-gilk_target_cgoto_table\n"
	".popsection\n");
