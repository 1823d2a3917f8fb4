// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target_flags(n) returns n + 5 for n < 10, n + 1005 otherwise, written
 * in assembly so that its blocks are known: the block at 1: starts with the
 * flags of the cmp before it live (the jl reads them), so an inline count
 * there must save them; at the entry a cmp writes them first, so there it
 * need not. With n < 10 the block that adds 1000 never runs: the coverage
 * tests know which blocks must and must not.
 */
#include <linux/linkage.h>

#include "target.h"

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_flags\n"
	".type gilk_target_flags, @function\n"
	".p2align 4\n"
	"gilk_target_flags:\n"
	"	mov %rdi, %rax\n"
	"	cmp $10, %rdi\n"
	"	jmp 1f\n"
	"1:	mov %rax, %rdx\n"		/* flags live: the jl reads them */
	"	lea 5(%rdx), %rax\n"
	"	jl 2f\n"
	"	add $1000, %rax\n"		/* n >= 10 only */
	"2:	jmp __x86_return_thunk\n"
	".size gilk_target_flags, .-gilk_target_flags\n"
	".popsection\n");
