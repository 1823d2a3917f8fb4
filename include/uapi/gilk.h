/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The /dev/gilk ioctl ABI, shared by gilk.ko and user space. Every struct has
 * a fixed size; GILK_ABI_VERSION changes whenever any of them does.
 *
 * A splice is made in two steps: RESERVE gets trampoline memory (and the
 * addresses the planner must embed: the trampoline, gilk.ko's entry function
 * and the splice's context), then SPLICE hands over the bytes planned for
 * those addresses. gilk.ko trusts none of them: its code checker decodes
 * the function with the kernel's own decoder and verifies every byte it is
 * asked to write (the trampoline, the relocated instructions, the jmp), then
 * it runs the patch protocol.
 */
#ifndef _UAPI_GILK_H
#define _UAPI_GILK_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define GILK_ABI_VERSION 18

#define GILK_PATCH_MAX_LEN 32
#define GILK_TRAMP_MAX 512
#define GILK_NAME_MAX 32
#define GILK_ARG_MAX 64
/*
 * The symbol a site was named by, with its NUL (kallsyms' names may be
 * longer: such a one is not kept)
 */
#define GILK_SITE_NAME_MAX 128
#define GILK_HELP_MAX 96
#define GILK_REASON_MAX 128
#define GILK_MAX_PATCHES 2
#define GILK_FACTS_MAX 16384	/* the most one FACTS call returns */
/*
 * The most requests one batch carries: a bound on what gilk.ko allocates
 * for it, not on the splices there may be (there is none).
 */
#define GILK_BATCH_MAX (1 << 20)

/*
 * What gilk.ko's code checker holds a plan to, and so what the planner
 * (core/) must plan within: where the checker looks further than the
 * planner, it refuses a region the planner thought free. core/ keeps its
 * own copies (it sees no uapi); lib/ asserts they are these.
 */
#define GILK_NEIGHBOUR_REACH 4096	/* symbols starting this near either side are walked too */
#define GILK_NEIGHBOUR_SPAN 16384	/* each of them this far at most */
#define GILK_TABLE_MAX 4096	/* the most words of a jump table read */
#define GILK_TABLE_GAP_MAX 64	/* 0 words in a row: zeroed data, the table's end */
#define GILK_FLAGS_WALK_MAX 16	/* instructions walked to find the flags dead */
#define GILK_KERNEL_CS 0x10	/* __KERNEL_CS: cs in a full template's pt_regs */
#define GILK_KERNEL_DS 0x18	/* __KERNEL_DS: ss there */

struct gilk_version {
	__u32 abi;		/* out: GILK_ABI_VERSION */
	__u32 max_batch;	/* out: GILK_BATCH_MAX */
};

/* Reads kernel memory that may not be mapped (copy_from_kernel_nofault). */
struct gilk_read {
	__u64 addr;
	__u64 len;		/* at most 1 MiB */
	__u64 buf;		/* user pointer */
};

/*
 * And a struct gilk_tsc_ring (needs TSC): refused with EDQUOT once the
 * rings take 1/32 of RAM.
 */
#define GILK_RESERVE_TSC_RING 1

struct gilk_reserve {
	__u32 tramp_size;	/* in: bytes for the trampoline */
	__u32 evict_size;	/* in: bytes for an evicted neighbour's, or 0 */
	__u32 id;		/* out: the reservation, later the splice id */
	__u32 flags;		/* in: GILK_RESERVE_* */
	__u64 tramp;		/* out: trampoline address */
	__u64 evict_tramp;	/* out */
	__u64 handler;		/* out: call handler(ctx, struct pt_regs *) */
	__u64 ctx;		/* out */
	__u64 counter;		/* out: the splice's per-CPU hit counter, a
				 * %gs-relative (__percpu) address: what an
				 * inline count increments
				 */
	__u64 tsc_ring;		/* out: its struct gilk_tsc_ring, or 0 */
	__u64 cpu_number;	/* out: the %gs-relative address of the
				 * kernel's number of the CPU it runs on
				 */
	__u64 preempt_count;	/* out: %gs-relative, the CPU's preempt count */
	__u64 current_task;	/* out: %gs-relative, the task it runs */
	__u32 task_pid;		/* out: offsetof(struct task_struct, pid) */
	__u32 task_tgid;	/* out: offsetof(struct task_struct, tgid) */
	__u64 filtered;		/* out: %gs-relative, the splice's per-CPU
				 * count of hits its filter turned away
				 */
	__u32 task_comm;	/* out: offsetof(struct task_struct, comm) */
	__u32 pad;
};

/*
 * Where the inline tsc template (GILK_NEEDS_TSC) writes: a ring per splice,
 * laid out here because the trampoline user space proposes addresses it.
 * A hit reads who it is (struct gilk_tsc_slot's who: the CPU it runs on, the
 * kernel's own number as raw_smp_processor_id() reads it, since TSC_AUX,
 * which rdtscp reads, holds a KVM guest's value on a host until the next
 * return to user space; the preempt count's interrupt bits; the running
 * task's pid) and the TSC
 * (lfence; rdtsc), reserves a sequence number with `lock xadd` on head (one
 * instruction, so interrupts, NMIs, other CPUs and a migration cannot split
 * it), then writes its slot, slot[seq % GILK_TSC_SLOTS]: begin = seq, tsc,
 * who, and last end = seq ^ tsc ^ who. gilk.ko takes a slot whose begin is
 * the sequence it expects and whose end checks: a slot being written, or
 * written over by a writer of an earlier lap that stalled, does not; one a
 * later lap wrote counts as lost. The ring never blocks a hit: gilk.ko
 * moves what it holds into the event buffer when events are read, and
 * before the splice goes.
 */
#define GILK_TSC_SLOTS 4096	/* a power of 2 */

/*
 * A slot's who: bits 0-15 the CPU, 16-31 the preempt count's bits of
 * GILK_WHO_PREEMPT_MASK shifted left by GILK_WHO_PREEMPT_SHIFT (serving a
 * softirq, the hard interrupt and NMI nesting), 32-63 the task's pid (its
 * thread id). The template computes it with those two constants.
 */
#define GILK_WHO_PREEMPT_MASK 0x00ff0100u
#define GILK_WHO_PREEMPT_SHIFT 8
#define GILK_WHO_CPU(w) ((__u32)((w) & 0xffff))
#define GILK_WHO_TID(w) ((__u32)((w) >> 32))
#define GILK_WHO_PREEMPT(w) ((__u32)(((w) & 0xffff0000u) >> GILK_WHO_PREEMPT_SHIFT))

struct gilk_tsc_slot {
	__u64 begin;		/* ~0 until first written */
	__u64 tsc;
	__u64 who;		/* CPU, context and task: GILK_WHO_* */
	__u64 end;		/* begin ^ tsc ^ who */
};

struct gilk_tsc_ring {
	__u64 head;		/* the next sequence number: hits so far */
	__u64 pad[7];		/* head alone on its cache line */
	struct gilk_tsc_slot slot[GILK_TSC_SLOTS];
};

/*
 * What an instrument needs of the site, which chooses the trampoline's
 * template (include/gilk_tramp.h):
 *  REGS     a struct pt_regs as the site saw it (the full template);
 *  SCRATCH  nothing of the site's registers: the trampoline saves only what
 *           a C call clobbers (flags, rax, rcx, rdx, rsi, rdi, r8-r11), and
 *           the instrument gets ctx->regs NULL;
 *  NOTHING  not called at all: the trampoline increments the splice's
 *           per-CPU counter inline (gilk.ko's own count).
 *  TSC      not called at all: the trampoline writes the TSC and the CPU
 *           into the splice's struct gilk_tsc_ring (gilk.ko's own tsc;
 *           reserve with GILK_RESERVE_TSC_RING).
 */
#define GILK_NEEDS_REGS 0
#define GILK_NEEDS_SCRATCH 1
#define GILK_NEEDS_NOTHING 2
#define GILK_NEEDS_TSC 3

/*
 * A filter: a predicate gilk.ko evaluates at every hit before the
 * instrument runs. A hit it turns away calls nothing, writes no event and
 * counts only in the splice's filtered count. The shell compiles `if EXPR`
 * into it.
 *
 * The program is a list of tests, as classic BPF's are: test i compares a
 * field (masked) with a constant, or comm with a string, and goes on to
 * test i + 1 + jt when it holds, i + 1 + jf when not. Jumps go forward only,
 * so a program of at most GILK_FILTER_MAX tests runs at most that many; a
 * GILK_FOP_RET test ends it, accepting the hit when its value is not 0.
 * gilk.ko checks every test before the splice is made: known op and field,
 * jumps inside the program (so the last test is a RET), a string in the
 * table, reserved fields 0.
 */
#define GILK_FILTER_MAX 32
#define GILK_FILTER_STRS 4
#define GILK_FILTER_STR_LEN 32
#define GILK_FILTER_TEXT_MAX 128

/* Fields: what the task, the CPU, or the site's registers hold. */
#define GILK_FF_PID 0		/* the task's thread group id (getpid()) */
#define GILK_FF_TID 1		/* the task's own id */
#define GILK_FF_COMM 2		/* the task's name: string tests only */
#define GILK_FF_CPU 3		/* the CPU the hit runs on */
#define GILK_FF_CONTEXT 4	/* GILK_CTX_* */
#define GILK_FF_SELF 5		/* filters only: 1 in the process that made the
				 * splice while it has /dev/gilk open, else 0
				 * (what "filter-self" leaves out: a splice
				 * kept past its session leaves out no one)
				 */
/* From here on, fields read the site's registers: the full template. */
#define GILK_FF_REGS 8
#define GILK_FF_ARG0 8		/* ARG0..ARG5: rdi, rsi, rdx, rcx, r8, r9 */
#define GILK_FF_RAX 14		/* RAX..R15 in struct gilk_regs order:
				 * rax rbx rcx rdx rsi rdi rbp rsp r8..r15
				 */
#define GILK_FF_RIP 30
#define GILK_FF_FLAGS 31
#define GILK_FF_NFIELDS 32

#define GILK_FOP_RET 0		/* ends the program: accept if value != 0 */
#define GILK_FOP_EQ 1		/* (field & mask) == value, unsigned */
#define GILK_FOP_LT 2
#define GILK_FOP_LE 3
#define GILK_FOP_GT 4
#define GILK_FOP_GE 5
#define GILK_FOP_STR_EQ 6	/* comm equals str[value] */
#define GILK_FOP_GLOB 7		/* comm matches the glob str[value] (* ? [...]) */
#define GILK_FOP_NOPS 8

struct gilk_filter_test {
	__u8 op;		/* GILK_FOP_* */
	__u8 field;		/* GILK_FF_* */
	__u8 jt, jf;		/* forward: the next test is i + 1 + jt (or jf) */
	__u32 pad;		/* 0 */
	__u64 mask;
	__u64 value;
};

struct gilk_filter {
	__u32 len;		/* tests; 0: no filter */
	__u32 pad;		/* 0 */
	struct gilk_filter_test test[GILK_FILTER_MAX];
	char str[GILK_FILTER_STRS][GILK_FILTER_STR_LEN];	/* NUL-terminated */
	char text[GILK_FILTER_TEXT_MAX];	/* what it was compiled from:
						 * shown, never run
						 */
};

/*
 * What a filtered splice's trampoline must give the filter: the full
 * template when a test reads registers; a call (the scratch template) in
 * place of an inline count or tsc, which call nothing. Both gilk.ko and the
 * planner choose the template by it.
 */
static inline __u32 gilk_filter_needs(const struct gilk_filter *f, __u32 needs)
{
	__u32 i;

	if (!f->len)
		return needs;
	for (i = 0; i < f->len && i < GILK_FILTER_MAX; i++)
		if (f->test[i].op != GILK_FOP_RET && f->test[i].field >= GILK_FF_REGS)
			return GILK_NEEDS_REGS;
	return needs >= GILK_NEEDS_NOTHING ? GILK_NEEDS_SCRATCH : needs;
}

/*
 * A filter count can test inline, calling nothing (gilk_tramp.h's
 * count_task template): one test, pid or tid == a number below 2^32 or comm
 * == a string of at most 15 characters, or its negation, then the two RETs.
 * Returns 1 with the field, the value (comm: the string's index) and
 * whether an equal task passes; 0 for any other program.
 */
static inline int gilk_filter_task_test(const struct gilk_filter *f, __u8 *field,
					__u64 *value, int *pass_if_equal)
{
	const struct gilk_filter_test *t = &f->test[0];

	if (f->len != 3 || f->test[1].op != GILK_FOP_RET || f->test[2].op != GILK_FOP_RET ||
	    t->jt > 1 || t->jf > 1 || t->jt == t->jf ||
	    !f->test[1 + t->jt].value == !f->test[1 + t->jf].value)
		return 0;
	if (t->op == GILK_FOP_EQ) {
		if ((t->field != GILK_FF_PID && t->field != GILK_FF_TID) ||
		    t->mask != ~(__u64)0 || t->value > 0xffffffffu)
			return 0;
	} else if (t->op != GILK_FOP_STR_EQ || t->field != GILK_FF_COMM ||
		   t->value >= GILK_FILTER_STRS || f->str[t->value][15]) {
		return 0;	/* a longer name is never a task's */
	}
	*field = t->field;
	*value = t->value;
	*pass_if_equal = f->test[1 + t->jt].value != 0;
	return 1;
}

/*
 * How many of comm's bytes an inline test of it compares with name: the
 * name and its NUL, rounded up to 4, 8 or 16 (one compare each). The
 * kernel pads comm with NULs after the name (strscpy_pad()), as the name
 * is padded here.
 */
static inline __u32 gilk_comm_width(const char *name)
{
	__u32 n = 0;

	while (n < 16 && name[n])
		n++;
	return n < 4 ? 4 : n < 8 ? 8 : 16;
}

/*
 * A fetch: values gilk.ko reads at every hit a splice records, and appends
 * to each event the hit writes, as kprobe events' fetch arguments do
 * ($arg2, +0(%si):string, +8(+16(%di)):u32). The shell compiles C
 * ("fetch filename, file->f_pos") into it.
 *
 * A value starts from a field (GILK_FF_*: a register, the task's pid...),
 * from the task itself (GILK_FETCH_FROM_TASK: current) or from 0 (an
 * absolute address, a global's, in the first step), and goes through its
 * steps in order: LOAD replaces the value with width bytes read at value +
 * off (zero-extended), ADD adds off, and STRING, which can only be the
 * last, ends with the string at value + off (at most width bytes with its
 * NUL). Every read goes through copy_from_kernel_nofault(), or for an
 * address below the user space's end copy_from_user_nofault(): a read that
 * faults ends that value, marked in the event's fault bits, never an oops.
 * Nothing is ever written. gilk.ko checks the program whole before the
 * splice is made: known ops and fields, widths, STRING last, reserved
 * fields 0, names and text NUL-terminated.
 *
 * In the event, the fetch follows the instrument's payload: a __u64 whose
 * bit i says value i faulted, then each value in order, 8 bytes for a
 * number and the width rounded up to 8 for a string (NUL-padded);
 * gilk_fetch_out_len() is its size, and struct gilk_event's fetched flag
 * says an event has it.
 */
#define GILK_FETCH_MAX 4	/* values a splice fetches */
#define GILK_FETCH_STEPS 8	/* steps of one value */
#define GILK_FETCH_STR_MAX 128	/* a string's bytes, with its NUL */
#define GILK_FETCH_NAME_MAX 32
#define GILK_FETCH_TEXT_MAX 128

#define GILK_FETCH_FROM_ZERO 0xfe
#define GILK_FETCH_FROM_TASK 0xff

#define GILK_FSTEP_LOAD 1	/* width 1, 2, 4 or 8 */
#define GILK_FSTEP_ADD 2	/* width 0 */
#define GILK_FSTEP_STRING 3	/* width 1..GILK_FETCH_STR_MAX; the last step */
#define GILK_FSTEP_NOPS 4

/* How the shell shows a value (never run): a number's sign, a pointer. */
#define GILK_FSHOW_UNSIGNED 0
#define GILK_FSHOW_SIGNED 1
#define GILK_FSHOW_HEX 2
#define GILK_FSHOW_STRING 3
#define GILK_FSHOW_NKINDS 4

struct gilk_fetch_step {
	__u8 op;		/* GILK_FSTEP_* */
	__u8 width;
	__u8 pad[6];		/* 0 */
	__s64 off;
};

struct gilk_fetch_value {
	__u8 from;		/* GILK_FF_* (not comm) or GILK_FETCH_FROM_* */
	__u8 nsteps;
	__u8 show;		/* GILK_FSHOW_* */
	__u8 size;		/* a number's bytes as its type has them (1, 2,
				 * 4, 8): what the shell shows of the 8; a
				 * string's 0
				 */
	__u8 pad[4];		/* 0 */
	struct gilk_fetch_step step[GILK_FETCH_STEPS];
	char name[GILK_FETCH_NAME_MAX];	/* as events name it: shown, never run */
};

struct gilk_fetch {
	__u32 len;		/* values; 0: no fetch */
	__u32 pad;		/* 0 */
	struct gilk_fetch_value value[GILK_FETCH_MAX];
	char text[GILK_FETCH_TEXT_MAX];	/* what it was compiled from */
};

/* A value's bytes in an event: a number's 8, a string's width rounded up. */
static inline __u32 gilk_fetch_value_len(const struct gilk_fetch_value *v)
{
	const struct gilk_fetch_step *last = &v->step[v->nsteps ? v->nsteps - 1 : 0];

	if (v->nsteps && v->nsteps <= GILK_FETCH_STEPS && last->op == GILK_FSTEP_STRING)
		return (last->width + 7u) & ~7u;
	return 8;
}

/* The fetch's bytes in an event: the fault bits, then every value. */
static inline __u32 gilk_fetch_out_len(const struct gilk_fetch *f)
{
	__u32 i, n = 8;

	if (!f->len)
		return 0;
	for (i = 0; i < f->len && i < GILK_FETCH_MAX; i++)
		n += gilk_fetch_value_len(&f->value[i]);
	return n;
}

/*
 * What a fetch needs of the trampoline: the full template when a value
 * starts from a register, a call otherwise (an inline template records
 * nothing a fetch could join).
 */
static inline __u32 gilk_fetch_needs(const struct gilk_fetch *f, __u32 needs)
{
	__u32 i;

	if (!f->len)
		return needs;
	for (i = 0; i < f->len && i < GILK_FETCH_MAX; i++)
		if (f->value[i].from >= GILK_FF_REGS && f->value[i].from < GILK_FF_NFIELDS)
			return GILK_NEEDS_REGS;
	return needs >= GILK_NEEDS_NOTHING ? GILK_NEEDS_SCRATCH : needs;
}

/*
 * An aggregation: a splice's hits counted per key, or a value's histogram
 * per key, in gilk.ko, exact under any load, where events would be lost
 * once the buffer is full (bpftrace's @[comm] = count(), @[comm] =
 * hist(arg2)). Only a count splice aggregates: it records no events.
 *
 * Each CPU has its own map of keys slots (a power of two), written only by
 * the hits on that CPU, inside the recursion guard: one writer, no lock.
 * A key is a field (GILK_FF_*, comm too: its 16 bytes), none (one total)
 * or the kernel stack; a number key is its 8 bytes, little-endian, the
 * rest of key[] 0. A stack key is the stack's hash (8 bytes), then its
 * frames' number (4) and 1 when the walk stopped at GILK_AGG_STACK_FRAMES
 * with more beyond (4); the frames themselves (the site, then the return
 * addresses the kernel's unwinder finds, innermost first; 0 past the
 * number) follow the slot's buckets, so each distinct stack is kept once
 * per CPU, compared frame by frame, never told apart by its hash alone. A key
 * that finds no free slot within GILK_AGG_PROBES of its hash is not
 * counted, and its hit is counted in the CPU's dropped: said, never
 * silent. The maps only grow: a reader that wants a count since a moment
 * subtracts what it read then.
 *
 * HIST counts the value (a GILK_FF_* number field, as unsigned) in 65
 * buckets: 0, then [2^(i-1), 2^i) for i = 1..64. LHIST counts it in linear buckets of step
 * from min: bucket 0 below min, 1..buckets the steps, buckets + 1 at or
 * above min + buckets * step.
 */
#define GILK_AGG_COUNT 1
#define GILK_AGG_HIST 2
#define GILK_AGG_LHIST 3
#define GILK_AGG_NKINDS 4

#define GILK_AGG_KEY_NONE 0xff	/* no key: one slot counts every hit */
#define GILK_AGG_KEY_STACK 0xfe	/* the kernel stack at the hit */
/*
 * GILK_AGG_KEY_FETCH + i: value i of the splice's fetch, as the fetch read
 * it at the hit (a count may fetch for its key alone): a number by the
 * key's size and show, a string's first GILK_AGG_KEY_LEN - 1 bytes. One
 * the fetch could not read is a key of its own, GILK_AGG_KEY_FAULT.
 */
#define GILK_AGG_KEY_FETCH 0xf8
/* A faulted fetched key: its last byte (a string's is always 0). */
#define GILK_AGG_KEY_FAULT 0xff
#define GILK_AGG_STACK_FRAMES 32
#define GILK_AGG_KEY_LEN 16
#define GILK_AGG_KEYS_MAX 65536
#define GILK_AGG_PROBES 64
#define GILK_AGG_LOG2_BUCKETS 65
#define GILK_AGG_LHIST_MAX 1024
#define GILK_AGG_BYTES_MAX (64u << 20)	/* every CPU's map together */
#define GILK_AGG_TEXT_MAX 96

struct gilk_agg {
	__u8 kind;		/* GILK_AGG_*; 0: none */
	__u8 key;		/* GILK_FF_*, GILK_AGG_KEY_NONE or _STACK */
	__u8 value;		/* HIST, LHIST: GILK_FF_* (not comm); else 0 */
	__u8 key_show;		/* how the shell shows a number key, as a
				 * fetch's value (GILK_FSHOW_*, not STRING):
				 * shown, never run
				 */
	__u8 key_size;		/* its bytes as its type has them: 0, 1, 2, 4,
				 * 8; a number key narrower than 8 is its
				 * register's low bytes, sign-extended when
				 * key_show is SIGNED (the bits above are
				 * undefined)
				 */
	__u8 value_show;	/* the same for the value: its sign */
	__u8 value_size;	/* and its bytes */
	__u8 pad[1];		/* 0 */
	__u32 keys;		/* slots of each CPU's map: a power of two */
	__u32 buckets;		/* LHIST: 1..GILK_AGG_LHIST_MAX; else 0 */
	__s64 min;		/* LHIST; else 0 */
	__u64 step;		/* LHIST: at least 1; else 0 */
	char text[GILK_AGG_TEXT_MAX];	/* what it was asked as: shown, never run */
};

/*
 * A slot of a map as GILK_IOC_AGG_READ copies it, then its buckets, then
 * with a stack key its frames.
 */
struct gilk_agg_slot {
	__u64 count;		/* hits with this key; 0: the slot is free */
	__u64 sum;		/* HIST, LHIST: of the values, wrapping */
	__u64 min, max;		/* HIST, LHIST: of the values, unsigned */
	__u8 key[GILK_AGG_KEY_LEN];
	__u64 bucket[];		/* gilk_agg_buckets() of them */
};

static inline __u32 gilk_agg_buckets(const struct gilk_agg *a)
{
	return a->kind == GILK_AGG_HIST ? GILK_AGG_LOG2_BUCKETS :
	       a->kind == GILK_AGG_LHIST ? a->buckets + 2 : 0;
}

static inline __u32 gilk_agg_frames(const struct gilk_agg *a)
{
	return a->key == GILK_AGG_KEY_STACK ? GILK_AGG_STACK_FRAMES : 0;
}

static inline __u32 gilk_agg_slot_len(const struct gilk_agg *a)
{
	return (__u32)sizeof(struct gilk_agg_slot) +
	       8 * (gilk_agg_buckets(a) + gilk_agg_frames(a));
}

/*
 * What an aggregation needs of the trampoline: a call, the full template
 * when its key or value is a register or the stack (walked from them).
 */
static inline __u32 gilk_agg_needs(const struct gilk_agg *a, __u32 needs)
{
	if (!a->kind)
		return needs;
	if ((a->key >= GILK_FF_REGS && a->key < GILK_FF_NFIELDS) ||
	    a->key == GILK_AGG_KEY_STACK ||
	    (a->kind != GILK_AGG_COUNT && a->value >= GILK_FF_REGS))
		return GILK_NEEDS_REGS;
	return needs >= GILK_NEEDS_NOTHING ? GILK_NEEDS_SCRATCH : needs;
}

/* One CPU's map of an aggregating splice. */
struct gilk_agg_read {
	__u32 splice;		/* in */
	__u32 cpu;		/* in: 0..cpus - 1 (a CPU that cannot be: none) */
	__u32 max;		/* in: slots room at buf */
	__u32 count;		/* out: slots in use (copied: min(count, max)) */
	__u32 cpus;		/* out: the CPU numbers there can be */
	__u32 slot_len;		/* out: gilk_agg_slot_len() */
	__u64 dropped;		/* out: the CPU's hits whose key found no room */
	__u64 buf;		/* user pointer to max slots of slot_len bytes */
};

#define GILK_PATCH_LIVE 1	/* code that runs: int3 protocol, divert */
#define GILK_PATCH_DEAD 2	/* dead bytes (a bounce slot): written once */

struct gilk_patch {
	__u64 addr;
	__u64 divert;		/* LIVE: where a CPU hitting the int3 goes */
	__u32 len;
	__u32 kind;		/* GILK_PATCH_LIVE or GILK_PATCH_DEAD */
	__u8 bytes[GILK_PATCH_MAX_LEN];
	__u8 orig[GILK_PATCH_MAX_LEN];	/* must match the live bytes */
};

#define GILK_SPLICE_TRAP 1	/* no patches: the int3 at site stays */
/*
 * The region starts with a BUG()/WARN() ud2, which the trampoline leaves out:
 * after the instrument, gilk.ko replays it as the trap handler would
 * (report_bug() at site; a WARN goes on, a BUG dies). Without the flag, a
 * region holding such a ud2 is refused.
 */
#define GILK_SPLICE_BUG 2
/*
 * The full template (a struct pt_regs, a call) whatever the instrument
 * needs: for comparisons. A BUG splice always has it (the replay needs
 * pt_regs).
 */
#define GILK_SPLICE_FULL 4
/*
 * Joins the splices at a site already spliced, as kprobes aggregate probes
 * at one address: the request's region is theirs (site, region_len,
 * region_orig), its one LIVE patch is the 5-byte jmp that leads from the
 * site into their trampolines (join_at in their info), rewritten to jump
 * to this trampoline, whose header is followed by exactly a jmp rel32 to
 * the trampoline the site led to until now (join_top). Each splice of the
 * site keeps its own instrument, filter, counts and removal; the last
 * removed puts the site's bytes back. A trap-mode site takes none.
 */
#define GILK_SPLICE_JOIN 8
#define GILK_JOIN_MAX 16	/* the most splices a site holds */

struct gilk_splice {
	__u32 id;		/* in: from RESERVE */
	__u32 flags;
	__u64 site;
	__u32 region_len;	/* bytes at site the splice displaces */
	__u32 npatch;
	__u8 region_orig[GILK_PATCH_MAX_LEN];
	struct gilk_patch patch[GILK_MAX_PATCHES];	/* in write order */
	__u32 tramp_len;
	__u32 evict_len;
	__u8 tramp[GILK_TRAMP_MAX];
	__u8 evict[GILK_TRAMP_MAX];
	char instrument[GILK_NAME_MAX];
	char arg[GILK_ARG_MAX];
	char reason[GILK_REASON_MAX];	/* out: why it was refused */
	__u32 refusal;		/* out, with reason: GILK_REFUSED_* (gilk_refusals.h) */
	__u32 pad;		/* 0 */
	struct gilk_filter filter;
	/*
	 * in: the name of the function the site was asked by, of aliases
	 * that share its address (__x64_sys_getppid, not __ia32_sys_getppid):
	 * kept as text, given back by LIST for another process to show
	 */
	char site_name[GILK_SITE_NAME_MAX];
	struct gilk_fetch fetch;	/* values each event appends; len 0: none */
	struct gilk_agg agg;	/* kind 0: none */
};

/* Why a splice was refused: gilk_refusals.h's rows, in order. */
enum gilk_refusal {
	GILK_REFUSED_NONE,
#define GILK_REFUSAL(code, err, name, meaning) GILK_REFUSED_##code,
#include "gilk_refusals.h"
#undef GILK_REFUSAL
	GILK_NREFUSALS
};

struct gilk_owned {
	__u64 addr;
	__u32 len;
	__u32 pad;
	__u8 orig[GILK_PATCH_MAX_LEN];
};

struct gilk_splice_info {
	__u32 id;
	__u32 flags;		/* GILK_SPLICE_TRAP, _BUG, _JOIN (joined) */
	__u64 site;
	__u32 region_len;
	__u32 npatch;
	__u8 region_orig[GILK_PATCH_MAX_LEN];
	struct gilk_owned patch[GILK_MAX_PATCHES];	/* bytes it changed */
	/*
	 * The site's jmp into its splices' trampolines (0: a trap-mode site,
	 * which takes one splice), the trampoline it jumps to now, and how
	 * many splices the site holds: what a GILK_SPLICE_JOIN request is
	 * made from
	 */
	__u64 join_at;
	__u64 join_top;
	__u32 join_depth;
	__u32 below;		/* joined: the splice run after it (0: one that
				 * is gone, whose trampoline still replays the
				 * site's code); the first: 0
				 */
	__u64 hits;
	__u64 lost;		/* events that found the buffer full (or that
				 * with the fetch were longer than an event)
				 */
	__u64 missed;		/* hits while an instrument already ran */
	__u64 filtered;		/* hits the filter turned away (not in hits) */
	__u64 tramp;		/* the trampoline, tramp_len bytes */
	__u64 evict_tramp;	/* an evicted neighbour's, evict_len bytes */
	__u32 tramp_len;
	__u32 evict_len;
	char instrument[GILK_NAME_MAX];
	char arg[GILK_ARG_MAX];
	char filter[GILK_FILTER_TEXT_MAX];	/* its filter's text, or "" */
	char site_name[GILK_SITE_NAME_MAX];	/* as the splice was asked, or "" */
	struct gilk_fetch fetch;	/* what its events fetch (len 0: nothing) */
	struct gilk_agg agg;	/* what it aggregates (kind 0: nothing) */
};

/*
 * The splices from an id on, a page at a time, in id order: gilk.ko copies a
 * page out and no more (the whole kernel's coverage is half a million
 * splices, a gigabyte of these).
 */
#define GILK_LIST_MAX 256

struct gilk_list {
	__u32 from;		/* in: the least id to list */
	__u32 max;		/* in: room at buf, 1..GILK_LIST_MAX */
	__u32 count;		/* out: listed, at most max */
	__u32 next;		/* out: the id to list from next; 0: no more */
	__u64 buf;		/* user pointer to max gilk_splice_info */
};

/*
 * A splice in brief: what a reader of hundreds of thousands needs (their
 * hits), listed by GILK_IOC_BRIEFS as GILK_IOC_LIST lists, in pages
 * sixteen times as long.
 */
struct gilk_brief {
	__u32 id;
	__u32 pad;		/* 0 */
	__u64 site;
	__u64 hits;
	char instrument[GILK_NAME_MAX];
	char arg[GILK_ARG_MAX];
};

#define GILK_BRIEFS_MAX 4096

struct gilk_briefs {
	__u32 from;		/* in: the least id to list */
	__u32 max;		/* in: room at buf, 1..GILK_BRIEFS_MAX */
	__u32 count;		/* out: listed, at most max */
	__u32 next;		/* out: the id to list from next; 0: no more */
	__u64 buf;		/* user pointer to max struct gilk_brief */
};

/*
 * An instrument's payload as the instrument itself names it, so that user
 * space shows an event's fields without knowing the instrument: the payload
 * is 64-bit words, one per field, in order.
 */
#define GILK_FIELDS_MAX 18
#define GILK_FIELD_NAME_MAX 16	/* with its NUL: [a-z_][a-z0-9_]* */
#define GILK_FIELD_HEX 0x1	/* an address or register: hex, with its symbol */
#define GILK_FIELD_OPTIONAL 0x2	/* a payload may end before it (and every later one) */

struct gilk_field_info {
	char name[GILK_FIELD_NAME_MAX];
	__u32 flags;		/* GILK_FIELD_* */
};

struct gilk_instrument_info {
	char name[GILK_NAME_MAX];
	char help[GILK_HELP_MAX];
	char module[GILK_NAME_MAX];
	__u32 users;
	__u32 needs;		/* GILK_NEEDS_* */
	__u32 nfields;		/* 0: its payload is bytes with no names */
	struct gilk_field_info fields[GILK_FIELDS_MAX];
};

struct gilk_instruments {
	__u32 max;
	__u32 count;
	__u64 buf;		/* user pointer to max gilk_instrument_info */
};

/* Kernel facts for [start, end): text kind and what is reserved there. */
#define GILK_TEXT_NONE 0
#define GILK_TEXT_KERNEL 1
#define GILK_TEXT_MODULE 2

#define GILK_RES_JUMP_LABEL 0
#define GILK_RES_STATIC_CALL 1
#define GILK_RES_FTRACE 2
#define GILK_RES_EXTABLE 3
#define GILK_RES_BLACKLIST 4
#define GILK_RES_KPROBE 5
#define GILK_RES_SMP_LOCK 6	/* alternatives_text_reserved(): lock prefixes */
#define GILK_RES_OWN_PATH 7	/* a function gilk's int3 divert or hit path runs */
#define GILK_RES_EARLY_CPU 8	/* runs before the CPU's %gs is its per-CPU base */
#define GILK_RES_RCU_IDLE 9	/* runs while RCU does not watch the CPU (idle) */
#define GILK_RES_GILK_CODE 10	/* gilk.ko's own text */
/* start is reached by an edge no decoder sees (jump label, fixup) */
#define GILK_FACT_TARGET 16
#define GILK_FACT_BUG 17	/* a BUG() ud2 at start */
#define GILK_FACT_WARN 18	/* a WARN() ud2 at start (resumes at start + 2) */

struct gilk_fact {
	__u64 start, end;
	__u32 kind;
	__u32 pad;
};

struct gilk_facts {
	__u64 start, end;	/* in */
	__u32 text;		/* out: GILK_TEXT_* of start */
	__u32 count;		/* out: facts found (may exceed max) */
	__u32 max;		/* in */
	__u32 pad;
	__u64 buf;		/* user pointer to max gilk_fact */
};

/* Many splices (or unsplices) with one grace period: all or none. */
struct gilk_batch {
	__u32 count;		/* in: at most GILK_BATCH_MAX */
	__u32 failed;		/* out: index of the request refused */
	__u64 items;		/* user pointer: struct gilk_splice[count]
				 * (reasons come back in them), or __u32
				 * ids[count] to unsplice
				 */
};

/* What gilk.ko holds now. */
struct gilk_stats {
	__u32 splices;		/* out: active (and on their way in or out) */
	__u32 reserved;		/* out: reservations not yet spliced */
	__u64 tramp_bytes;	/* out: trampoline memory handed out */
	__u64 tramp_mapped;	/* out: module memory holding it */
	__u64 tsc_ring_bytes;	/* out: the inline tsc template's rings */
	__u32 early_cpu_fns;	/* out: functions with code refused as early-cpu */
	__u32 rcu_idle_fns;	/* out: ... as rcu-idle */
};

/*
 * What ran the site when an event was recorded: a task, or an interrupt
 * of the task named (as ftrace's irq-info says it).
 */
#define GILK_CTX_TASK 0
#define GILK_CTX_SOFTIRQ 1
#define GILK_CTX_IRQ 2
#define GILK_CTX_NMI 3

#define GILK_COMM_LEN 16

/* An event as read() returns it: header, then len bytes of payload. */
struct gilk_event {
	__u64 ns;		/* CLOCK_MONOTONIC (ktime_get_mono_fast_ns()) */
	__u32 splice;
	__u16 cpu;
	__u16 len;
	__u32 tid;		/* the task's pid (0: the CPU's idle task) */
	__u32 pid;		/* its thread group's (what getpid() says) */
	__u8 context;		/* GILK_CTX_* */
	__u8 task_gone;		/* tsc: the task had exited when the hit was
				 * drained: pid and comm unknown (0, "")
				 */
	__u8 fetched;		/* the payload ends with the splice's fetch
				 * (struct gilk_fetch: gilk_fetch_out_len())
				 */
	__u8 pad[5];
	char comm[GILK_COMM_LEN];	/* the task's name */
};

#define GILK_IOC_MAGIC 0xb7
#define GILK_IOC_VERSION     _IOR(GILK_IOC_MAGIC, 0, struct gilk_version)
#define GILK_IOC_READ        _IOW(GILK_IOC_MAGIC, 1, struct gilk_read)
#define GILK_IOC_RESERVE     _IOWR(GILK_IOC_MAGIC, 2, struct gilk_reserve)
#define GILK_IOC_SPLICE      _IOWR(GILK_IOC_MAGIC, 3, struct gilk_splice)
#define GILK_IOC_UNSPLICE    _IOW(GILK_IOC_MAGIC, 4, __u32)
#define GILK_IOC_LIST        _IOWR(GILK_IOC_MAGIC, 5, struct gilk_list)
#define GILK_IOC_INSTRUMENTS _IOWR(GILK_IOC_MAGIC, 6, struct gilk_instruments)
#define GILK_IOC_FACTS       _IOWR(GILK_IOC_MAGIC, 7, struct gilk_facts)
#define GILK_IOC_RELEASE     _IOW(GILK_IOC_MAGIC, 8, __u32)
#define GILK_IOC_SPLICE_BATCH   _IOWR(GILK_IOC_MAGIC, 9, struct gilk_batch)
#define GILK_IOC_UNSPLICE_BATCH _IOWR(GILK_IOC_MAGIC, 10, struct gilk_batch)
#define GILK_IOC_STATS       _IOR(GILK_IOC_MAGIC, 11, struct gilk_stats)
#define GILK_IOC_AGG_READ    _IOWR(GILK_IOC_MAGIC, 12, struct gilk_agg_read)
#define GILK_IOC_BRIEFS      _IOWR(GILK_IOC_MAGIC, 13, struct gilk_briefs)

#endif
