/*
 * arm64 as gilk plans it: one instruction a site, which a b replaces, with
 * trampolines within a b's reach of the kernel's text; BUG() stands on a
 * brk #0x800; no static calls, no thunks, and switch tables the reader
 * follows.
 */
#include "arch.h"

#include "decode_arm64.h"
#include "decode_internal.h"
#include "kernel_internal.h"
#include "splice.h"
#include "splice_arm64.h"
#include "splice_internal.h"
#include "switch_arm64.h"

static const uint8_t brk_bug[] = { 0x00, 0x00, 0x21, 0xd4 };	/* BUG_BRK_IMM */

/* arm64's arch_populate_kprobe_blacklist() adds the code that runs with the
 * MMU off or at EL2, and hibernation's exit runs from a copy (marked by
 * the same linker script; x86 has none of them). */
static const char *const noprobe_sections[][2] = {
	{ "__idmap_text_start", "__idmap_text_end" },
	{ "__hyp_text_start", "__hyp_text_end" },
	{ "__hyp_idmap_text_start", "__hyp_idmap_text_end" },
	{ "__hibernate_exit_text_start", "__hibernate_exit_text_end" },
};

/* ftrace's site: -fpatchable-function-entry=2's two nops */
#define ARM64_FTRACE_LEN 8

/* A landing pad, and the paciasp past ftrace's two instructions that the
 * function's own code starts with: an entry's site is past it on every
 * kernel, where BTI puts it at the entry (a landing pad then) and where
 * ftrace's nops come first (Debian's 6.1) alike. */
static bool landing_pad(const struct cfg *g, const struct insn *in, uint64_t addr)
{
	return arm64_is_landing_pad(g, in) ||
	       (arm64_is_pac_sp(in) && addr == g->start + ARM64_FTRACE_LEN);
}

/* the trampolines will lie within a b's reach of the whole text
 * (docs/kernels.md): just past it stands for them */
static uint64_t tramp_hint(uint64_t text_end)
{
	return (text_end + 0xfffu) & ~0xfffull;
}

const struct arch_info arch_arm64 = {
	.name = "arm64",
	.jump = "b",
	.jump_encoding = "b",
	.ftrace_len = ARM64_FTRACE_LEN,
	.bug_trap = brk_bug,
	.bug_trap_len = sizeof(brk_bug),
	.bug_trap_name = "brk #0x800",
	.open_image = kernel_arm64_open,
	.decoder_open = decode_arm64_open,
	.decode = decode_arm64,
	.text = decode_arm64_text,
	.is_idle = arm64_is_idle,
	.is_trap_or_sys = arm64_is_trap_or_sys,
	.writes = decode_arm64_writes_of,
	.noprobe_sections = noprobe_sections,
	.nnoprobe_sections = sizeof(noprobe_sections) / sizeof(noprobe_sections[0]),
	.plan = splice_plan_arm64,
	.landing_pad = landing_pad,
	.mark_insns = arm64_mark_table_jumps,
	.one_insn_region = true,
	.read_switch = switch_arm64_read,
	.tramp_hint = tramp_hint,
};
