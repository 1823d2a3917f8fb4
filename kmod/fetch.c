// SPDX-License-Identifier: GPL-2.0
/*
 * Fetches (uapi gilk.h, struct gilk_fetch): checked whole when a splice is
 * asked for, kept, and run at every hit the filter lets through, inside
 * the hit path's recursion guard (gilk_entry() in hitpath.c), into a
 * per-CPU buffer the hit's events append (gilk_emit()).
 *
 * Reads only, each through the kernel's nofault copies: an address that
 * faults, is not mapped, or is not the kind of memory its side allows
 * ends the value and marks it in the event. The split of user from kernel
 * addresses is x86-64's: below TASK_SIZE_MAX is the task's user space.
 */
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

#define FETCH_OUT_MAX (8 + GILK_FETCH_MAX * GILK_FETCH_STR_MAX)
/* a string's slot is its width rounded up to 8; the fault bits a u64 */
static_assert(GILK_FETCH_STR_MAX % 8 == 0 && GILK_FETCH_MAX <= 64);

/*
 * Used only inside the recursion guard: a nested hit never gets here.
 * Allocated at load, not a static per-CPU variable: modules share a few
 * KiB of those.
 */
static u64 __percpu *fetch_out;

int gilk_fetch_init(void)
{
	fetch_out = __alloc_percpu(FETCH_OUT_MAX, 8);
	return fetch_out ? 0 : -ENOMEM;
}

void gilk_fetch_exit(void)
{
	free_percpu(fetch_out);
}

static int bad(struct gilk_why *why, u32 i, u32 k, const char *what)
{
	return gilk_refuse(why, GILK_REFUSED_BAD_FETCH, "fetch value %u, step %u: %s", i, k, what);
}

static bool from_valid(u8 from)
{
	if (from == GILK_FETCH_FROM_ZERO || from == GILK_FETCH_FROM_TASK)
		return true;
	return from < GILK_FF_NFIELDS && from != GILK_FF_COMM &&
	       (from <= GILK_FF_CONTEXT || from >= GILK_FF_REGS);
}

static bool zeros(const void *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

static int step_check(const struct gilk_fetch_step *st, bool last, struct gilk_why *why,
		      u32 i, u32 k)
{
	if (st->op == 0 || st->op >= GILK_FSTEP_NOPS)
		return bad(why, i, k, "unknown op");
	if (!zeros(st->pad, sizeof(st->pad)))
		return bad(why, i, k, "a reserved field is not 0");
	switch (st->op) {
	case GILK_FSTEP_LOAD:
		if (st->width != 1 && st->width != 2 && st->width != 4 && st->width != 8)
			return bad(why, i, k, "a load of 1, 2, 4 or 8 bytes");
		break;
	case GILK_FSTEP_ADD:
		if (st->width)
			return bad(why, i, k, "an add has no width");
		break;
	case GILK_FSTEP_STRING:
		if (!st->width || st->width > GILK_FETCH_STR_MAX)
			return bad(why, i, k, "a string of 1 to GILK_FETCH_STR_MAX bytes");
		if (!last)
			return bad(why, i, k, "a step after a string");
		break;
	}
	return 0;
}

int gilk_fetch_check(const struct gilk_fetch *f, const struct gilk_instrument *ins,
		     const struct gilk_agg *agg, struct gilk_why *why)
{
	bool keyed = agg->kind && agg->key >= GILK_AGG_KEY_FETCH &&
		     agg->key < GILK_AGG_KEY_FETCH + GILK_FETCH_MAX;

	u32 i, k;
	int ret;

	if (!f->len)
		return 0;
	if (f->len > GILK_FETCH_MAX)
		return gilk_refuse(why, GILK_REFUSED_BAD_FETCH, "fetch: more than GILK_FETCH_MAX values");
	if (f->pad)
		return gilk_refuse(why, GILK_REFUSED_BAD_FETCH, "fetch: a reserved field is not 0");
	if (!memchr(f->text, 0, sizeof(f->text)))
		return gilk_refuse(why, GILK_REFUSED_BAD_FETCH, "fetch: the text is not NUL-terminated");
	/* what count fetches can only be an aggregation's key */
	if (ins->needs == GILK_NEEDS_NOTHING && !keyed)
		return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
				   "fetch: %s records no events for the values to join", ins->name);
	for (i = 0; i < f->len; i++) {
		const struct gilk_fetch_value *v = &f->value[i];
		const struct gilk_fetch_step *last;
		bool string;

		if (!from_valid(v->from))
			return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
					   "fetch value %u: unknown field to start from", i);
		if (v->nsteps > GILK_FETCH_STEPS)
			return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
					   "fetch value %u: more than GILK_FETCH_STEPS steps", i);
		if (!memchr(v->name, 0, sizeof(v->name)) || !v->name[0])
			return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
					   "fetch value %u: its name is empty or not NUL-terminated", i);
		for (k = 0; k < v->nsteps; k++) {
			ret = step_check(&v->step[k], k + 1 == v->nsteps, why, i, k);
			if (ret)
				return ret;
		}
		if (!zeros(&v->step[k], (GILK_FETCH_STEPS - k) * sizeof(v->step[0])))
			return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
					   "fetch value %u: a step past its count is not 0", i);
		last = &v->step[v->nsteps ? v->nsteps - 1 : 0];
		string = v->nsteps && last->op == GILK_FSTEP_STRING;
		if (string != (v->show == GILK_FSHOW_STRING))
			return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
					   "fetch value %u: shown as a string exactly when it ends with one",
					   i);
		if (v->show >= GILK_FSHOW_NKINDS ||
		    (string ? v->size : !v->size || v->size > 8 || (v->size & (v->size - 1))) ||
		    !zeros(v->pad, sizeof(v->pad)))
			return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
					   "fetch value %u: show, size or a reserved field out of range",
					   i);
	}
	for (; i < GILK_FETCH_MAX; i++)
		if (!zeros(&f->value[i], sizeof(f->value[i])))
			return gilk_refuse(why, GILK_REFUSED_BAD_FETCH,
					   "fetch value %u: past the count, not 0", i);
	return 0;
}

struct gilk_fetch *gilk_fetch_keep(const struct gilk_fetch *f)
{
	return kmemdup(f, sizeof(*f), GFP_KERNEL);
}

/*
 * One read of n bytes (at most a page's rest): the task's user memory below
 * TASK_SIZE_MAX, kernel memory above (copy_from_kernel_nofault() refuses
 * the user half and the guard page above it on x86 anyway), as bpf's
 * compat reads split them.
 */
static notrace bool read_mem(void *dst, unsigned long src, size_t n)
{
	if (src < TASK_SIZE_MAX)
		return !copy_from_user_nofault(dst, (const void __user *)src, n);
	return !copy_from_kernel_nofault(dst, (const void *)src, n);
}
NOKPROBE_SYMBOL(read_mem);

/*
 * A string of at most width bytes with its NUL, read a word at a time but
 * never across a page its NUL may end before; dst is zeroed already. Its
 * first byte is read even when width leaves room for none: a bad pointer
 * faults.
 */
static notrace bool read_string(char *dst, unsigned long src, u32 width)
{
	u32 n = 0, i, chunk;
	char first;

	if (width == 1)
		return read_mem(&first, src, 1);

	while (n + 1 < width) {
		chunk = min3(8u, width - 1 - n, (u32)(PAGE_SIZE - offset_in_page(src + n)));
		if (!read_mem(dst + n, src + n, chunk)) {
			memset(dst + n, 0, chunk);
			return false;
		}
		for (i = 0; i < chunk; i++)
			if (!dst[n + i]) {
				memset(dst + n + i, 0, chunk - i);
				return true;
			}
		n += chunk;
	}
	dst[n] = '\0';
	return true;
}
NOKPROBE_SYMBOL(read_string);

/* One value into out (its gilk_fetch_value_len() bytes); false: a fault. */
static notrace bool run_value(const struct gilk_fetch_value *v, const struct pt_regs *regs, u8 *out)
{
	u64 x, w;
	u32 k;

	/* the slot is the event's: nothing of an earlier hit stays in it */
	memset(out, 0, gilk_fetch_value_len(v));
	x = v->from == GILK_FETCH_FROM_ZERO ? 0 :
	    v->from == GILK_FETCH_FROM_TASK ? (unsigned long)current :
	    gilk_hit_field(v->from, regs);
	for (k = 0; k < v->nsteps; k++) {
		const struct gilk_fetch_step *st = &v->step[k];

		switch (st->op) {
		case GILK_FSTEP_LOAD:
			w = 0;	/* little-endian: width bytes are its low ones */
			if (!read_mem(&w, x + st->off, st->width))
				goto fault;
			x = w;
			break;
		case GILK_FSTEP_ADD:
			x += st->off;
			break;
		case GILK_FSTEP_STRING:
			return read_string(out, x + st->off, st->width);
		}
	}
	memcpy(out, &x, 8);
	return true;
fault:
	return false;
}
NOKPROBE_SYMBOL(run_value);

notrace const void *gilk_fetch_run(const struct gilk_fetch *f, const struct pt_regs *regs,
				   u16 *len)
{
	u8 *out = (u8 *)this_cpu_ptr(fetch_out), *p = out + 8;
	u64 faults = 0;
	u32 i;

	for (i = 0; i < f->len; i++) {
		if (!run_value(&f->value[i], regs, p))
			faults |= 1ull << i;
		p += gilk_fetch_value_len(&f->value[i]);
	}
	memcpy(out, &faults, 8);
	*len = p - out;
	return out;
}
NOKPROBE_SYMBOL(gilk_fetch_run);
