// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target_optsite(n) returns 2n + 14 (3 for 0), in assembly so that its
 * layout is known. "optkprobe 1" puts a kprobe at +46 (`add`, 4 bytes; a
 * `nop` after it: the 5 bytes the kernel's optimizer turns into a jmp),
 * "optkprobe 0" takes it off (debugfs says when it is optimized: the flag
 * is on the kernel's own copy). gilk.ko's checker reads the text it decodes
 * 64 bytes at a time from the instruction it is at, and reads again where
 * fewer than 15 are left: at +50, the last byte of the optimized kprobe's
 * jmp. Read as it is there, +50 holds the top byte of the jmp's rel32 (00
 * or ff for a slot within 16 MiB), which with the `add`s after it decodes
 * as two 3-byte instructions: the block at +55 is then mid-instruction.
 * (The kernel does not optimize a kprobe when a jump lands within a byte of
 * its jmp's end: the block is not the one right after it.)
 */
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "target.h"

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_optsite\n"
	".type gilk_target_optsite, @function\n"
	".p2align 4\n"
	"gilk_target_optsite:\n"
	"	mov %rdi, %rax\n"		/* +0 */
	"	test %rdi, %rdi\n"		/* +3 */
	"	jz 1f\n"			/* +6 */
	"	.rept 8\n"
	"	add $1, %rax\n"			/* +8 .. +40, 4 bytes each */
	"	.endr\n"
	"	mov %rdi, %rdx\n"		/* +40 */
	"	add %rdx, %rax\n"		/* +43 */
	"	add $1, %rax\n"			/* +46: the optimized kprobe */
	"	nop\n"				/* +50 */
	"	add $2, %rax\n"			/* +51 */
	"1:	add $3, %rax\n"			/* +55: the block spliced */
	"	.rept 8\n"
	"	nop\n"
	"	.endr\n"
	"	jmp __x86_return_thunk\n"
	".size gilk_target_optsite, .-gilk_target_optsite\n"
	".popsection\n");

static DEFINE_MUTEX(optkp_lock);
static struct kprobe optkp;
static bool optkp_on;

/* 0 or -errno. */
long gilk_target_optkprobe(long on)
{
	long ret = 0;

	mutex_lock(&optkp_lock);
	if (on && !optkp_on) {
		memset(&optkp, 0, sizeof(optkp));
		optkp.symbol_name = "gilk_target_optsite";
		optkp.offset = 46;
		ret = register_kprobe(&optkp);
		optkp_on = !ret;
	} else if (!on && optkp_on) {
		unregister_kprobe(&optkp);
		optkp_on = false;
	}
	mutex_unlock(&optkp_lock);
	return ret;
}

void optsite_exit(void)
{
	gilk_target_optkprobe(0);
}
