// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target_evict(n) returns n + 41 (n + 40 for 0), written in assembly so
 * that its layout is known: the block at gilk_target_evict+26 (`inc %rax`,
 * 3 bytes, then a branch target) is too short for a jmp rel32 and has no
 * padding within a jmp rel8's reach, so gilk bounces it through a slot in
 * the function's first 15 bytes, evicted to a trampoline of their own. The
 * guest tests park a CPU on that slot while the splice goes (park.c).
 */
#include <linux/linkage.h>

#include "target.h"

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_evict\n"
	".type gilk_target_evict, @function\n"
	".p2align 4\n"
	"gilk_target_evict:\n"
	"	mov %rdi, %rax\n"		/* +0: 3 bytes, evicted with the next two */
	"	add $0x1000, %rax\n"		/* +3: 6 bytes, the slot at +5 */
	"	add $0x2000, %rax\n"		/* +9 */
	"	sub $0x3000, %rax\n"		/* +15 */
	"	test %rdi, %rdi\n"		/* +21 */
	"	jz 1f\n"			/* +24 */
	"	inc %rax\n"			/* +26: the short block */
	"1:	add $7, %rax\n"
	"	.rept 33\n"			/* 132 bytes: the end out of rel8 reach */
	"	add $1, %rax\n"
	"	.endr\n"
	"	jmp __x86_return_thunk\n"
	".size gilk_target_evict, .-gilk_target_evict\n"
	".popsection\n");
