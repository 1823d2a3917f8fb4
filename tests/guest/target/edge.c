// SPDX-License-Identifier: GPL-2.0
/*
 * Two functions side by side, in assembly so that their layout is known,
 * for the checker's symbol bounds. gilk_target_edge_a(n) returns n; its
 * jmp to the return thunk at +3 is followed by int3 padding up to
 * gilk_target_edge_b, which starts with nopw (%rax): what 6.12 leaves of
 * a sealed endbr64, and to a decoder padding. A region from +3 through
 * that nopw reads as one instruction and dead padding, but its jmp and
 * int3 fill would land on gilk_target_edge_b's entry: gilk.ko refuses it,
 * as it runs past its symbol. gilk_target_endbr(n) returns n and starts
 * with an endbr64, which no region may displace (an IBT CPU faults on the
 * next indirect call that does not land on one); target.c calls it through
 * a pointer, so that 6.12 does not seal it. "edge N" and "endbr N" on
 * /proc/gilk_target call them.
 */
#include <linux/linkage.h>

#include "target.h"

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_edge_a\n"
	".type gilk_target_edge_a, @function\n"
	".p2align 4\n"
	"gilk_target_edge_a:\n"
	"	mov %rdi, %rax\n"		/* +0 */
	"	jmp __x86_return_thunk\n"	/* +3 */
	".size gilk_target_edge_a, .-gilk_target_edge_a\n"
	".p2align 4, 0xcc\n"
	".globl gilk_target_edge_b\n"
	".type gilk_target_edge_b, @function\n"
	"gilk_target_edge_b:\n"
	"	.byte 0x66, 0x0f, 0x1f, 0x00\n"	/* nopw (%rax) */
	"	lea 1(%rdi), %rax\n"
	"	jmp __x86_return_thunk\n"
	".size gilk_target_edge_b, .-gilk_target_edge_b\n"
	".p2align 4, 0xcc\n"
	".globl gilk_target_endbr\n"
	".type gilk_target_endbr, @function\n"
	"gilk_target_endbr:\n"
	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n"	/* endbr64 */
	"	mov %rdi, %rax\n"		/* +4 */
	"	jmp __x86_return_thunk\n"
	".size gilk_target_endbr, .-gilk_target_endbr\n"
	".popsection\n");
