// SPDX-License-Identifier: GPL-2.0
/*
 * Edges into the middle of a function from another symbol, which the code
 * checker must find although its decoding of the function does not:
 *  - assembly jumping between its functions, as lib/copy_user_64.S does:
 *    gilk_target_asm_entry jumps to a label inside gilk_target_asm_tail,
 *    the symbol after it;
 *  - a compiler's .cold part jumping back into its function, kept out of
 *    the reach of the checker's look at neighbours by a gap of 8 KiB, and
 *    the function jumping into the middle of its .cold part, to +2, after
 *    an instruction that falls through.
 * In a crafted request, a region over any of these labels must be refused.
 * None of this code runs.
 */
#include <linux/linkage.h>

#include "target.h"

asm(".pushsection .text, \"ax\"\n"
	".p2align 4\n"
	".globl gilk_target_asm_entry\n"
	".type gilk_target_asm_entry, @function\n"
	"gilk_target_asm_entry:\n"
	"	test %rdi, %rdi\n"
	"	jnz .Lgilk_target_asm_mid\n"
	"	jmp gilk_target_asm_tail\n"
	".size gilk_target_asm_entry, .-gilk_target_asm_entry\n"
	/* code, not a function, to objtool, as copy_user_short_string is */
	".globl gilk_target_asm_tail\n"
	".type gilk_target_asm_tail, @notype\n"
	"gilk_target_asm_tail:\n"
	"	mov %rdi, %rax\n"		/* +0 */
	".Lgilk_target_asm_mid:\n"
	"	add %rsi, %rax\n"		/* +3: the label */
	"	add %rdx, %rax\n"		/* +6 */
	"	jmp __x86_return_thunk\n"	/* +9 */
	".size gilk_target_asm_tail, .-gilk_target_asm_tail\n"
	".p2align 4\n"
	".type gilk_target_cold_host.cold, @function\n"
	"gilk_target_cold_host.cold:\n"
	"	xor %eax, %eax\n"		/* +0 */
	".Lgilk_target_cold_in:\n"
	"	add $1, %eax\n"		/* +2: the host's landing */
	"	jmp .Lgilk_target_cold_mid\n"
	".size gilk_target_cold_host.cold, .-gilk_target_cold_host.cold\n"
	".type gilk_target_gap, @object\n"
	"gilk_target_gap:\n"
	"	.skip 8192, 0xcc\n"
	".size gilk_target_gap, .-gilk_target_gap\n"
	".globl gilk_target_cold_host\n"
	".type gilk_target_cold_host, @function\n"
	"gilk_target_cold_host:\n"
	"	mov %rdi, %rax\n"		/* +0 */
	".Lgilk_target_cold_mid:\n"
	"	add %rsi, %rax\n"		/* +3: the label */
	"	add %rdx, %rax\n"		/* +6 */
	"	jz .Lgilk_target_cold_in\n"	/* +9 */
	"	js gilk_target_cold_host.cold\n"
	"	jmp __x86_return_thunk\n"
	".size gilk_target_cold_host, .-gilk_target_cold_host\n"
	".popsection\n");
