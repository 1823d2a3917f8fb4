// SPDX-License-Identifier: GPL-2.0
/*
 * The hit path, all of it gilk.ko's own: what every trampoline but the
 * inline ones (count, count_task, tsc) calls, the filter it runs first, and
 * the event an instrument writes. It runs at any site gilk splices, in any
 * context up to NMI, so it calls nothing a splice can be on outside the
 * per-CPU recursion guard (ownpath.c refuses what it reaches); every
 * function here is notrace and NOKPROBE. The instrument it calls (and the
 * BUG/WARN replay after it, bug.c) are the only code it runs elsewhere.
 */
#include <linux/hardirq.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "gilk_internal.h"
#include "compat.h"
#include "gilk_reg_index.h"

/* where each field from GILK_FF_ARG0 on is in struct pt_regs */
static const u16 reg_offset[] = {
#define GILK_ARG(i, name, member) offsetof(struct pt_regs, member),
#define GILK_REG(name, member, dwarf) offsetof(struct pt_regs, member),
#define GILK_STATE(name, member, field) offsetof(struct pt_regs, member),
#include "gilk_regs.h"
};
static_assert(GILK_FF_RAX + GILK_NREGS == GILK_FF_RIP);
static_assert(ARRAY_SIZE(reg_offset) == GILK_FF_NFIELDS - GILK_FF_ARG0);

#define GILK_EVENT_MAX 4000

static DEFINE_PER_CPU(int, gilk_depth);

/*
 * fnmatch(3) with FNM_NOESCAPE, over a comm: *, ? and [...] classes (! or ^
 * negates, a-z ranges); the shell refuses a backslash and a [ without its ].
 * By hand: the kernel's glob_match() could itself be spliced, and a filter
 * there would call it again without end. Inline, as everything the hit
 * path runs here: no call, nothing a kprobe could be put on.
 */
static __always_inline const char *class_end(const char *p)
{
	const char *q = p + 1;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')		/* first, a ] is itself */
		q++;
	while (*q && *q != ']')
		q++;
	return *q ? q : NULL;
}

static __always_inline bool class_has(const char *p, const char *end, char c)
{
	bool neg = p[1] == '!' || p[1] == '^', hit = false;

	for (p += neg ? 2 : 1; p < end; ) {
		if (p[1] == '-' && p + 2 < end) {
			hit |= c >= p[0] && c <= p[2];
			p += 3;
		} else {
			hit |= c == *p++;
		}
	}
	return hit != neg;
}

static __always_inline bool glob(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL, *next, *end;
	bool ok;

	while (*s) {
		if (*p == '*') {
			star = ++p;
			resume = s;
			continue;
		}
		if (*p) {
			next = p + 1;
			end = *p == '[' ? class_end(p) : NULL;
			if (*p == '?') {
				ok = true;
			} else if (end) {
				ok = class_has(p, end, *s);
				next = end + 1;
			} else {
				ok = *p == *s;
			}
			if (ok) {
				p = next;
				s++;
				continue;
			}
		}
		if (!star)
			return false;
		p = star;
		s = ++resume;
	}
	while (*p == '*')
		p++;
	return !*p;
}

static __always_inline u64 field(u8 f, const struct pt_regs *r)
{
	struct task_struct *t = current;

	switch (f) {
	case GILK_FF_PID:
		return t->tgid;
	case GILK_FF_TID:
		return t->pid;
	case GILK_FF_CPU:
		return raw_smp_processor_id();
	case GILK_FF_CONTEXT:
		return in_nmi() ? GILK_CTX_NMI : in_hardirq() ? GILK_CTX_IRQ :
		       in_serving_softirq() ? GILK_CTX_SOFTIRQ : GILK_CTX_TASK;
	}
	if (!r)		/* the check gave it the full template: not reached */
		return 0;
	if (f >= GILK_FF_ARG0 && f < GILK_FF_NFIELDS)
		return *(const unsigned long *)((const char *)r + reg_offset[f - GILK_FF_ARG0]);
	return 0;
}

/*
 * The task's name is read without task_lock(), as events read it: a rename
 * at that moment may show half of each, and only this hit sees it.
 */
static __always_inline bool comm_test(const struct gilk_filter_prog *f,
				      const struct gilk_filter_test *t)
{
	const char *want = f->str[t->value];
	char comm[TASK_COMM_LEN];
	int i;

	for (i = 0; i < TASK_COMM_LEN - 1; i++)
		comm[i] = READ_ONCE(current->comm[i]);
	comm[i] = '\0';
	if (t->op == GILK_FOP_GLOB)
		return glob(want, comm);
	for (i = 0; comm[i] && comm[i] == want[i]; i++)
		;
	return comm[i] == want[i];
}

/* 1 in the process that made the splice while it holds /dev/gilk open */
static __always_inline u64 self_field(const struct gilk_filter_prog *f)
{
	pid_t self = READ_ONCE(f->self);

	return self && self == current->tgid;
}

notrace bool gilk_filter_pass(const struct gilk_filter_prog *f, const struct pt_regs *regs)
{
	u32 i = 0;

	for (;;) {
		const struct gilk_filter_test *t = &f->test[i];
		u64 v;
		bool ok;

		if (t->op == GILK_FOP_RET)
			return t->value;
		if (t->field == GILK_FF_COMM) {
			ok = comm_test(f, t);
		} else {
			v = t->field == GILK_FF_SELF ? self_field(f) : field(t->field, regs);
			v &= t->mask;
			ok = t->op == GILK_FOP_EQ ? v == t->value :
			     t->op == GILK_FOP_LT ? v < t->value :
			     t->op == GILK_FOP_LE ? v <= t->value :
			     t->op == GILK_FOP_GT ? v > t->value : v >= t->value;
		}
		i += 1 + (ok ? t->jt : t->jf);
	}
}

NOKPROBE_SYMBOL(gilk_filter_pass);

/* A field for the fetch (fetch.c), which starts its values from them. */
notrace u64 gilk_hit_field(u8 f, const struct pt_regs *regs)
{
	return field(f, regs);
}
NOKPROBE_SYMBOL(gilk_hit_field);

/*
 * Called by every trampoline but count's, with the splice and the site's
 * registers (NULL from the scratch template: the instrument needs none).
 */
notrace void gilk_entry(struct gilk_splice_obj *s, struct pt_regs *regs)
{
	struct gilk_hit hit;
	int cpu;

	preempt_disable_notrace();
	/* removed while splices that joined it stay: it replays, no more */
	if (unlikely(READ_ONCE(s->husk)))
		goto out;
	cpu = smp_processor_id();
	/* before the guard: a filter calls nothing, and a nested hit is
	 * filtered as any other
	 */
	if (s->filter && !gilk_filter_pass(s->filter, regs)) {
		this_cpu_inc(*s->filtered);
		goto out;
	}
	this_cpu_inc(*s->hits);
	if (this_cpu_inc_return(gilk_depth) == 1) {
		hit.ctx.splice = s->id;
		hit.ctx.cpu = cpu;
		hit.ctx.site = s->site;
		hit.ctx.regs = regs;
		hit.ctx.arg = s->arg;
		hit.s = s;
		hit.fetched = NULL;
		hit.fetched_len = 0;
		/* inside the guard: its reads may be spliced, and its buffer
		 * is the CPU's one
		 */
		if (s->fetch)
			hit.fetched = gilk_fetch_run(s->fetch, regs, &hit.fetched_len);
		/* inside the guard: the CPU's map has one writer */
		if (s->agg)
			gilk_agg_add(s->agg, regs, hit.fetched);
		s->ins->fn(&hit.ctx);
	} else {
		atomic64_inc(&s->missed);
	}
	this_cpu_dec(gilk_depth);
out:
	/*
	 * No reschedule from here: preempt_schedule_notrace() would run
	 * outside the guard, and a splice on it would be hit again from
	 * here, without end (preempt=full). A pending reschedule waits for
	 * the next preemption point, at worst the next interrupt. (This is
	 * preempt_enable_no_resched_notrace(), which modules do not get.)
	 */
	barrier();
	__preempt_count_dec();
	/* Outside the guard and with preemption as the site had it: a BUG
	 * does not come back from here.
	 */
	if (unlikely(s->flags & GILK_SPLICE_BUG))
		gilk_bug_replay(s->site, regs);
}
NOKPROBE_SYMBOL(gilk_entry);

notrace struct gilk_splice_obj *gilk_hit_splice(const struct gilk_ctx *ctx)
{
	return container_of(ctx, struct gilk_hit, ctx)->s;
}
NOKPROBE_SYMBOL(gilk_hit_splice);

/*
 * The task at the site, and whether an interrupt of it runs there. Inline
 * reads only: this is the hit path, in any context up to NMI. The name is
 * copied without task_lock(), as ftrace records it: a rename at that very
 * moment may show half of each.
 */
static __always_inline void who_now(struct gilk_who *w)
{
	struct task_struct *t = current;

	w->tid = t->pid;
	w->pid = t->tgid;
	w->context = in_nmi() ? GILK_CTX_NMI : in_hardirq() ? GILK_CTX_IRQ :
		     in_serving_softirq() ? GILK_CTX_SOFTIRQ : GILK_CTX_TASK;
	w->gone = 0;
	memcpy(w->comm, t->comm, sizeof(w->comm));
	w->comm[sizeof(w->comm) - 1] = '\0';
}

/* An event of payload p, then the hit's fetched values (more, NULL: none). */
static __always_inline int event_write(struct gilk_splice_obj *s, int cpu, u64 ns,
				       const struct gilk_who *who, const void *p, u16 len,
				       const void *more, u16 more_len)
{
	struct ring_buffer_event *e;
	struct gilk_event *h;

	if (len > GILK_EVENT_MAX)
		return -EINVAL;
	/* the instrument's payload fits, but not with the fetch: lost, said */
	if (more_len > GILK_EVENT_MAX - len) {
		atomic64_inc(&s->lost);
		return -ENOSPC;
	}
	e = ring_buffer_lock_reserve(gilk_events_rb, sizeof(*h) + len + more_len);
	if (!e) {
		atomic64_inc(&s->lost);
		return -ENOSPC;
	}
	h = ring_buffer_event_data(e);
	h->ns = ns;
	h->splice = s->id;
	h->cpu = cpu;
	h->len = len + more_len;
	h->tid = who->tid;
	h->pid = who->pid;
	h->context = who->context;
	h->task_gone = who->gone;
	h->fetched = more != NULL;
	memset(h->pad, 0, sizeof(h->pad));
	memcpy(h->comm, who->comm, sizeof(h->comm));
	memcpy(h + 1, p, len);
	if (more)
		memcpy((u8 *)(h + 1) + len, more, more_len);
	gilk_rb_unlock_commit(gilk_events_rb, e);
	return 0;
}

notrace int gilk_event_write_at(struct gilk_splice_obj *s, int cpu, u64 ns,
				const struct gilk_who *who, const void *p, u16 len)
{
	return event_write(s, cpu, ns, who, p, len, NULL, 0);
}
NOKPROBE_SYMBOL(gilk_event_write_at);

notrace int gilk_emit(const struct gilk_ctx *ctx, const void *payload, u16 len)
{
	const struct gilk_hit *hit = container_of(ctx, struct gilk_hit, ctx);
	struct gilk_who who;

	who_now(&who);
	/* NMI-safe: splices run in NMIs */
	return event_write(hit->s, ctx->cpu, ktime_get_mono_fast_ns(), &who, payload, len,
			   hit->fetched, hit->fetched_len);
}
EXPORT_SYMBOL_GPL(gilk_emit);
NOKPROBE_SYMBOL(gilk_emit);
