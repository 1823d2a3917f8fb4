/*
 * arch: the instruction sets gilk reads, each described once (struct
 * arch_info, in core/arch_x86_64.c and core/arch_arm64.c) for the generic
 * code to ask, instead of testing which one it reads: what a splice's jump
 * is called, what the kernel reserves that only one of them has, and the
 * planner's and reader's steps that differ. x86-64 kernels are planned and
 * spliced; arm64 kernels are planned, and not spliced yet.
 */
#ifndef GILK_ARCH_H
#define GILK_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum arch { ARCH_X86_64, ARCH_ARM64 };

struct cfg;
struct decoder;
struct gerr;
struct insn;
struct kernel;
struct splice_env;
struct splice_code;
struct splice_params;
struct splice_plan;
struct switch_image;

struct arch_info {
	const char *name;		/* "x86-64" */
	const char *jump;		/* a splice's jump: "jmp" */
	const char *jump_encoding;	/* as bench-offline counts it: "jmp rel32" */
	unsigned int ftrace_len;	/* the ftrace site's bytes at a function's entry */
	const uint8_t *bug_trap;	/* the trap BUG() and WARN() stand on */
	unsigned int bug_trap_len;
	const char *bug_trap_name;	/* "ud2" */
	/* code the kernel's kprobe blacklist adds by section on this
	 * architecture only: start and end symbols, where the kernel has them */
	const char *const (*noprobe_sections)[2];
	size_t nnoprobe_sections;
	bool static_calls;		/* HAVE_STATIC_CALL: their sites are reserved */
	bool thunks;			/* retpoline and return thunks: reserved */
	/* opens what only this architecture's images need, for planning
	 * (NULL: an ELF vmlinux's .text, and the tables its symbols bound) */
	int (*open_image)(struct kernel *k, const char *image, struct gerr *e);
	/* a live kernel's kallsyms bounds its tables, which gilk.ko answers
	 * for: its sites are planned (else read only) */
	bool live_tables;
	/* the decoder's own state opened (decode_internal.h): 0, or -1 */
	int (*decoder_open)(struct decoder *d, struct gerr *e);
	/* one instruction at addr from code[0..avail): 0, or -1 when the
	 * bytes are none */
	int (*decode)(struct decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		      struct insn *out);
	/* whether the decoder may keep an instruction by address: what it
	 * decodes as depends on its bytes alone (NULL: every one) */
	bool (*keeps)(const struct insn *in);
	/* its text, as disas shows it: 0, or -1 */
	int (*text)(struct decoder *d, const struct insn *in, char *buf, size_t len);
	/* a CPU idling there (RCU-tasks does not wait for it) */
	bool (*is_idle)(const struct insn *in);
	/* it traps or switches privilege */
	bool (*is_trap_or_sys)(const struct insn *in);
	/* the general registers it writes, one bit each (NULL: not known:
	 * all); only arm64's switch reader asks */
	uint32_t (*writes)(struct decoder *d, const struct insn *in);
	/* the site's plan once the generic checks pass: 0, or -1 refused */
	int (*plan)(const struct splice_env *env, const struct cfg *g, size_t idx,
		    struct splice_plan *p);
	/* the trampoline bytes a plan can need behind a header of at most
	 * header_max bytes, and its evicted neighbour's (splice.h); its
	 * trampolines and patches written (splice_emit()): SPLICE_OK, or the
	 * enum splice_reason it fails for. NULL where gilk plans and does
	 * not splice */
	size_t (*tramp_size)(const struct splice_plan *p, size_t header_max);
	size_t (*evict_tramp_size)(const struct splice_plan *p);
	unsigned int (*emit)(const struct splice_plan *p, const struct splice_params *sp,
			     struct splice_code *out);
	/* an instruction a splice goes past at a block's start (a landing
	 * pad an indirect branch must find there) */
	bool (*landing_pad)(const struct cfg *g, const struct insn *in, uint64_t addr);
	/* the CFG's instructions once decoded, marked as the planner needs
	 * (NULL: nothing to mark) */
	void (*mark_insns)(struct insn *insns, size_t n);
	/* whether a plan's region is one instruction, relocated word by word
	 * (the shell shows those words, not a template's trampoline) */
	bool one_insn_region;
	/* reads the jump table of a switch the CFG met (g->jump_table), for
	 * its labels (switch_arm64.h); NULL: the planner refuses the
	 * function's sites instead */
	int (*read_switch)(struct decoder *d, struct cfg *g, const uint8_t *code,
			   const uint64_t *ext, size_t next, const struct switch_image *img,
			   struct gerr *e);
	/* where trampolines are thought to lie, for relocating branches: the
	 * module area, or just past the kernel's text */
	uint64_t (*tramp_hint)(uint64_t text_end);
};

const struct arch_info *arch_info(enum arch a);

static inline const char *arch_name(enum arch a)
{
	return arch_info(a)->name;
}

#endif
