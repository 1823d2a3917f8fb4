// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target_pad(n) returns n + 8 (n + 7 for 0), written in assembly so
 * that one of its blocks is too short for a jmp rel32 and has int3 padding
 * within a jmp rel8's reach: gilk bounces it through a slot in the padding.
 * Kernels with call padding (6.12) have few such blocks of their own, and
 * the padding before a function is not offered (call depth tracking may
 * write there), so the checker's tests need one whatever the kernel.
 */
#include <linux/linkage.h>

#include "target.h"

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_pad\n"
	".type gilk_target_pad, @function\n"
	".p2align 4\n"
	"gilk_target_pad:\n"
	"	mov %rdi, %rax\n"		/* +0 */
	"	test %rdi, %rdi\n"		/* +3 */
	"	jz 1f\n"			/* +6 */
	"	inc %rax\n"			/* +8: the short block */
	"1:	add $7, %rax\n"			/* +11 */
	"	jmp __x86_return_thunk\n"	/* +15 */
	".size gilk_target_pad, .-gilk_target_pad\n"
	"	.rept 12\n"			/* +20: padding */
	"	int3\n"
	"	.endr\n"
	".popsection\n");
