/*
 * x86-64 as gilk plans it: a 5-byte jmp rel32 (or a bounce through a 2-byte
 * jmp), past endbr64, with trampolines in the module area; BUG() stands on
 * a ud2; static calls and thunks are the kernel's to patch.
 */
#include "arch.h"

#include "decode_internal.h"
#include "kernel.h"
#include "splice.h"
#include "splice_internal.h"

static const uint8_t ud2[] = { 0x0f, 0x0b };

static uint64_t tramp_hint(uint64_t text_end)
{
	(void)text_end;
	return MODULE_AREA_HINT;
}

const struct arch_info arch_x86_64 = {
	.name = "x86-64",
	.jump = "jmp",
	.jump_encoding = "jmp rel32",
	.ftrace_len = 5,		/* the call's nop5 */
	.bug_trap = ud2,
	.bug_trap_len = sizeof(ud2),
	.bug_trap_name = "ud2",
	.live_tables = true,
	.decoder_open = decode_x86_64_open,
	.decode = decode_x86_64,
	.keeps = decode_x86_64_keeps,
	.text = decode_x86_64_text,
	.is_idle = decode_x86_64_is_idle,
	.is_trap_or_sys = decode_x86_64_is_trap_or_sys,
	.static_calls = true,
	.thunks = true,
	.plan = splice_plan_x86_64,
	.tramp_size = splice_x86_64_tramp_size,
	.evict_tramp_size = splice_x86_64_evict_tramp_size,
	.emit = splice_emit_x86_64,
	.landing_pad = splice_x86_64_landing_pad,
	.tramp_hint = tramp_hint,
};
