/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trampoline templates: the bytes a trampoline runs before the
 * relocated instructions. They have one producer, kmod/arch/x86/tramp.c: gilk.ko's
 * checker (verify.c) compares what user space proposes with its bytes, and
 * the planner (lib/template.c) links the same code to propose them, so
 * every template a plan may use is written here and nowhere else.
 *
 * The templates, chosen by what the instrument needs (GILK_NEEDS_* in the
 * uapi header) and the request's flags (gilk_tramp_kind()):
 *  full:    a struct pt_regs built on the stack as the site saw the machine
 *           (flags and every general register), cld (the site may be
 *           between std and cld, as memmove's backward copy is), clac where
 *           SMAP is on, a call handler(ctx, regs), every register and the
 *           flags restored from pt_regs (an instrument may change them), rsp
 *           as it was. The kernel has no red zone, so the frame starts right
 *           at rsp.
 *  scratch: the flags and the registers a C call clobbers pushed, cld,
 *           clac, a call handler(ctx, NULL), all popped back.
 *  count:   no call: `incq %gs:counter` (through rax, pushed and popped,
 *           when the counter's address does not fit a disp32), with
 *           pushfq/popfq around it unless the flags are dead at the site
 *           (count_flags keeps them; the checker decides which it accepts,
 *           see flags.h).
 *  count_task: count behind a test of the task, for a filter of one
 *           test (uapi gilk_filter_task_test()): rax pushed (rcx too for
 *           a name longer than 3 or a counter beyond a disp32, rdx for one
 *           longer than 7; the flags as count), the task from
 *           %gs:current_task, its pid or tgid compared in place (`cmp
 *           dword [rax + off], imm32`), or comm's first 4, 8 or 16 bytes
 *           (gilk_comm_width(): the name and its NUL) by `cmp dword` with
 *           an imm32, `cmp qword` with rcx, or xored with the name's in
 *           two 8-byte halves; the outcome set in rax (`mov eax, 0; setcc
 *           al`: 1 filtered) and `inc qword %gs:[rax * 8 + counter]`: the
 *           filtered counter is the u64 after the hit counter (struct
 *           gilk_counts). All popped. No call and no branch.
 *  tsc:     no call: rax, rcx, rdx, rsi and rdi pushed (and the flags, as
 *           count), who in rsi (`mov esi, %gs:cpu_number`, the preempt
 *           count's interrupt bits from %gs:preempt_count, the pid of the
 *           task at %gs:current_task, as uapi gilk.h packs them), lfence;
 *           rdtsc, a sequence number reserved by `lock xadd` on the
 *           splice's struct gilk_tsc_ring (uapi), its slot written (begin,
 *           tsc, who, and end = begin ^ tsc ^ who), all popped back.
 */
#ifndef _GILK_TRAMP_H
#define _GILK_TRAMP_H

#include "gilk_neutral.h"

#define GILK_TRAMP_HEADER_MAX 320

enum gilk_tramp_kind {
	GILK_TRAMP_FULL,
	GILK_TRAMP_SCRATCH,
	GILK_TRAMP_COUNT,	/* the flags left alone: dead at the site */
	GILK_TRAMP_COUNT_FLAGS,
	GILK_TRAMP_TSC,		/* the flags left alone: dead at the site */
	GILK_TRAMP_TSC_FLAGS,
	GILK_TRAMP_COUNT_TASK,	/* the flags left alone: dead at the site */
	GILK_TRAMP_COUNT_TASK_FLAGS,
	GILK_TRAMP_NKINDS
};

struct gilk_tramp_params {
	enum gilk_tramp_kind kind;
	unsigned long tramp;	/* where the header runs */
	unsigned long site;	/* pt_regs->ip */
	unsigned long ctx;	/* the handler's first argument */
	unsigned long handler;
	bool clac;
	unsigned long counter;	/* count: the splice's __percpu hit counter */
	unsigned long ring;	/* tsc: the splice's struct gilk_tsc_ring */
	unsigned long cpu_number;	/* tsc: %gs-relative, within a disp32 */
	unsigned long preempt_count;	/* tsc: %gs-relative, within a disp32 */
	unsigned long current_task;	/* tsc: %gs-relative, within a disp32 */
	unsigned long task_pid;		/* tsc: offsetof(struct task_struct, pid) */
	/* count_task: the test (the filtered counter follows counter) */
	u32 task_field;		/* offsetof() the task's field compared */
	u32 task_len;		/* 4 (pid, tgid), or comm's gilk_comm_width() */
	u8 task_bytes[16];	/* what an equal task holds there */
	bool pass_if_equal;
};

/* Offsets in struct task_struct, for count_task's test. */
struct gilk_task_offsets {
	u32 pid, tgid, comm;
};

/*
 * Sets p's test from filter f where count_task can test it inline
 * (uapi gilk_filter_task_test()) and its offsets fit; false if not.
 */
bool gilk_tramp_task_test(struct gilk_tramp_params *p, const struct gilk_filter *f,
			  const struct gilk_task_offsets *off);

/* Count, count_task and tsc: no call, and the flags saved only where they are live. */
bool gilk_tramp_inline(enum gilk_tramp_kind kind);
/* The kind that saves the flags around an inline kind's code. */
enum gilk_tramp_kind gilk_tramp_flags_kept(enum gilk_tramp_kind kind);

/*
 * The template a request gets, count and tsc standing for both of their
 * kinds: full for GILK_SPLICE_FULL and GILK_SPLICE_BUG (the replay reads
 * pt_regs).
 */
enum gilk_tramp_kind gilk_tramp_kind(u32 needs, u32 splice_flags);

/* Writes the header into buf (GILK_TRAMP_HEADER_MAX bytes); returns its length. */
size_t gilk_tramp_header(u8 *buf, const struct gilk_tramp_params *p);

/*
 * Where a header that calls its handler loads the handler's first argument
 * (a 10-byte movabs rdi, right before the call) and where the call ends:
 * the one place a 5-byte jmp can be written over whole instructions while
 * CPUs run the header. False for count, count_task and tsc, which call
 * nothing.
 */
bool gilk_tramp_call(const struct gilk_tramp_params *p, size_t *ctx_at, size_t *after);

#endif
