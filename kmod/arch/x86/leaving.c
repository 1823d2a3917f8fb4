// SPDX-License-Identifier: GPL-2.0
/*
 * The branches that leave a range of text, decoded with the kernel's x86
 * decoder from the text as it was before gilk and kprobes (coldparts.c
 * indexes them; ownpath.c follows them).
 */
#include <linux/minmax.h>

#include "gilk_internal.h"
#include "verify.h"

/* What leaves [lo, hi) is passed on to add(ctx, target). */
struct leaving {
	unsigned long lo, hi;
	int (*add)(void *ctx, unsigned long t);
	void *ctx;
};

static int leave(void *ctx, unsigned long t)
{
	struct leaving *l = ctx;

	return t < l->lo || t >= l->hi ? l->add(l->ctx, t) : 0;
}

int gilk_leaving_targets(unsigned long lo, unsigned long hi,
			int (*add)(void *ctx, unsigned long t), void *ctx)
{
	struct leaving l = { lo, hi, add, ctx };
	unsigned long a = lo, t, table = 0, got = 0;
	/* read ahead: each read overlays kprobes and splices, byte by byte */
	u8 buf[256];
	size_t valid = 0, n;
	struct insn in;
	int ret;

	while (a < hi) {
		if (!valid || a + min_t(unsigned long, hi - a, MAX_INSN_SIZE) > got + valid) {
			valid = min_t(unsigned long, hi - a, sizeof(buf));
			if (gilk_text_read(a, buf, valid)) {
				/* the text may end sooner: as much as an instruction */
				valid = min_t(unsigned long, hi - a, MAX_INSN_SIZE);
				if (gilk_text_read(a, buf, valid))
					return 0;
			}
			got = a;
		}
		n = min_t(unsigned long, got + valid - a, MAX_INSN_SIZE);
		if (gilk_ks.insn_decode(&in, buf + (a - got), n, INSN_MODE_KERN) || !in.length) {
			a++;
			continue;
		}
		if (gilk_branch_target(&in, a, &t) && (t < lo || t >= hi)) {
			ret = add(ctx, t);
			if (ret)
				return ret;
		}
		t = gilk_table_at(&in);
		if (t && t != table) {
			table = t;
			ret = gilk_table_words(&gilk_text_env, t, lo, leave, &l);
			/* past GILK_TABLE_MAX labels: the checker refuses the
			 * function's own splices; these are its first ones
			 */
			if (ret && ret != -E2BIG)
				return ret;
		}
		a += in.length;
	}
	return 0;
}
