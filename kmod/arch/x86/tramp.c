// SPDX-License-Identifier: GPL-2.0
/*
 * The trampoline templates (see gilk_tramp.h): the one producer of a
 * header's bytes. gilk.ko's checker trusts these and nothing else, and the
 * planner links this file (lib/template.c) to propose the same.
 */
#include "gilk_tramp.h"

/* x86-64 register numbers, and the pt_regs slots (8 bytes each) of x86-64. */
enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13,
	R14, R15 };
enum { PT_ORIG_AX = 15, PT_IP, PT_CS, PT_FLAGS, PT_SP, PT_SS, PT_SLOTS };

#define FRAME (PT_SLOTS * 8)

/* pt_regs order from r15 down to rdi: slot i holds saved[i]. */
static const u8 saved[] = { R15, R14, R13, R12, RBP, RBX, R11, R10, R9, R8,
			    RAX, RCX, RDX, RSI, RDI };

struct emit {
	u8 *p;
	size_t n;
	size_t ctx_at, after_call;	/* the handler's call: see gilk_tramp_call() */
};

static void b1(struct emit *e, u8 v)
{
	e->p[e->n++] = v;
}

static void b4(struct emit *e, u32 v)
{
	int i;

	for (i = 0; i < 4; i++)
		b1(e, v >> (8 * i));
}

static void b8(struct emit *e, u64 v)
{
	b4(e, (u32)v);
	b4(e, (u32)(v >> 32));
}

/* ModRM, SIB and displacement of [rsp + off], reg field r. */
static void rsp_mem(struct emit *e, u8 r, s32 off)
{
	bool short_disp = off >= -128 && off <= 127;

	b1(e, (short_disp ? 0x44 : 0x84) | (r & 7) << 3);
	b1(e, 0x24);
	if (short_disp)
		b1(e, (u8)off);
	else
		b4(e, (u32)off);
}

static u8 rex_r(u8 r)
{
	return 0x48 | (r >= R8 ? 4 : 0);
}

/* op is 0x89 (store r), 0x8b (load r) or 0x8d (lea r). */
static void rsp_op(struct emit *e, u8 op, u8 r, s32 off)
{
	b1(e, rex_r(r));
	b1(e, op);
	rsp_mem(e, r, off);
}

static void store_imm(struct emit *e, s32 off, s32 imm)
{
	b1(e, 0x48);
	b1(e, 0xc7);
	rsp_mem(e, 0, off);
	b4(e, (u32)imm);
}

static void movabs(struct emit *e, u8 r, u64 imm)
{
	b1(e, 0x48 | (r >= R8 ? 1 : 0));
	b1(e, 0xb8 | (r & 7));
	b8(e, imm);
}

static bool rel32_fits(unsigned long from_end, unsigned long to)
{
	long d = (long)(to - from_end);

	return d >= -0x80000000L && d <= 0x7fffffffL;
}

enum gilk_tramp_kind gilk_tramp_kind(u32 needs, u32 splice_flags)
{
	if (splice_flags & (GILK_SPLICE_FULL | GILK_SPLICE_BUG))
		return GILK_TRAMP_FULL;
	switch (needs) {
	case GILK_NEEDS_SCRATCH:
		return GILK_TRAMP_SCRATCH;
	case GILK_NEEDS_NOTHING:
		return GILK_TRAMP_COUNT;
	case GILK_NEEDS_TSC:
		return GILK_TRAMP_TSC;
	default:
		return GILK_TRAMP_FULL;
	}
}

/* push r / pop r */
static void push_pop(struct emit *e, u8 op, u8 r)
{
	if (r >= R8)
		b1(e, 0x41);
	b1(e, op | (r & 7));
}

/* clac where SMAP is on; the handler's first argument */
static void clac_ctx(struct emit *e, const struct gilk_tramp_params *p)
{
	if (p->clac) {
		b1(e, 0x0f);
		b1(e, 0x01);
		b1(e, 0xca);
	}
	e->ctx_at = e->n;
	movabs(e, RDI, p->ctx);
}

/* a rel32 call where it reaches, else through rax */
static void call_handler(struct emit *e, const struct gilk_tramp_params *p)
{
	if (rel32_fits(p->tramp + e->n + 5, p->handler)) {
		b1(e, 0xe8);
		b4(e, (u32)(p->handler - (p->tramp + e->n + 4)));
	} else {
		movabs(e, RAX, p->handler);
		b1(e, 0xff);		/* call rax */
		b1(e, 0xd0);
	}
	e->after_call = e->n;
}

static void full(struct emit *e, const struct gilk_tramp_params *p)
{
	unsigned int i;

	rsp_op(e, 0x8d, RSP, -FRAME);	/* lea keeps the flags */
	for (i = 0; i < ARRAY_SIZE(saved); i++)
		rsp_op(e, 0x89, saved[i], i * 8);
	b1(e, 0x9c);			/* pushfq; pop rax */
	b1(e, 0x58);
	rsp_op(e, 0x89, RAX, PT_FLAGS * 8);
	b1(e, 0xfc);			/* cld: the site may run with DF set */
	rsp_op(e, 0x8d, RAX, FRAME);	/* the site's rsp */
	rsp_op(e, 0x89, RAX, PT_SP * 8);
	movabs(e, RAX, p->site);
	rsp_op(e, 0x89, RAX, PT_IP * 8);
	store_imm(e, PT_ORIG_AX * 8, -1);
	store_imm(e, PT_CS * 8, GILK_KERNEL_CS);
	store_imm(e, PT_SS * 8, GILK_KERNEL_DS);
	clac_ctx(e, p);
	b1(e, 0x48);			/* mov rsi, rsp */
	b1(e, 0x89);
	b1(e, 0xe6);
	call_handler(e, p);
	for (i = 0; i < ARRAY_SIZE(saved); i++)
		rsp_op(e, 0x8b, saved[i], i * 8);
	b1(e, 0xff);			/* push [rsp + flags]; popfq */
	rsp_mem(e, 6, PT_FLAGS * 8);
	b1(e, 0x9d);
	rsp_op(e, 0x8d, RSP, FRAME);
}

/* What a C call may clobber besides the flags, in push order. */
static const u8 scratch[] = { RAX, RCX, RDX, RSI, RDI, R8, R9, R10, R11 };

static void scratch_call(struct emit *e, const struct gilk_tramp_params *p)
{
	int i;

	b1(e, 0x9c);			/* pushfq */
	for (i = 0; i < (int)ARRAY_SIZE(scratch); i++)
		push_pop(e, 0x50, scratch[i]);
	b1(e, 0xfc);			/* cld */
	clac_ctx(e, p);
	b1(e, 0x31);			/* xor esi, esi: no pt_regs */
	b1(e, 0xf6);
	call_handler(e, p);
	for (i = ARRAY_SIZE(scratch) - 1; i >= 0; i--)
		push_pop(e, 0x58, scratch[i]);
	b1(e, 0x9d);			/* popfq */
}

/* incq %gs:counter: one instruction, so an interrupt or NMI on this CPU
 * that hits the same splice counts in full, as this_cpu_inc() does
 */
static void count(struct emit *e, const struct gilk_tramp_params *p)
{
	bool disp32 = (u64)(s64)(s32)p->counter == p->counter;

	if (p->kind == GILK_TRAMP_COUNT_FLAGS)
		b1(e, 0x9c);
	if (!disp32) {
		push_pop(e, 0x50, RAX);
		movabs(e, RAX, p->counter);
	}
	b1(e, 0x65);
	b1(e, 0x48);
	b1(e, 0xff);
	if (disp32) {
		b1(e, 0x04);		/* ModRM /0, SIB: disp32 alone */
		b1(e, 0x25);
		b4(e, (u32)p->counter);
	} else {
		b1(e, 0x00);		/* [rax] */
		push_pop(e, 0x58, RAX);
	}
	if (p->kind == GILK_TRAMP_COUNT_FLAGS)
		b1(e, 0x9d);
}

/* mov r64, %gs:disp32 (low registers; ModRM and SIB of a bare disp32) */
static void mov64_gs(struct emit *e, u8 r, unsigned long disp)
{
	b1(e, 0x65);
	b1(e, 0x48);
	b1(e, 0x8b);
	b1(e, 0x04 | r << 3);
	b1(e, 0x25);
	b4(e, (u32)disp);
}

/* xor r, qword [rax + disp32] (r: rcx or rdx) */
static void xor_task(struct emit *e, u8 r, u32 disp)
{
	b1(e, 0x48);
	b1(e, 0x33);
	b1(e, 0x80 | r << 3);
	b4(e, disp);
}

/*
 * The task compared in place, its outcome set in rax (1: filtered), and the
 * hit counter or the filtered counter right after it (struct gilk_counts)
 * incremented by one instruction indexed by rax, as count increments: an
 * interrupt or NMI on this CPU that hits the same splice counts in full.
 * No branch: the trampoline runs straight through. The counter's address
 * goes in rcx when it does not fit a disp32.
 */
static void count_task(struct emit *e, const struct gilk_tramp_params *p)
{
	bool near = (u64)(s64)(s32)p->counter == p->counter;
	bool rcx = p->task_len > 4 || !near, rdx = p->task_len == 16;
	u64 lo, hi;
	u32 w;

	if (p->kind == GILK_TRAMP_COUNT_TASK_FLAGS)
		b1(e, 0x9c);
	push_pop(e, 0x50, RAX);
	if (rcx)
		push_pop(e, 0x50, RCX);
	if (rdx)
		push_pop(e, 0x50, RDX);
	mov64_gs(e, RAX, p->current_task);
	memcpy(&lo, p->task_bytes, 8);
	memcpy(&hi, p->task_bytes + 8, 8);
	if (p->task_len == 16) {
		/* (comm ^ name) | (comm + 8 ^ name + 8): 0 when equal */
		movabs(e, RCX, lo);
		xor_task(e, RCX, p->task_field);
		movabs(e, RDX, hi);
		xor_task(e, RDX, p->task_field + 8);
		b1(e, 0x48);		/* or rcx, rdx */
		b1(e, 0x09);
		b1(e, 0xd1);
	} else if (p->task_len == 8) {
		movabs(e, RCX, lo);
		b1(e, 0x48);		/* cmp qword [rax + off], rcx */
		b1(e, 0x39);
		b1(e, 0x88);
		b4(e, p->task_field);
	} else {
		memcpy(&w, p->task_bytes, 4);
		b1(e, 0x81);		/* cmp dword [rax + off], imm32 */
		b1(e, 0xb8);
		b4(e, p->task_field);
		b4(e, w);
	}
	b1(e, 0xb8);			/* mov eax, 0: the flags stay */
	b4(e, 0);
	b1(e, 0x0f);			/* setne (or sete) al */
	b1(e, p->pass_if_equal ? 0x95 : 0x94);
	b1(e, 0xc0);
	if (!near)
		movabs(e, RCX, p->counter);
	b1(e, 0x65);			/* inc qword %gs:[...] */
	b1(e, 0x48);
	b1(e, 0xff);
	b1(e, 0x04);
	if (near) {
		b1(e, 0xc5);		/* [rax * 8 + disp32] */
		b4(e, (u32)p->counter);
	} else {
		b1(e, 0xc1);		/* [rcx + rax * 8] */
	}
	if (rdx)
		push_pop(e, 0x58, RDX);
	if (rcx)
		push_pop(e, 0x58, RCX);
	push_pop(e, 0x58, RAX);
	if (p->kind == GILK_TRAMP_COUNT_TASK_FLAGS)
		b1(e, 0x9d);
}

bool gilk_tramp_task_test(struct gilk_tramp_params *p, const struct gilk_filter *f,
			  const struct gilk_task_offsets *off)
{
	__u64 value;
	int pass;
	__u8 field;
	u32 v32, i;

	if (!gilk_filter_task_test(f, &field, &value, &pass))
		return false;
	memset(p->task_bytes, 0, sizeof(p->task_bytes));
	if (field == GILK_FF_COMM) {
		/* the name and NULs after it, as the kernel pads comm */
		for (i = 0; i < sizeof(p->task_bytes) && f->str[value][i]; i++)
			p->task_bytes[i] = f->str[value][i];
		p->task_field = off->comm;
		p->task_len = gilk_comm_width(f->str[value]);
	} else {
		v32 = (u32)value;
		memcpy(p->task_bytes, &v32, 4);
		p->task_field = field == GILK_FF_PID ? off->tgid : off->pid;
		p->task_len = 4;
	}
	p->pass_if_equal = pass;
	/* every field within a disp32 from the task, the task within one */
	return p->task_field <= 0x7fffffff - 16 &&
	       p->current_task == (unsigned long)(long)(s32)p->current_task;
}

bool gilk_tramp_inline(enum gilk_tramp_kind kind)
{
	return kind == GILK_TRAMP_COUNT || kind == GILK_TRAMP_COUNT_FLAGS ||
	       kind == GILK_TRAMP_TSC || kind == GILK_TRAMP_TSC_FLAGS ||
	       kind == GILK_TRAMP_COUNT_TASK || kind == GILK_TRAMP_COUNT_TASK_FLAGS;
}

enum gilk_tramp_kind gilk_tramp_flags_kept(enum gilk_tramp_kind kind)
{
	if (kind == GILK_TRAMP_COUNT)
		return GILK_TRAMP_COUNT_FLAGS;
	if (kind == GILK_TRAMP_TSC)
		return GILK_TRAMP_TSC_FLAGS;
	if (kind == GILK_TRAMP_COUNT_TASK)
		return GILK_TRAMP_COUNT_TASK_FLAGS;
	return kind;
}

/* What the tsc template pushes, in push order. */
static const u8 tsc_saved[] = { RAX, RCX, RDX, RSI, RDI };

/* the slot's fields: offsets in struct gilk_tsc_ring from a slot's start */
#define SLOT0 offsetof(struct gilk_tsc_ring, slot)
#define SLOT_SHIFT 5
#define FIELD(f) (SLOT0 + offsetof(struct gilk_tsc_slot, f))
_Static_assert(sizeof(struct gilk_tsc_slot) == 1 << SLOT_SHIFT, "slot size");
_Static_assert(FIELD(end) <= 127, "a slot's fields within a disp8");

/* mov [rdi + off], r (64-bit) */
static void store_rdi(struct emit *e, u8 r, u8 off)
{
	b1(e, 0x48);
	b1(e, 0x89);
	b1(e, 0x47 | r << 3);
	b1(e, off);
}

/* xor dst, src (64-bit, low registers) */
static void xor64(struct emit *e, u8 dst, u8 src)
{
	b1(e, 0x48);
	b1(e, 0x31);
	b1(e, 0xc0 | src << 3 | dst);
}

/* mov r32, %gs:disp32 (low registers; ModRM and SIB of a bare disp32) */
static void mov32_gs(struct emit *e, u8 r, unsigned long disp)
{
	b1(e, 0x65);
	b1(e, 0x8b);
	b1(e, 0x04 | r << 3);
	b1(e, 0x25);
	b4(e, (u32)disp);
}

/*
 * Who in rsi (uapi gilk.h, GILK_WHO_*): the CPU, the preempt count's
 * interrupt bits above it, the task's pid in the high half. rdi is free.
 */
static void who(struct emit *e, const struct gilk_tramp_params *p)
{
	mov32_gs(e, RSI, p->cpu_number);
	mov32_gs(e, RDI, p->preempt_count);
	b1(e, 0x81);			/* and edi, GILK_WHO_PREEMPT_MASK */
	b1(e, 0xe7);
	b4(e, GILK_WHO_PREEMPT_MASK);
	b1(e, 0xc1);			/* shl edi, GILK_WHO_PREEMPT_SHIFT */
	b1(e, 0xe7);
	b1(e, GILK_WHO_PREEMPT_SHIFT);
	b1(e, 0x09);			/* or esi, edi */
	b1(e, 0xfe);
	mov64_gs(e, RDI, p->current_task);
	b1(e, 0x8b);			/* mov edi, [rdi + task_pid] */
	b1(e, 0xbf);
	b4(e, (u32)p->task_pid);
	b1(e, 0x48);			/* shl rdi, 32 */
	b1(e, 0xc1);
	b1(e, 0xe7);
	b1(e, 0x20);
	b1(e, 0x48);			/* or rsi, rdi */
	b1(e, 0x09);
	b1(e, 0xfe);
}

/*
 * One hit into the ring (uapi gilk.h): the reservation is the one
 * instruction that must not be split; a slot torn by an interrupt, another
 * CPU or a writer of an earlier lap is told by its begin and its end, a
 * check of the three fields, which the reader verifies.
 */
static void tsc(struct emit *e, const struct gilk_tramp_params *p)
{
	int i;

	if (p->kind == GILK_TRAMP_TSC_FLAGS)
		b1(e, 0x9c);
	for (i = 0; i < (int)ARRAY_SIZE(tsc_saved); i++)
		push_pop(e, 0x50, tsc_saved[i]);
	who(e, p);
	b1(e, 0x0f);			/* lfence; rdtsc: edx:eax */
	b1(e, 0xae);
	b1(e, 0xe8);
	b1(e, 0x0f);
	b1(e, 0x31);
	b1(e, 0x48);			/* shl rdx, 32 */
	b1(e, 0xc1);
	b1(e, 0xe2);
	b1(e, 0x20);
	b1(e, 0x48);			/* or rax, rdx */
	b1(e, 0x09);
	b1(e, 0xd0);
	b1(e, 0xb9);			/* mov ecx, 1 */
	b4(e, 1);
	movabs(e, RDX, p->ring);
	b1(e, 0xf0);			/* lock xadd [rdx], rcx: rcx = seq */
	b1(e, 0x48);
	b1(e, 0x0f);
	b1(e, 0xc1);
	b1(e, 0x0a);
	b1(e, 0x89);			/* mov edi, ecx */
	b1(e, 0xcf);
	b1(e, 0x81);			/* and edi, GILK_TSC_SLOTS - 1 */
	b1(e, 0xe7);
	b4(e, GILK_TSC_SLOTS - 1);
	b1(e, 0xc1);			/* shl edi, SLOT_SHIFT */
	b1(e, 0xe7);
	b1(e, SLOT_SHIFT);
	b1(e, 0x48);			/* add rdi, rdx */
	b1(e, 0x01);
	b1(e, 0xd7);
	store_rdi(e, RCX, FIELD(begin));
	store_rdi(e, RAX, FIELD(tsc));
	store_rdi(e, RSI, FIELD(who));
	xor64(e, RCX, RAX);
	xor64(e, RCX, RSI);
	store_rdi(e, RCX, FIELD(end));
	for (i = ARRAY_SIZE(tsc_saved) - 1; i >= 0; i--)
		push_pop(e, 0x58, tsc_saved[i]);
	if (p->kind == GILK_TRAMP_TSC_FLAGS)
		b1(e, 0x9d);
}

static size_t header(struct emit *e, const struct gilk_tramp_params *p)
{
	switch (p->kind) {
	case GILK_TRAMP_SCRATCH:
		scratch_call(e, p);
		break;
	case GILK_TRAMP_COUNT:
	case GILK_TRAMP_COUNT_FLAGS:
		count(e, p);
		break;
	case GILK_TRAMP_TSC:
	case GILK_TRAMP_TSC_FLAGS:
		tsc(e, p);
		break;
	case GILK_TRAMP_COUNT_TASK:
	case GILK_TRAMP_COUNT_TASK_FLAGS:
		count_task(e, p);
		break;
	default:
		full(e, p);
		break;
	}
	return e->n;
}

size_t gilk_tramp_header(u8 *buf, const struct gilk_tramp_params *p)
{
	struct emit e = { .p = buf };

	return header(&e, p);
}

bool gilk_tramp_call(const struct gilk_tramp_params *p, size_t *ctx_at, size_t *after)
{
	u8 buf[GILK_TRAMP_HEADER_MAX];
	struct emit e = { .p = buf };

	header(&e, p);
	*ctx_at = e.ctx_at;
	*after = e.after_call;
	return e.after_call != 0;
}
