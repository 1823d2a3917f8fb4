// SPDX-License-Identifier: GPL-2.0
/*
 * Code that runs where the kernel's ordinary context does not hold yet, or
 * any more, reached only by lifecycle events: a CPU coming on line, the
 * resume from suspend, the idle loop. A splice there kills the kernel or
 * frees a trampoline under a CPU, so it is refused. The code is found at
 * load, from the code itself, as objtool proves noinstr: from the points
 * where the context stops holding, along the code, to the instruction that
 * makes it hold again.
 *
 * early-cpu: %gs is not the CPU's per-CPU base, and every template reaches
 * per-CPU data through %gs. It opens at the CPU's entry from the real-mode
 * trampoline, which starts a CPU coming on line and one resuming
 * (secondary_startup_64, the kernel's entry point, by name), and after
 * every load of %gs's selector, which in 64-bit mode sets its base from the
 * descriptor (load_percpu_segment(), wakeup_long64): found by scanning the
 * core kernel's text for that opcode and decoding its function to know it
 * starts an instruction. It closes at a wrmsr of MSR_GS_BASE, or at a call
 * made with MSR_GS_BASE as its first argument (a write_msr helper, called
 * directly or through pv_ops, whose code up to its own wrmsr is in it).
 *
 * rcu-idle: RCU is not watching the CPU, so neither synchronize_rcu() nor
 * RCU-tasks waits for it, and with interrupts on (the poll state) a CPU
 * may sit in a trampoline while it is freed. It opens after each call of
 * ct_idle_enter() (rcu_idle_enter() before 6.1), found by the same scan,
 * and closes at the call of ct_idle_exit(); where a conditional branch has
 * one way that calls ct_idle_exit() at once (if (!flag) ct_idle_exit()),
 * the other way is the one where the window never opened, and is not
 * followed. The cpuidle driver's enter functions of the states that do
 * not enter RCU idle themselves (no CPUIDLE_FLAG_RCU_IDLE) run in it whole.
 *
 * The walk follows what runs: both ways of a conditional jump, direct
 * jumps, and calls into their callees (a callee runs in the window from
 * its entry: what it reaches before it closes the window is in it, and the
 * caller goes on after the call only if the callee can return with the
 * window still open). An indirect call or jump through memory is followed
 * to where the memory points now (pv_ops); a jump through a register to
 * the address it was given, or loaded from memory, and to the code
 * addresses the neighbouring functions store in that memory
 * (do_suspend_lowlevel's resume point, in saved_rip). Calls that report
 * the kernel failing are not followed (reports()). What it cannot follow
 * is counted, and said at load. It goes CALLS_DEEP calls deep; a function
 * deeper is refused whole, unwalked (and walked if met again shallower).
 * A ud2 ends a path unless it is a WARN()'s, which goes on. Jump labels are followed as they are
 * set now. Module text is not scanned: the kernel's lifecycle code is its
 * own. help refusals counts the functions each class holds.
 */
#include <linux/cpuidle.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <asm/insn.h>
#include <asm/msr-index.h>

#include "gilk_internal.h"
#include "verify.h"

#define FNS_MAX 4096		/* functions walked per class, at most */
#define CALLS_DEEP 12		/* calls followed from a window's start */
#define NEIGHBOURS 4096		/* bytes either side searched for stores */

enum { EARLY_CPU, RCU_IDLE, NCLASSES };

struct lc_range {
	unsigned long start, end;
};

/* One class's code: sorted, merged ranges, read-only once loaded. */
struct class_code {
	struct lc_range *r;
	size_t n;
	unsigned int fns;		/* functions with code in it */
	unsigned int unresolved;	/* branches the walk could not follow */
};

static struct class_code classes[NCLASSES];

/* CAPPED: met too deep, refused whole unwalked; walked if met shallower */
enum fn_state { VISITING, OPEN, CLOSED, CAPPED };

struct walked {
	unsigned long entry;
	u8 state;
	bool wrmsr;		/* a wrmsr on its walked paths */
};

struct lc_walk {
	int class;
	unsigned long close_call;	/* rcu-idle: ct_idle_exit() */
	struct lc_range *r;
	size_t nr, capr;
	struct walked *fn;
	size_t nfn;
	unsigned int depth, unresolved;
	bool wrmsr;		/* the function being walked wrote an MSR */
};

/*
 * What a path knows: where it is, what it has put in ecx and edi, and what
 * one register holds that a jump may go through (an immediate, or the word
 * it was loaded from).
 */
struct lc_path {
	unsigned long a;
	u64 ecx, edi;
	u64 held;		/* the value, or the address it was loaded from */
	u8 known;		/* KNOWN_* */
	u8 held_reg;
};

#define KNOWN_ECX 1
#define KNOWN_EDI 2
#define KNOWN_LOADED 4		/* held_reg was loaded from the word at held */
#define KNOWN_IMM 8		/* held_reg holds held */

static int lc_add_range(struct lc_walk *w, unsigned long s, unsigned long e)
{
	if (w->nr && w->r[w->nr - 1].end == s) {
		w->r[w->nr - 1].end = e;
		return 0;
	}
	if (w->nr == w->capr) {
		size_t cap = w->capr ? 2 * w->capr : 256;
		/* kvrealloc() changed its arguments in 6.12 */
		struct lc_range *r = kvmalloc_array(cap, sizeof(*r), GFP_KERNEL);

		if (!r)
			return -ENOMEM;
		if (w->nr)
			memcpy(r, w->r, w->nr * sizeof(*r));
		kvfree(w->r);
		w->r = r;
		w->capr = cap;
	}
	w->r[w->nr++] = (struct lc_range){ s, e };
	return 0;
}

static u8 op0(const struct insn *in)
{
	return in->opcode.bytes[0];
}

static u8 modrm_reg(const struct insn *in)
{
	return (in->modrm.bytes[0] >> 3) & 7;
}

static bool rex(const struct insn *in, u8 bit)
{
	return in->rex_prefix.nbytes && (in->rex_prefix.bytes[0] & bit);
}

static bool rip_relative(const struct insn *in)
{
	return in->modrm.nbytes && (in->modrm.bytes[0] & 0xc7) == 0x05;
}

/* The memory operand's address when the instruction at a names it outright
 * (RIP-relative, or an absolute [disp32] as asm writes a symbol): else 0.
 */
static unsigned long mem_addr(const struct insn *in, unsigned long a)
{
	if (rip_relative(in))
		return a + in->length + in->displacement.value;
	if (in->modrm.nbytes && (in->modrm.bytes[0] & 0xc7) == 0x04 && in->sib.nbytes &&
	    in->sib.bytes[0] == 0x25 && !rex(in, 2))
		return (unsigned long)(long)(s32)in->displacement.value;
	return 0;
}


static int decode_at(unsigned long a, unsigned long hi, struct insn *in)
{
	u8 buf[MAX_INSN_SIZE];
	size_t n = min_t(unsigned long, hi - a, sizeof(buf));

	if (!n || gilk_text_read(a, buf, n) ||
	    gilk_ks.insn_decode(in, buf, n, INSN_MODE_KERN) || !in->length)
		return -EINVAL;
	return 0;
}

static bool is_return_thunk(unsigned long t)
{
	/* not on the stack: the walk nests; it runs once, at load */
	static char name[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(name, t);
	return strstr(name, "return_thunk") || !strcmp(name, "zen_untrain_ret") ||
	       !strcmp(name, "srso_untrain_ret");
}

/* The word at a, when it holds the address of kernel text. */
static unsigned long text_word(unsigned long a)
{
	unsigned long v;
	int kind;

	if (copy_from_kernel_nofault(&v, (void *)a, sizeof(v)) || !gilk_is_text(v, &kind) ||
	    kind != GILK_TEXT_KERNEL)
		return 0;
	return v;
}

/*
 * What an instruction does to the path's knowledge of ecx and edi: a mov of
 * an immediate sets one; whatever else may write them forgets them.
 */
static void track(struct lc_path *p, const struct insn *in, unsigned long a)
{
	u8 o = op0(in), mod = in->modrm.bytes[0] >> 6, rm = in->modrm.bytes[0] & 7;
	u8 reg = modrm_reg(in);

	if (in->opcode.nbytes == 1 && o >= 0xb8 && o <= 0xbf && !rex(in, 1)) {
		if (o == 0xb9) {
			p->ecx = (u32)in->immediate.value;
			p->known |= KNOWN_ECX;
		} else if (o == 0xbf) {
			p->edi = (u32)in->immediate.value;
			p->known |= KNOWN_EDI;
		}
		return;
	}
	/* whatever writes the held register forgets what it holds */
	if ((in->modrm.nbytes && ((mod == 3 && (rm | (rex(in, 1) ? 8 : 0)) == p->held_reg) ||
				  (reg | (rex(in, 4) ? 8 : 0)) == p->held_reg)) ||
	    (in->opcode.nbytes == 1 && ((o & 0xf8) == 0xb8 || (o & 0xf8) == 0x58) &&
	     ((o & 7) | (rex(in, 1) ? 8 : 0)) == p->held_reg))
		p->known &= ~(KNOWN_LOADED | KNOWN_IMM);
	if (in->opcode.nbytes == 1 && o == 0x8b && mem_addr(in, a) && rex(in, 8)) {
		/* mov M, %reg: a jump through reg goes where M says */
		p->held_reg = reg | (rex(in, 4) ? 8 : 0);
		p->held = mem_addr(in, a);
		p->known = (p->known & ~KNOWN_IMM) | KNOWN_LOADED;
	}
	if (in->opcode.nbytes == 1 && o == 0xc7 && mod == 3 && reg == 0 && rex(in, 8)) {
		/* mov $imm32, %reg (sign-extended): an address to jump to */
		p->held_reg = rm | (rex(in, 1) ? 8 : 0);
		p->held = (u64)(long)(s32)in->immediate.value;
		p->known = (p->known & ~KNOWN_LOADED) | KNOWN_IMM;
	}
	if (in->modrm.nbytes &&
	    ((mod == 3 && (rm == 1 || rm == 7) && !rex(in, 1)) ||
	     ((reg == 1 || reg == 7) && !rex(in, 4))))
		p->known &= ~(KNOWN_ECX | KNOWN_EDI);
	/* implicit writers: xchg with eax, pop, string ops, loop, cpuid */
	if ((in->opcode.nbytes == 1 &&
	     (o == 0x91 || o == 0x97 || o == 0x59 || o == 0x5f || (o >= 0xa4 && o <= 0xaf) ||
	      (o >= 0xe0 && o <= 0xe3))) ||
	    (in->opcode.nbytes == 2 && o == 0x0f && in->opcode.bytes[1] == 0xa2))
		p->known &= ~(KNOWN_ECX | KNOWN_EDI);
}

static int walk_fn(struct lc_walk *w, unsigned long t);
static bool is_unmade(unsigned long t);

/*
 * Code addresses the functions around [lo, hi) store into the word at m
 * (mov $imm32, m(%rip)): where a jump through a register loaded from m can
 * go, when m holds nothing yet (the resume point, stored at suspend).
 */
static int stored_targets(struct lc_walk *w, unsigned long m, unsigned long lo, unsigned long hi,
			  struct lc_path *p, int (*follow)(struct lc_walk *, unsigned long, struct lc_path *))
{
	unsigned long a = max(lo - NEIGHBOURS, (unsigned long)gilk_ks.stext);
	unsigned long end = min(hi + NEIGHBOURS, (unsigned long)gilk_ks.etext);
	unsigned long size, off;
	struct insn in;
	int found = 0, ret, kind;

	/* decoded from a function's start, so in step with its instructions */
	if (gilk_ks.kallsyms_lookup_size_offset(a, &size, &off))
		a -= off;

	while (a < end) {
		if (decode_at(a, end, &in)) {
			a++;
			continue;
		}
		if (in.opcode.nbytes == 1 && op0(&in) == 0xc7 && modrm_reg(&in) == 0 &&
		    mem_addr(&in, a) == m) {
			unsigned long t = (unsigned long)(long)(s32)in.immediate.value;

			if (gilk_is_text(t, &kind) && kind == GILK_TEXT_KERNEL) {
				ret = follow(w, t, p);
				if (ret < 0)
					return ret;
				found++;
			}
		}
		a += in.length;
	}
	return found;
}

static int walk_code(struct lc_walk *w, unsigned long start, unsigned long lo,
		     unsigned long hi);

/* A jump to t out of the code walked: returns 1 if it can return open. */
static int jump_out(struct lc_walk *w, unsigned long t, struct lc_path *p)
{
	(void)p;
	if (is_return_thunk(t) || is_unmade(t))
		return 1;	/* returns (a tail call never made, too) */
	if (gilk_is_thunk(t)) {
		w->unresolved++;	/* a jump through a retpoline */
		return 1;
	}
	return walk_fn(w, t);
}

/* Room for one more path on the stack. */
static int push(struct lc_path **stack, size_t *n, size_t *cap, const struct lc_path *p)
{
	if (*n == *cap) {
		struct lc_path *s = krealloc_array(*stack, 2 * *cap, sizeof(*s), GFP_KERNEL);

		if (!s)
			return -ENOMEM;
		*stack = s;
		*cap *= 2;
	}
	(*stack)[(*n)++] = *p;
	return 0;
}

/*
 * A call (or jump) to t, ending at after, that reports the kernel failing:
 * to one of the kernel's reporters that do not return (panic(),
 * __stack_chk_fail(): objtool's list), WARN()'s __warn_printk(), a
 * sanitizer's report of a bad access (KASAN's __asan_report_*() and
 * kasan_report(), which the compiler calls from every checked access),
 * lockdep's of a bad RCU use, a message or a stack dump (code in these
 * windows prints only to report: noinstr code may call out only so), or
 * any call a trap follows (a BUG()'s, or one that does not return).
 * The walk does not follow it: a report needs the context itself (printk()
 * takes per-CPU locks), and a kernel reporting there dies with or without
 * a splice; followed, it would refuse printk() and all it calls.
 */
static unsigned long reporters[64];	/* found at load, 0-terminated */

/*
 * Calls the windows never make: the scheduler's preemption entries, which
 * preempt_enable() calls when the count drops to zero. In rcu-idle it
 * cannot: the idle task runs with preemption disabled throughout (its
 * count starts at PREEMPT_DISABLED, and do_idle() and play_idle() hold
 * it). In early-cpu nothing can read the count, a per-CPU word behind %gs.
 * Followed, they would refuse the whole scheduler on a preemptible kernel.
 */
static unsigned long unmade[8];		/* found at load, 0-terminated */

static void add_found(unsigned long *to, size_t room, size_t *n, const char *name)
{
	unsigned long a = gilk_ks.kallsyms_lookup_name(name);

	if (a && *n + 1 < room)
		to[(*n)++] = a;
}

static void find_reporters(void)
{
	/* the failure reports of objtool's list of functions that do not
	 * return, WARN()'s printk, the sanitizers' and lockdep's reports
	 */
	static const char *const names[] = {
		"panic", "nmi_panic", "__stack_chk_fail", "fortify_panic", "__fortify_panic",
		"usercopy_abort", "__warn_printk", "make_task_dead", "do_exit",
		"rewind_stack_and_make_dead", "machine_real_restart", "emergency_restart",
		"__ubsan_handle_builtin_unreachable", "BUG_func",
		"kasan_report", "kasan_report_invalid_free", "lockdep_rcu_suspicious",
		"_printk", "_printk_deferred", "vprintk", "dump_stack", "dump_stack_lvl",
	};
	static const char *const preempt[] = {
		"preempt_schedule", "preempt_schedule_notrace", "preempt_schedule_thunk",
		"preempt_schedule_notrace_thunk", "__SCT__preempt_schedule",
		"__SCT__preempt_schedule_notrace",
	};
	static const char *const sizes[] = { "1", "2", "4", "8", "16", "_n" };
	char name[40];
	size_t i, n = 0;

	BUILD_BUG_ON(ARRAY_SIZE(names) + 2 * 2 * ARRAY_SIZE(sizes) >= ARRAY_SIZE(reporters));
	BUILD_BUG_ON(ARRAY_SIZE(preempt) >= ARRAY_SIZE(unmade));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		add_found(reporters, ARRAY_SIZE(reporters), &n, names[i]);
	for (i = 0; i < 4 * ARRAY_SIZE(sizes); i++) {
		snprintf(name, sizeof(name), "__asan_report_%s%s%s", i & 1 ? "store" : "load",
			 sizes[i / 4], i & 2 ? "_noabort" : "");
		add_found(reporters, ARRAY_SIZE(reporters), &n, name);
	}
	reporters[n] = 0;
	n = 0;
	for (i = 0; i < ARRAY_SIZE(preempt); i++)
		add_found(unmade, ARRAY_SIZE(unmade), &n, preempt[i]);
	unmade[n] = 0;
}

static bool is_unmade(unsigned long t)
{
	size_t i;

	for (i = 0; unmade[i]; i++)
		if (t == unmade[i])
			return true;
	return false;
}

static bool reports(unsigned long t, unsigned long after, unsigned long hi)
{
	struct insn in;
	size_t i;

	for (i = 0; reporters[i]; i++)
		if (t == reporters[i])
			return true;

	if (decode_at(after, hi, &in))
		return false;
	return (in.opcode.nbytes == 1 && op0(&in) == 0xcc) ||
	       (in.opcode.nbytes == 2 && op0(&in) == 0x0f && in.opcode.bytes[1] == 0x0b);
}

/* Whether the code at a calls the closing function within a few
 * instructions, before any branch.
 */
static bool closes_soon(struct lc_walk *w, unsigned long a, unsigned long hi)
{
	struct insn in;
	int i;

	for (i = 0; i < 4 && a < hi; i++, a += in.length) {
		unsigned long t;

		if (decode_at(a, hi, &in))
			return false;
		if (in.opcode.nbytes == 1 && op0(&in) == 0xe8)
			return a + in.length + in.immediate.value == w->close_call;
		if (gilk_branch_target(&in, a, &t) ||
		    (in.opcode.nbytes == 1 && (op0(&in) == 0xff || op0(&in) == 0xc3)))
			return false;
	}
	return false;
}

/*
 * Whether a path from a, within [lo, hi) and not into calls, calls the
 * closing function.
 */
static bool reaches_close(struct lc_walk *w, unsigned long a, unsigned long lo,
			  unsigned long hi)
{
	unsigned long *seen = bitmap_zalloc(hi - lo, GFP_KERNEL);
	unsigned long pending[64], t;
	size_t n = 0;
	bool found = false;
	struct insn in;

	if (!seen)
		return true;	/* not known: followed */
	pending[n++] = a;
	while (n && !found) {
		a = pending[--n];
		while (a >= lo && a < hi && !test_bit(a - lo, seen) && !decode_at(a, hi, &in)) {
			u8 o = op0(&in);

			set_bit(a - lo, seen);
			if (in.opcode.nbytes == 1 && o == 0xe8 &&
			    a + in.length + in.immediate.value == w->close_call) {
				found = true;
				break;
			}
			if (in.opcode.nbytes == 1 && (o == 0xc3 || o == 0xc2 || o == 0xff))
				break;
			if (gilk_branch_target(&in, a, &t) && o != 0xe8) {
				if (n == ARRAY_SIZE(pending)) {
					found = true;	/* too many ways to know: followed */
					break;
				}
				pending[n++] = t;
				if (in.opcode.nbytes == 1 && (o == 0xe9 || o == 0xeb))
					break;
			}
			a += in.length;
		}
	}
	bitmap_free(seen);
	return found;
}

/* Whether t, walked, writes an MSR (itself or in what it calls). */
static bool wrote_msr(struct lc_walk *w, unsigned long t)
{
	size_t i;

	for (i = 0; i < w->nfn; i++)
		if (w->fn[i].entry == t)
			return w->fn[i].wrmsr;
	return false;
}

/* Where an indirect call or jump goes, when the path knows: 0 if not. */
static unsigned long indirect_target(const struct insn *in, const struct lc_path *p)
{
	u8 mod = in->modrm.bytes[0] >> 6, reg = (in->modrm.bytes[0] & 7) | (rex(in, 1) ? 8 : 0);

	if (mem_addr(in, p->a - in->length))
		return text_word(mem_addr(in, p->a - in->length));	/* pv_ops */
	if (mod != 3 || p->held_reg != reg)
		return 0;
	if (p->known & KNOWN_IMM)
		return gilk_is_text(p->held, &(int){ 0 }) ? p->held : 0;
	if (p->known & KNOWN_LOADED)
		return text_word(p->held);
	return 0;
}

/* What one instruction does to the path; 1 ends it, 0 goes on. */
static int step(struct lc_walk *w, const struct insn *in, unsigned long a, struct lc_path *p,
		unsigned long lo, unsigned long hi, int *open,
		struct lc_path **stack, size_t *n, size_t *cap)
{
	u8 o = op0(in), one = in->opcode.nbytes == 1;
	unsigned long t;
	int ret;

	p->a = a + in->length;
	if (!one && o == 0x0f && in->opcode.bytes[1] == 0x30) {
		w->wrmsr = true;
		if (w->class == EARLY_CPU && (p->known & KNOWN_ECX) && p->ecx == MSR_GS_BASE)
			return 1;	/* wrmsr of the per-CPU base: closed */
	}
	/* a BUG() does not come back; a WARN() goes on past its ud2 */
	if (!one && o == 0x0f && in->opcode.bytes[1] == 0x0b)
		return gilk_bug_kind(a) != GILK_WARN;
	if (one && (o == 0xc3 || o == 0xc2)) {
		*open = 1;
		return 1;
	}
	if (one && (o == 0xcb || o == 0xca || o == 0xcf)) {
		w->unresolved++;	/* a far return or iret: not followed */
		*open = 1;
		return 1;
	}
	if ((one && o == 0xe8) ||
	    (one && o == 0xff && in->modrm.nbytes && (modrm_reg(in) == 2 || modrm_reg(in) == 4))) {
		bool call = o == 0xe8 || modrm_reg(in) == 2;
		bool closes = call && w->class == EARLY_CPU && (p->known & KNOWN_EDI) &&
			      p->edi == MSR_GS_BASE;

		t = o == 0xe8 ? p->a + in->immediate.value : indirect_target(in, p);
		if (call && w->close_call && t == w->close_call)
			return 1;
		if (reports(t, p->a, hi))
			return 1;
		if (call && is_unmade(t)) {
			p->known = 0;
			return 0;
		}
		if (!call && !t && (p->known & KNOWN_LOADED)) {
			/* nothing there yet: what the neighbours store there */
			ret = stored_targets(w, p->held, lo, hi, p, jump_out);
			if (ret <= 0)
				w->unresolved++;
			*open = 1;
			return ret < 0 ? ret : 1;
		}
		p->known = 0;
		if (!t || (call && gilk_is_thunk(t))) {
			w->unresolved++;	/* where it goes is not known */
			if (call)
				return 0;
			*open = 1;
			return 1;
		}
		ret = call ? walk_fn(w, t) : jump_out(w, t, p);
		if (ret < 0)
			return ret;
		if (!call) {
			*open |= ret;
			return 1;
		}
		/* with MSR_GS_BASE as its first argument: if it writes an MSR */
		return (closes && wrote_msr(w, t)) || !ret;
	}
	track(p, in, a);
	if (!gilk_branch_target(in, a, &t))
		return 0;
	if (t >= lo && t < hi) {
		if (one && (o == 0xe9 || o == 0xeb)) {
			p->a = t;
			return 0;
		}
		/*
		 * if (!flag) ct_idle_exit(): of a branch whose one way closes
		 * at once, the other way, if no path of it closes, is the one
		 * where the window never opened
		 */
		if (w->close_call && closes_soon(w, t, hi) && !reaches_close(w, p->a, lo, hi)) {
			p->a = t;
			return 0;
		}
		if (w->close_call && closes_soon(w, p->a, hi) && !reaches_close(w, t, lo, hi))
			return 0;
		struct lc_path q = *p;

		q.a = t;
		return push(stack, n, cap, &q);
	}
	ret = jump_out(w, t, p);
	if (ret < 0)
		return ret;
	*open |= ret;
	return one && (o == 0xe9 || o == 0xeb);
}

/*
 * One function's code from start, within [lo, hi): a path goes on where it
 * jumps, and off the end into the next symbol (asm falls through). Returns
 * 1 if a path can return with the window open, 0 if none can, or an error.
 */
static int walk_code(struct lc_walk *w, unsigned long start, unsigned long lo,
		     unsigned long hi)
{
	unsigned long *seen = bitmap_zalloc(hi - lo, GFP_KERNEL);
	struct lc_path *stack = kmalloc_array(64, sizeof(*stack), GFP_KERNEL);
	size_t n = 0, cap = 64;
	int open = 0, ret = 0;
	struct insn in;

	if (!seen || !stack) {
		ret = -ENOMEM;
		goto out;
	}
	stack[n++] = (struct lc_path){ .a = start };
	while (n && ret >= 0) {
		struct lc_path p = stack[--n];

		ret = 0;
		while (!ret && p.a >= lo && p.a < hi && !test_bit(p.a - lo, seen)) {
			unsigned long a = p.a;

			if (decode_at(a, hi, &in)) {
				w->unresolved++;
				ret = 1;
				break;
			}
			bitmap_set(seen, a - lo, min_t(unsigned long, in.length, hi - a));
			ret = lc_add_range(w, a, a + in.length);
			if (!ret)
				ret = step(w, &in, a, &p, lo, hi, &open, &stack, &n, &cap);
		}
		if (!ret && p.a == hi) {
			ret = walk_fn(w, hi);	/* off the end: into the next */
			if (ret > 0)
				open = 1;
		}
	}
out:
	kfree(stack);
	bitmap_free(seen);
	return ret < 0 ? ret : open;
}

/* A function entered at t with the window open: 1 if it can return open. */
static int walk_fn(struct lc_walk *w, unsigned long t)
{
	unsigned long size, off;
	bool outer = w->wrmsr;
	size_t i;
	int ret, kind;

	for (i = 0; i < w->nfn; i++)
		if (w->fn[i].entry == t)
			break;
	if (i < w->nfn && (w->fn[i].state != CAPPED || w->depth >= CALLS_DEEP)) {
		w->wrmsr |= w->fn[i].wrmsr;
		return w->fn[i].state != CLOSED;
	}
	if (!gilk_is_text(t, &kind) || kind != GILK_TEXT_KERNEL ||
	    !gilk_ks.kallsyms_lookup_size_offset(t, &size, &off) || !size) {
		w->unresolved++;
		return 1;
	}
	if (i == w->nfn) {
		if (w->nfn == FNS_MAX)
			return -E2BIG;
		w->nfn++;
	}
	w->fn[i] = (struct walked){ t, VISITING, false };
	if (w->depth >= CALLS_DEEP) {
		/* too deep to follow: all of it, and what it calls is not */
		w->unresolved++;
		w->fn[i].state = CAPPED;
		ret = lc_add_range(w, t - off, t - off + size);
		return ret ? ret : 1;
	}
	w->depth++;
	w->wrmsr = false;
	ret = walk_code(w, t, t - off, t - off + size);
	w->depth--;
	w->fn[i].wrmsr = w->wrmsr;
	w->wrmsr |= outer;
	if (ret >= 0)
		w->fn[i].state = ret ? OPEN : CLOSED;
	return ret;
}

/* A window opening at a, inside its function. */
static int walk_from(struct lc_walk *w, unsigned long a)
{
	unsigned long size, off;
	int ret;

	if (!gilk_ks.kallsyms_lookup_size_offset(a, &size, &off) || !size)
		return 0;
	w->depth = 0;
	ret = walk_code(w, a, a - off, a - off + size);
	return ret < 0 ? ret : 0;
}

/* The instruction of the function holding a that covers a, if one starts
 * at or before it: 0, with *at its start.
 */
static int insn_covering(unsigned long a, unsigned long *at, struct insn *in)
{
	unsigned long size, off, p;

	if (!gilk_ks.kallsyms_lookup_size_offset(a, &size, &off) || !size)
		return -ENOENT;
	for (p = a - off; p <= a; p += in->length) {
		if (decode_at(p, a - off + size, in))
			return -EINVAL;
		if (a < p + in->length) {
			*at = p;
			return 0;
		}
	}
	return -ENOENT;
}

/* candidates whose function did not decode up to them: not followed */
static unsigned int scan_misses;

struct roots {
	unsigned long *a;
	size_t n, cap;
};

static int add_root(struct roots *r, unsigned long a)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		unsigned long *p = krealloc_array(r->a, cap, sizeof(*p), GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		r->a = p;
		r->cap = cap;
	}
	r->a[r->n++] = a;
	return 0;
}

static s32 rel32(const u8 *p)
{
	s32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * One pass over the core kernel's text: where %gs's selector is loaded
 * (8e /5), and where idle_enter is called. A byte pattern is only a
 * candidate; the function's own decoding says whether an instruction is
 * there.
 */
static int scan_text(unsigned long idle_enter, struct roots *gs, struct roots *idle)
{
	unsigned long a = (unsigned long)gilk_ks.stext, end = (unsigned long)gilk_ks.etext;
	unsigned long at;
	struct insn in;
	int ret = 0;

	for (; a + 5 <= end && !ret; a++) {
		const u8 *b = (const u8 *)a;

		if (b[0] == 0x8e && ((b[1] >> 3) & 7) == 5) {
			if (insn_covering(a, &at, &in))
				scan_misses++;
			else if (in.opcode.nbytes == 1 && op0(&in) == 0x8e && modrm_reg(&in) == 5 &&
				 at + in.prefixes.nbytes + in.rex_prefix.nbytes == a)
				ret = add_root(gs, at + in.length);
		} else if (b[0] == 0xe8 && idle_enter && a + 5 + (long)rel32(b + 1) == idle_enter) {
			if (insn_covering(a, &at, &in))
				scan_misses++;
			else if (at == a)
				ret = add_root(idle, a + 5);
		}
		if (!(a & 0xffff))
			cond_resched();
	}
	return ret;
}

static int cmp_range(const void *x, const void *y)
{
	const struct lc_range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* The walk's ranges, sorted and merged, kept as class c's. */
static void keep(struct lc_walk *w, int c)
{
	size_t i, n = 0;

	sort(w->r, w->nr, sizeof(*w->r), cmp_range, NULL);
	for (i = 0; i < w->nr; i++) {
		if (n && w->r[i].start <= w->r[n - 1].end)
			w->r[n - 1].end = max(w->r[n - 1].end, w->r[i].end);
		else
			w->r[n++] = w->r[i];
	}
	classes[c].r = w->r;
	classes[c].n = n;
	classes[c].unresolved = w->unresolved;
	/* functions: distinct symbols the ranges start in */
	for (i = 0; i < n; i++) {
		unsigned long size, off, a = w->r[i].start;

		while (a < w->r[i].end && gilk_ks.kallsyms_lookup_size_offset(a, &size, &off) &&
		       size) {
			if (!i || w->r[i - 1].end <= a - off)
				classes[c].fns++;
			a += size - off;
		}
	}
	w->r = NULL;
}

static unsigned long first_symbol(const char *const *names, size_t n)
{
	unsigned long a = 0;
	size_t i;

	for (i = 0; i < n && !a; i++)
		a = gilk_ks.kallsyms_lookup_name(names[i]);
	return a;
}

/* The enter functions of the cpuidle driver's states that leave entering RCU idle to
 * cpuidle_enter_state(), which calls them in the window.
 */
static int idle_states(struct lc_walk *w)
{
#ifdef CONFIG_CPU_IDLE
	struct cpuidle_driver *drv = cpuidle_get_driver();
	struct module *mod;
	int i, ret = 0;

	/*
	 * a module's driver (haltpoll) may go while it is read, and its
	 * enter functions are module text, which is not walked
	 */
	preempt_disable();
	mod = drv ? gilk_ks.module_address((unsigned long)drv) : NULL;
	preempt_enable();
	if (mod) {
		w->unresolved++;
		return 0;
	}

	for (i = 0; drv && i < drv->state_count && ret >= 0; i++) {
		struct cpuidle_state *s = &drv->states[i];

#ifdef CPUIDLE_FLAG_RCU_IDLE
		if (s->flags & CPUIDLE_FLAG_RCU_IDLE)
			continue;
#endif
		w->depth = 0;
		if (s->enter)
			ret = walk_fn(w, (unsigned long)s->enter);
		if (ret >= 0 && s->enter_s2idle)
			ret = walk_fn(w, (unsigned long)s->enter_s2idle);
	}
	return ret < 0 ? ret : 0;
#else
	return 0;
#endif
}

static int walk_class(int c, struct roots *roots, const char *const *entries, size_t nentries,
		      unsigned long close_call)
{
	struct lc_walk w = { .class = c, .close_call = close_call };
	size_t i;
	int ret = 0;

	w.fn = kvmalloc_array(FNS_MAX, sizeof(*w.fn), GFP_KERNEL);
	if (!w.fn)
		return -ENOMEM;
	for (i = 0; i < nentries && !ret; i++) {
		unsigned long a = gilk_ks.kallsyms_lookup_name(entries[i]);

		w.depth = 0;
		ret = a ? walk_fn(&w, a) : 0;
		ret = ret < 0 ? ret : 0;
	}
	for (i = 0; i < roots->n && !ret; i++)
		ret = walk_from(&w, roots->a[i]);
	if (!ret && c == RCU_IDLE)
		ret = idle_states(&w);
	if (ret == -E2BIG) {
		/* what was found is kept, and the rest said */
		pr_warn("gilk: the %s walk met more than %d functions: it stopped there\n",
			c == EARLY_CPU ? "early-cpu" : "rcu-idle", FNS_MAX);
		w.unresolved++;
		ret = 0;
	}
	if (!ret)
		keep(&w, c);
	kvfree(w.r);
	kvfree(w.fn);
	return ret;
}

int gilk_lifecycle_init(void)
{
	/* where a CPU enters the kernel from the real-mode trampoline */
	static const char *const cpu_entries[] = {
		"secondary_startup_64", "secondary_startup_64_no_verify",
	};
	static const char *const enters[] = { "ct_idle_enter", "rcu_idle_enter" };
	static const char *const exits[] = { "ct_idle_exit", "rcu_idle_exit" };
	unsigned long idle_enter = first_symbol(enters, ARRAY_SIZE(enters));
	unsigned long idle_exit = first_symbol(exits, ARRAY_SIZE(exits));
	struct roots gs = { 0 }, idle = { 0 };
	int ret;

	find_reporters();
	ret = scan_text(idle_exit ? idle_enter : 0, &gs, &idle);
	if (!ret)
		ret = walk_class(EARLY_CPU, &gs, cpu_entries, ARRAY_SIZE(cpu_entries), 0);
	if (!ret && idle_exit)
		ret = walk_class(RCU_IDLE, &idle, NULL, 0, idle_exit);
	kfree(gs.a);
	kfree(idle.a);
	if (ret) {
		pr_err("gilk: cannot find the kernel's lifecycle code (%d)\n", ret);
		gilk_lifecycle_exit();
		return ret;
	}
	pr_info("gilk: early-cpu: %u functions from %zu %%gs loads, rcu-idle: %u functions from %zu idle entries; %u branches not followed\n",
		classes[EARLY_CPU].fns, gs.n, classes[RCU_IDLE].fns, idle.n,
		classes[EARLY_CPU].unresolved + classes[RCU_IDLE].unresolved + scan_misses);
	return 0;
}

void gilk_lifecycle_exit(void)
{
	int c;

	for (c = 0; c < NCLASSES; c++) {
		kvfree(classes[c].r);
		classes[c] = (struct class_code){ 0 };
	}
}

void gilk_lifecycle_counts(u32 *early_cpu, u32 *rcu_idle)
{
	*early_cpu = classes[EARLY_CPU].fns;
	*rcu_idle = classes[RCU_IDLE].fns;
}

static void class_facts(int c, u32 kind, struct gilk_facts *f, struct gilk_fact *out,
			unsigned long lo, unsigned long hi)
{
	const struct class_code *cc = &classes[c];
	size_t a = 0, b = cc->n;

	while (a < b) {		/* the first that ends above lo */
		size_t mid = a + (b - a) / 2;

		if (cc->r[mid].end <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < cc->n && cc->r[a].start < hi; a++)
		gilk_add_fact(f, out, max(lo, cc->r[a].start), min(hi, cc->r[a].end), kind);
}

void gilk_lifecycle_facts(struct gilk_facts *f, struct gilk_fact *out,
			  unsigned long lo, unsigned long hi)
{
	class_facts(EARLY_CPU, GILK_RES_EARLY_CPU, f, out, lo, hi);
	class_facts(RCU_IDLE, GILK_RES_RCU_IDLE, f, out, lo, hi);
}
