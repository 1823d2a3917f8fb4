// SPDX-License-Identifier: GPL-2.0
/*
 * Filters (uapi gilk.h, struct gilk_filter): checked whole when a splice is
 * asked for, and kept; the hit path runs them before the instrument
 * (gilk_filter_pass() in hitpath.c).
 */
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
		return gilk_refuse(why, GILK_REFUSED_BAD_FILTER,
				   "the filter's text is not NUL-terminated");
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
		    (t->field > GILK_FF_SELF && t->field < GILK_FF_REGS))
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
	p->self = current->tgid;	/* the splicing process, until it lets go */
	return p;
}
