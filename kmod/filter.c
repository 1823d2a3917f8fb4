// SPDX-License-Identifier: GPL-2.0
/*
 * Filters (uapi gilk.h, struct gilk_filter): checked whole when a splice is
 * asked for, run on the hit path before the instrument. The run reads the
 * current task, the CPU and the site's registers, and calls nothing (not
 * even strncmp(), which may itself be spliced): it runs at any site gilk
 * splices, in any context up to NMI, outside the recursion guard.
 */
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gilk_internal.h"

static int bad(struct gilk_why *why, u32 i, const char *what)
{
	return gilk_refuse(why, GILK_REFUSED_BAD_FILTER, "filter test %u: %s", i, what);
}

static int bad_filter(struct gilk_why *why, const char *what)
{
	return gilk_refuse(why, GILK_REFUSED_BAD_FILTER, "filter: %s", what);
}

int gilk_filter_check(const struct gilk_filter *f, struct gilk_why *why)
{
	u32 i, s;

	if (!f->len)
		return 0;
	if (f->len > GILK_FILTER_MAX)
		return bad_filter(why, "longer than GILK_FILTER_MAX tests");
	if (f->pad)
		return bad_filter(why, "a reserved field is not 0");
	for (s = 0; s < GILK_FILTER_STRS; s++)
		if (!memchr(f->str[s], 0, GILK_FILTER_STR_LEN))
			return gilk_refuse(why, GILK_REFUSED_BAD_FILTER,
					   "filter string %u is not NUL-terminated", s);
	if (!memchr(f->text, 0, GILK_FILTER_TEXT_MAX))
		return bad_filter(why, "the text is not NUL-terminated");
	for (i = 0; i < f->len; i++) {
		const struct gilk_filter_test *t = &f->test[i];
		bool string = t->op == GILK_FOP_STR_EQ || t->op == GILK_FOP_GLOB;

		if (t->op >= GILK_FOP_NOPS)
			return bad(why, i, "unknown op");
		/* what an op does not read is 0: room to extend the ABI */
		if (t->pad || (t->op == GILK_FOP_RET && (t->field || t->jt || t->jf || t->mask)) ||
		    (string && t->mask))
			return bad(why, i, "a reserved field is not 0");
		if (t->op == GILK_FOP_RET)
			continue;
		if (t->field >= GILK_FF_NFIELDS ||
		    (t->field > GILK_FF_CONTEXT && t->field < GILK_FF_REGS))
			return bad(why, i, "unknown field");
		if (string != (t->field == GILK_FF_COMM))
			return bad(why, i, string ? "a string test of a number field" :
				   "a number test of comm");
		if (string && t->value >= GILK_FILTER_STRS)
			return bad(why, i, "no such string in the table");
		/*
		 * Forward only, and inside: every run ends at a RET (the last
		 * test can only be one, since it has nowhere to go).
		 */
		if (i + 1 + t->jt >= f->len || i + 1 + t->jf >= f->len)
			return bad(why, i, "a jump past the program's end");
	}
	return 0;
}

struct gilk_filter_prog *gilk_filter_keep(const struct gilk_filter *f)
{
	struct gilk_filter_prog *p = kmalloc(struct_size(p, test, f->len), GFP_KERNEL);

	if (!p)
		return NULL;
	memcpy(p->str, f->str, sizeof(p->str));
	memcpy(p->text, f->text, sizeof(p->text));
	p->len = f->len;
	memcpy(p->test, f->test, f->len * sizeof(p->test[0]));
	return p;
}

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
	switch (f) {
	case GILK_FF_ARG0: return r->di;
	case GILK_FF_ARG0 + 1: return r->si;
	case GILK_FF_ARG0 + 2: return r->dx;
	case GILK_FF_ARG0 + 3: return r->cx;
	case GILK_FF_ARG0 + 4: return r->r8;
	case GILK_FF_ARG0 + 5: return r->r9;
	case GILK_FF_RAX: return r->ax;
	case GILK_FF_RAX + 1: return r->bx;
	case GILK_FF_RAX + 2: return r->cx;
	case GILK_FF_RAX + 3: return r->dx;
	case GILK_FF_RAX + 4: return r->si;
	case GILK_FF_RAX + 5: return r->di;
	case GILK_FF_RAX + 6: return r->bp;
	case GILK_FF_RAX + 7: return r->sp;
	case GILK_FF_RAX + 8: return r->r8;
	case GILK_FF_RAX + 9: return r->r9;
	case GILK_FF_RAX + 10: return r->r10;
	case GILK_FF_RAX + 11: return r->r11;
	case GILK_FF_RAX + 12: return r->r12;
	case GILK_FF_RAX + 13: return r->r13;
	case GILK_FF_RAX + 14: return r->r14;
	case GILK_FF_RAX + 15: return r->r15;
	case GILK_FF_RIP: return r->ip;
	case GILK_FF_FLAGS: return r->flags;
	}
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
			v = field(t->field, regs) & t->mask;
			ok = t->op == GILK_FOP_EQ ? v == t->value :
			     t->op == GILK_FOP_LT ? v < t->value :
			     t->op == GILK_FOP_LE ? v <= t->value :
			     t->op == GILK_FOP_GT ? v > t->value : v >= t->value;
		}
		i += 1 + (ok ? t->jt : t->jf);
	}
}

NOKPROBE_SYMBOL(gilk_filter_pass);
