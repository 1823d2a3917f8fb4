// SPDX-License-Identifier: GPL-2.0
/*
 * gilk_target_kpsite(n) returns n + 0xb8 (0 for 0), in assembly so that its
 * layout is known. The block at +8 (`mov`, 3 bytes; `add $0xb8`, 6) is
 * spliced and a kprobe then put on gilk's jmp there; the branch target at
 * +17, right after that splice's region, is spliced after it. gilk.ko's
 * checker decodes from the function's start over the text as it was. Read
 * with the kprobe's saved opcode (gilk's 0xe9) laid over the spliced bytes
 * put back, +8 decodes as a 5-byte jmp and +13 as `mov $imm32, %eax` (the
 * add's immediate, 0xb8 first) running over +17: the splice there would be
 * refused as mid-instruction. Trace events refuse to probe a function
 * without an ftrace site, so "kprobe 1" (and "kprobe 0") on /proc/gilk_target
 * puts (and takes off) the kprobe at +8 with register_kprobe().
 */
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "target.h"

asm(".pushsection .text, \"ax\"\n"
	".globl gilk_target_kpsite\n"
	".type gilk_target_kpsite, @function\n"
	".p2align 4\n"
	"gilk_target_kpsite:\n"
	"	mov %rdi, %rax\n"		/* +0 */
	"	test %rdi, %rdi\n"		/* +3 */
	"	jz 1f\n"			/* +6 */
	"	mov %rdi, %rax\n"		/* +8: the kprobed splice's block */
	"	add $0xb8, %rax\n"		/* +11: 48 05 b8 00 00 00 */
	"1:	add $0, %rax\n"			/* +17: the later splice's block */
	"	.rept 8\n"
	"	nop\n"
	"	.endr\n"
	"	jmp __x86_return_thunk\n"
	".size gilk_target_kpsite, .-gilk_target_kpsite\n"
	".popsection\n");

static DEFINE_MUTEX(kp_lock);
static struct kprobe kp;
static bool kp_on;

/* 0, or the error register_kprobe() gave. */
long gilk_target_kprobe(long on)
{
	int ret = 0;

	mutex_lock(&kp_lock);
	if (on && !kp_on) {
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "gilk_target_kpsite";
		kp.offset = 8;
		ret = register_kprobe(&kp);
		kp_on = !ret;
	} else if (!on && kp_on) {
		unregister_kprobe(&kp);
		kp_on = false;
	}
	mutex_unlock(&kp_lock);
	return ret;
}

void kpsite_exit(void)
{
	gilk_target_kprobe(0);
}
