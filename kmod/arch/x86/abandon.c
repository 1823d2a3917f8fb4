// SPDX-License-Identifier: GPL-2.0
/*
 * An abandoned splice's trampoline made to skip its call into gilk
 * (unsplice.c's gilk_abandon()). The jmp over the call is written with the
 * kernel's int3-protected text_poke_bp() over the 10-byte movabs that
 * loads the call's first argument, the one instruction before the call:
 * the header's first bytes may be 1-byte pushes, and a task preempted
 * between them would resume inside the jmp. A BUG site's gets an int3
 * there instead: a BUG must still stop the kernel.
 */
#include <asm/cpufeature.h>

#include "gilk_internal.h"
#include "compat.h"
#include "gilk_tramp.h"
#include "verify_env.h"

bool gilk_arch_tramp_skip_call(struct gilk_splice_obj *s)
{
	/* enough of the header's inputs to find its call (inline: none) */
	struct gilk_tramp_params tp = {
		.kind = s->tramp_kind, .tramp = s->tramp, .site = s->site,
		.ctx = (unsigned long)s, .handler = (unsigned long)gilk_entry,
		.clac = boot_cpu_has(X86_FEATURE_SMAP), .counter = (unsigned long)s->hits,
		.ring = (unsigned long)s->tsc_ring, .cpu_number = gilk_cpu_number_addr(),
		.preempt_count = gilk_preempt_count_addr(),
		.current_task = gilk_current_task_addr(), .task_pid = gilk_task_pid_offset(),
	};
	static const u8 int3 = GILK_ARCH_TRAP_BYTE;
	u8 jmp[GILK_JMP32_LEN];
	size_t ctx_at, after;

	if (!gilk_tramp_call(&tp, &ctx_at, &after))
		return false;
	if (s->bug_kind == GILK_BUG) {
		/* an int3 nothing handles once gilk.ko is gone: an oops */
		gilk_poke_locked(s->tramp + ctx_at, &int3, 1);
		gilk_poke_sync();
	} else {
		gilk_arch_jmp(jmp, s->tramp + ctx_at, s->tramp + after);
		gilk_ks.text_poke_bp((void *)(s->tramp + ctx_at), jmp, sizeof(jmp), NULL);
	}
	return true;
}
