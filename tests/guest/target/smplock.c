// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target_smplock(n) counts a call with a locked increment and returns
 * n + 1, in assembly so that its layout is known: the lock prefix is at +3,
 * recorded in the module's .smp_locks. A kernel booted to run on one CPU
 * (maxcpus=1 with more possible) turns every such prefix into a ds prefix
 * (0x3e) and back into lock (0xf0) when a second CPU comes online: no splice
 * may hold that byte. The block at +11 (`add $1`, 4 bytes; the jmp to the
 * return thunk, 5) may be spliced.
 */
#include <linux/linkage.h>
#include <asm/alternative.h>

#include "target.h"

long gilk_target_smplocked;

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_smplock\n"
	".type gilk_target_smplock, @function\n"
	".p2align 4\n"
	"gilk_target_smplock:\n"
	"	mov %rdi, %rax\n"			/* +0 */
	LOCK_PREFIX "incq gilk_target_smplocked(%rip)\n"	/* +3: f0 48 ff 05 rel32 */
	"	add $1, %rax\n"				/* +11 */
	"	jmp __x86_return_thunk\n"		/* +15 */
	".size gilk_target_smplock, .-gilk_target_smplock\n"
	".popsection\n");
