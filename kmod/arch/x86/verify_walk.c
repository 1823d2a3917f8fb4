// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's walk of the functions a splice touches (see verify_ctx.h):
 * every edge found by decoding them, their jump tables and their
 * neighbours' jumps, and the kernel's hidden edges, none of which may land
 * in what the splice overwrites.
 */
#include "verify_ctx.h"

/* What reaches an instruction from the one before it. */
enum flow {
	FLOW_LIVE,	/* control falls into it */
	FLOW_DEAD,	/* nothing does: padding after a jmp, ret or BUG */
	/*
	 * after a call: only if the callee returns, and where the bytes are
	 * int3 the original would trap there too (noreturn calls end so)
	 */
	FLOW_AFTER_CALL,
};

/*
 * The memo's marks for the function starting at func (made if new). env is
 * const, the memo it points at is the batch's to change.
 */
static struct gilk_walk_fn *memo_fn(const struct gilk_verify_env *env,
				    unsigned long func)
{
	struct gilk_walk_memo *m = env->memo;
	struct gilk_walk_fn *f, *oldest;
	u32 i;

	if (!m)
		return NULL;
	oldest = &m->fn[0];
	for (i = 0; i < GILK_WALK_FUNCS; i++) {
		f = &m->fn[i];
		if (f->func == func) {
			f->used = ++m->clock;
			return f;
		}
		if (f->used < oldest->used)
			oldest = f;
	}
	oldest->func = func;
	oldest->used = ++m->clock;
	oldest->n = 0;
	oldest->step = GILK_WALK_STEP;
	oldest->targets_known = false;
	return oldest;
}

/* The last mark at or below lo, or the function's start. */
static unsigned long memo_resume(const struct gilk_walk_fn *f, unsigned long lo)
{
	u32 a = 0, b = f->n;

	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (f->at[mid] <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a ? f->at[a - 1] : f->func;
}

/* a starts an instruction control falls into: a mark, if far enough on. */
static void memo_note(struct gilk_walk_fn *f, unsigned long a)
{
	u32 i;

	if (a < (f->n ? f->at[f->n - 1] : f->func) + f->step)
		return;
	if (f->n == GILK_WALK_MARKS) {
		/* the odd ones stay: 2 * step apart, and from the start */
		for (i = 0; i < GILK_WALK_MARKS / 2; i++)
			f->at[i] = f->at[2 * i + 1];
		f->n = GILK_WALK_MARKS / 2;
		f->step *= 2;
		if (a < f->at[f->n - 1] + f->step)
			return;
	}
	f->at[f->n++] = a;
}

/* Text read ahead for decoding one instruction after another. */
struct text_cursor {
	unsigned long got;	/* the address of buf[0] */
	size_t valid;		/* bytes of buf read */
	u8 buf[256];	/* a read costs more than its bytes: kprobes, splices overlaid */
};

/*
 * Decodes the instruction at a, reading no further than end: 0, -EFAULT
 * where the text cannot be read, -EINVAL where it does not decode.
 */
static int next_insn(const struct vctx *v, struct text_cursor *c, unsigned long a,
		     unsigned long end, struct insn *in)
{
	size_t off = a - c->got;

	if (!c->valid || a < c->got || off + MAX_INSN_SIZE > c->valid) {
		c->valid = end - a < sizeof(c->buf) ? end - a : sizeof(c->buf);
		if (v->env->read(v->env, a, c->buf, c->valid)) {
			c->valid = end - a < MAX_INSN_SIZE ? end - a : MAX_INSN_SIZE;
			if (v->env->read(v->env, a, c->buf, c->valid)) {
				c->valid = 0;
				return -EFAULT;
			}
		}
		c->got = a;
		off = 0;
	}
	return gilk_vdecode(v, in, c->buf + off, c->valid - off) ? -EINVAL : 0;
}

/*
 * Decodes the function holding lo from its start, as kprobes' can_probe()
 * does, up to hi. With dead, every instruction overlapping [lo, hi) must be
 * padding that nothing falls into; otherwise lo must start an instruction.
 * With a memo, from the last mark at or below lo instead: control falls in
 * there, as at the start, and what the walk from the start decides past it
 * depends only on the instructions from it on (the last non-padding one
 * before a dead range, the jmp a jump label may turn into a nop, is found
 * after it, or the range is not dead). Where the text changed since the
 * mark was made (a jump label or an ftrace site, their lengths kept), the
 * walk from the mark decides the same or refuses where that from the start
 * would not: it starts with control falling in, the strictest state.
 */
int gilk_vwalk(struct vctx *v, const char *part, unsigned long lo,
	       unsigned long hi, bool dead)
{
	unsigned long a = v->env->func_start(v->env, lo), ender = 0, ret_to = 0;
	enum flow flow = FLOW_LIVE;
	struct gilk_walk_fn *marks;
	struct text_cursor c = { 0 };
	struct insn in;
	int err;

	if (!a || a > lo)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "0x%lx is in no known function", lo);
	marks = memo_fn(v->env, a);
	if (marks)
		a = memo_resume(marks, lo);
	while (a < hi) {
		if (marks && flow == FLOW_LIVE)
			memo_note(marks, a);
		err = next_insn(v, &c, a, ~0UL, &in);
		if (err == -EFAULT)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "cannot read the code at 0x%lx", a);
		if (err)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "cannot decode the function up to 0x%lx (stuck at 0x%lx)", lo, a);
		if (!dead && a + in.length > lo)
			return a == lo ? 0 :
			       gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "0x%lx is inside the instruction at 0x%lx", lo, a);
		/*
		 * A noreturn callee that came back after all would meet the
		 * int3 there, not run a slot: the return address stays int3.
		 */
		if (dead && a == lo && flow == FLOW_AFTER_CALL && ret_to == lo)
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "0x%lx is where the call at 0x%lx returns to",
				      lo, ender);
		if (!is_padding(&in) ||
		    (flow == FLOW_AFTER_CALL && op0(&in) != 0xcc)) {
			flow = is_call(&in) ? FLOW_AFTER_CALL :
			       gilk_vfalls_through(v, &in, a) ? FLOW_LIVE : FLOW_DEAD;
			ender = a;
			ret_to = a + in.length;
		}
		if (a + in.length > lo && (flow == FLOW_LIVE || ender == a))
			return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, a > lo ? a - lo : 0, "0x%lx is not dead padding", a);
		a += in.length;
	}
	/* A jmp at a jump label site becomes a nop when its key flips. */
	if (ender && v->env->jump_label(v->env, ender, 1))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "the padding follows a jump label site at 0x%lx", ender);
	return 0;
}

bool gilk_branch_target(const struct insn *in, unsigned long a, unsigned long *t)
{
	u8 o = op0(in), o1 = op1(in);

	if (vex(in) ||
	    !((o >= 0x70 && o <= 0x7f) || (o >= 0xe0 && o <= 0xe3) || o == 0xe8 ||
	      o == 0xe9 || o == 0xeb || (o == 0x0f && o1 >= 0x80 && o1 <= 0x8f)))
		return false;
	*t = a + in->length + in->immediate.value;
	return true;
}

/* Whether f's targets hold one in [lo, hi). */
static bool memo_target_in(const struct gilk_walk_fn *f, unsigned long lo,
			   unsigned long hi)
{
	u32 a = 0, b = f->ntargets;

	if (hi <= f->func)
		return false;
	if (lo < f->func)
		lo = f->func;
	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (f->func + f->target[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < f->ntargets && f->func + f->target[a] < hi;
}

static void memo_keep_targets(struct gilk_walk_fn *f, u32 n)
{
	u32 i, j, k = 0;

	for (i = 1; i < n; i++) {	/* insertion sort: once per function */
		u32 t = f->target[i];

		for (j = i; j > 0 && f->target[j - 1] > t; j--)
			f->target[j] = f->target[j - 1];
		f->target[j] = t;
	}
	for (i = 0; i < n; i++)
		if (!k || f->target[k - 1] != f->target[i])
			f->target[k++] = f->target[i];
	f->ntargets = k;
	f->targets_known = true;
}

/* Where a scan keeps the targets it finds in the function [func, end). */
struct target_keep {
	struct gilk_walk_fn *f;	/* NULL: none kept */
	unsigned long func, end;
	u32 n;
};

static void keep_target(struct target_keep *k, unsigned long t)
{
	if (!k->f || t < k->func || t >= k->end)
		return;
	if (k->n < GILK_WALK_TARGETS)
		k->f->target[k->n++] = (u32)(t - k->func);
	else
		k->f = NULL;
}

/*
 * [disp32 + index*8] with no base and no segment: the address of a table
 * of 8-byte words, or 0. A computed goto (___bpf_prog_run's `goto
 * *jumptable[op]`) loads its target so, from .rodata, and jumps through
 * the register (a retpoline thunk): no decoding sees those edges.
 */
unsigned long gilk_table_at(const struct insn *in)
{
	u8 sib = in->sib.nbytes ? in->sib.bytes[0] : 0;

	if (vex(in) || !in->sib.nbytes || X86_MODRM_MOD(modrm(in)) != 0 ||
	    X86_SIB_BASE(sib) != 5 || X86_SIB_SCALE(sib) != 3 ||
	    (X86_SIB_INDEX(sib) == 4 && !X86_REX_X(rex(in))) ||
	    has_prefix(in, 0x64) || has_prefix(in, 0x65))
		return 0;
	return (unsigned long)(long)in->displacement.value;
}

int gilk_table_words(const struct gilk_verify_env *env, unsigned long t,
		     unsigned long func, int (*each)(void *ctx, unsigned long w),
		     void *ctx)
{
	u64 w[8], word;
	u32 i, n = 0, zeros = 0;
	int ret;

	if (!env->table_data || !env->is_text || !env->table_data(env, t, func))
		return 0;
	for (i = 0; i < GILK_TABLE_MAX && zeros < GILK_TABLE_GAP_MAX; i++) {
		/*
		 * eight words at a time; one by one where a read of eight
		 * runs off the mapped data the table ends at
		 */
		if (i % ARRAY_SIZE(w) == 0)
			n = env->read(env, t + 8 * i, w, sizeof(w)) ? 0 : ARRAY_SIZE(w);
		if (n)
			word = w[i % ARRAY_SIZE(w)];
		else if (env->read(env, t + 8 * i, &word, sizeof(word)))
			return 0;
		if (!word) {
			zeros++;	/* a label the table leaves out */
			continue;
		}
		zeros = 0;
		if (!env->is_text(env, word))
			return 0;
		ret = each(ctx, word);
		if (ret)
			return ret;
	}
	return zeros < GILK_TABLE_GAP_MAX ? -E2BIG : 0;
}

/* A scan's look at a table: its words in [lo, hi), the function scanned. */
struct table_scan {
	struct vctx *v;
	const char *part;
	unsigned long t, lo, hi;
	struct target_keep *k;
};

static int table_word(void *ctx, unsigned long w)
{
	struct table_scan *ts = ctx;

	if (w < ts->lo || w >= ts->hi)
		return 0;
	if (lands_inside(ts->v, w))
		return gilk_vrefuse(ts->v, GILK_REFUSED_UNVERIFIED_WALK, ts->part, 0, "the jump table at 0x%lx lands at 0x%lx, in what the splice overwrites",
			      ts->t, w);
	keep_target(ts->k, w);
	return 0;
}

/*
 * A neighbour being decoded for the memo: its targets outside [lo, hi)
 * go to the pool; lost: they did not fit.
 */
struct nb_keep {
	struct gilk_walk_memo *m;
	struct gilk_walk_nb *nb;
	unsigned long lo, hi;
	bool lost;
};

static void nb_keep_target(struct nb_keep *c, unsigned long t)
{
	if (!c || c->lost || (t >= c->lo && t < c->hi))
		return;
	if (c->m->pool_used == GILK_WALK_NB_POOL) {
		c->lost = true;
		return;
	}
	c->m->pool[c->m->pool_used++] = t;
	c->nb->n++;
}

/*
 * Decodes [lo, hi) from lo, an instruction start: no direct branch there,
 * nor a label of a computed goto's table it loads, may land in what the
 * splice overwrites past a region's start, or in a bounce slot
 * (lands_inside()). strict: it is the function itself, which
 * must decode where control may fall in. A byte that does not decode where
 * none can (after a jmp or a ret: data, or bytes past the function's real
 * end, which kallsyms does not know) is stepped over, and so is the rest
 * of a neighbour's; where the text cannot be read, the scan ends. nb: a
 * neighbour's scan, whose targets outside [lo, hi) the memo keeps.
 */
static int scan_range(struct vctx *v, const char *part, unsigned long lo,
		      unsigned long hi, bool strict, struct target_keep *k,
		      struct nb_keep *nb)
{
	struct text_cursor c = { 0 };
	unsigned long a = lo, t, table = 0;
	bool dead = false;
	struct insn in;
	int err;

	while (a < hi) {
		err = next_insn(v, &c, a, hi, &in);
		if (err && strict && !dead)
			return err == -EFAULT ?
			       gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "cannot read the code at 0x%lx", a) :
			       gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "cannot decode the function at 0x%lx (stuck at 0x%lx)",
				      lo, a);
		if (err == -EFAULT)
			return 0;
		if (err) {
			strict = false;
			a++;
			continue;
		}
		if (!is_padding(&in))
			dead = !gilk_vfalls_through(v, &in, a);
		if (gilk_branch_target(&in, a, &t)) {
			if (lands_inside(v, t))
				return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "the branch at 0x%lx lands at 0x%lx, in what the splice overwrites",
					      a, t);
			keep_target(k, t);
			nb_keep_target(nb, t);
		}
		t = gilk_table_at(&in);
		if (t && t != table) {
			struct table_scan ts = { v, part, t, lo, hi, k };

			table = t;	/* loaded again right after: read once */
			err = gilk_table_words(v->env, t, lo, table_word, &ts);
			if (err == -E2BIG)
				return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "the jump table at 0x%lx holds more than %d labels",
					      t, GILK_TABLE_MAX);
			if (err)
				return err;
		}
		a += in.length;
	}
	return 0;
}

/*
 * Hand-written assembly jumps between its functions: to a label past
 * another symbol's start, as copy_user_generic_unrolled does into
 * copy_user_short_string. A compiler does not (its only such jumps, from a
 * .cold part, are hidden edges the kernel indexes), and an assembly file's
 * functions lie together: so the symbols starting within GILK_NEIGHBOUR_REACH
 * either side of the function are decoded too, each from its start and
 * GILK_NEIGHBOUR_SPAN bytes at most.
 */
#define NEIGHBOURS 16	/* either side, at most */

/* The memo's neighbour starting at start, or ending at end (either 0: any). */
static struct gilk_walk_nb *nb_find(struct gilk_walk_memo *m, unsigned long start,
				    unsigned long end)
{
	u32 i;

	for (i = 0; m && i < GILK_WALK_NBS; i++)
		if (m->nb[i].start && (!start || m->nb[i].start == start) &&
		    (!end || m->nb[i].end == end)) {
			m->nb[i].used = ++m->clock;
			return &m->nb[i];
		}
	return NULL;
}

/* A new neighbour in the memo, in an unused or the least recently used place. */
static struct gilk_walk_nb *nb_new(struct gilk_walk_memo *m, unsigned long start,
				   unsigned long end)
{
	struct gilk_walk_nb *oldest;
	u32 i;

	if (!m)
		return NULL;
	if (m->pool_used > GILK_WALK_NB_POOL - GILK_WALK_NB_POOL / 4) {
		for (i = 0; i < GILK_WALK_NBS; i++)
			m->nb[i].start = 0;
		m->pool_used = 0;
	}
	oldest = &m->nb[0];
	for (i = 0; i < GILK_WALK_NBS && oldest->start; i++)
		if (!m->nb[i].start || m->nb[i].used < oldest->used)
			oldest = &m->nb[i];
	*oldest = (struct gilk_walk_nb){
		.start = start, .end = end, .used = ++m->clock, .first = m->pool_used,
	};
	return oldest;
}

/*
 * The neighbour [p, e), GILK_NEIGHBOUR_SPAN bytes of it at most: from the
 * memo where it holds it (known), decoded again only to name a branch that
 * lands in what the splice overwrites.
 */
static int scan_neighbour(struct vctx *v, const char *part, unsigned long p,
			  unsigned long e, struct gilk_walk_nb *known, struct target_keep *k)
{
	unsigned long hi = e < p + GILK_NEIGHBOUR_SPAN ? e : p + GILK_NEIGHBOUR_SPAN;
	struct gilk_walk_memo *m = v->env->memo;
	struct nb_keep c = { m, NULL, p, hi, false };
	u32 i;
	int ret;

	if (known) {
		const unsigned long *t = &m->pool[known->first];

		for (i = 0; i < known->n && !lands_inside(v, t[i]); i++)
			;
		if (i < known->n)
			return scan_range(v, part, p, hi, false, k, NULL);
		for (i = 0; i < known->n; i++)
			keep_target(k, t[i]);
		return 0;
	}
	c.nb = nb_new(m, p, e);
	ret = scan_range(v, part, p, hi, false, k, c.nb ? &c : NULL);
	if (c.nb && (ret || c.lost))
		c.nb->start = 0;
	return ret;
}

static int scan_neighbours(struct vctx *v, const char *part, unsigned long func,
			   unsigned long end, struct target_keep *k)
{
	const struct gilk_verify_env *env = v->env;
	unsigned long s = func, p, e;
	struct gilk_walk_nb *nb;
	int n, ret = 0;

	for (n = 0; !ret && n < NEIGHBOURS && s > func - GILK_NEIGHBOUR_REACH; n++) {
		nb = nb_find(env->memo, 0, s);
		p = nb ? nb->start : env->func_start(env, s - 1);
		if (!p || p >= s || p < func - GILK_NEIGHBOUR_REACH ||
		    (!nb && env->func_end(env, p) != s))
			break;
		ret = scan_neighbour(v, part, p, s, nb, k);
		s = p;
	}
	for (s = end, n = 0; !ret && n < NEIGHBOURS && s < end + GILK_NEIGHBOUR_REACH; n++) {
		nb = nb_find(env->memo, s, 0);
		e = nb ? nb->end : env->func_start(env, s) == s ? env->func_end(env, s) : 0;
		if (e <= s)
			break;
		ret = scan_neighbour(v, part, s, e, nb, k);
		s = e;
	}
	return ret;
}

/*
 * Decodes the whole function at func, and its neighbours: none of their
 * direct branches may land in what the splice overwrites. With a memo, the
 * targets in the function are kept for the batch's next requests instead of
 * decoding them again.
 */
static int scan_branches(struct vctx *v, const char *part, unsigned long func,
			 unsigned long end, struct gilk_walk_fn *f)
{
	struct target_keep k = {
		.f = f && !f->targets_known ? f : NULL, .func = func, .end = end,
	};
	int ret = scan_range(v, part, func, end, true, &k, NULL);

	if (!ret)
		ret = scan_neighbours(v, part, func, end, &k);
	if (!ret && k.f)
		memo_keep_targets(k.f, k.n);
	return ret;
}

/* A kept target of f in what the splice overwrites past a region's start. */
static bool memo_lands_inside(const struct vctx *v, const struct gilk_walk_fn *f)
{
	return memo_target_in(f, v->region + 1, v->region + v->region_len) ||
	       (v->evicted_len &&
		memo_target_in(f, v->evicted + 1, v->evicted + v->evicted_len)) ||
	       (v->slot && memo_target_in(f, v->slot, v->slot + JMP32));
}

/* An edge no decoding finds into what the splice overwrites (hidden_edge). */
static bool hidden_edges_into(const struct vctx *v)
{
	const struct gilk_verify_env *env = v->env;

	return env->hidden_edge(env, v->region + 1, v->region + v->region_len) ||
	       (v->evicted_len &&
		env->hidden_edge(env, v->evicted + 1, v->evicted + v->evicted_len)) ||
	       (v->slot && env->hidden_edge(env, v->slot, v->slot + JMP32));
}

/*
 * What the splice writes stays inside one symbol: a region with its padding
 * tail, an evicted run, a bounce slot. Past a symbol's end lies another
 * function's entry (on 6.12 its __pfx_ padding and a sealed endbr64, which
 * read as padding): a jmp and int3 fill there would break that function's
 * every call. optprobes keep to the symbol for the same reason.
 */
static int check_within(struct vctx *v, const char *part, unsigned long a, u32 len)
{
	unsigned long func = v->env->func_start(v->env, a);
	unsigned long end = func ? v->env->func_end(v->env, func) : 0;

	if (!func || !end || a + len > end)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "0x%lx..0x%lx runs past the end of its symbol at 0x%lx",
			      a, a + len, end);
	return 0;
}

int gilk_vcheck_bounds(struct vctx *v)
{
	int ret = check_within(v, "site", v->region, v->region_len);

	if (!ret && v->evicted_len)
		ret = check_within(v, "patch0", v->evicted, v->evicted_len);
	if (!ret && v->slot)
		ret = check_within(v, "patch0", v->slot, JMP32);
	return ret;
}

static int check_edges_from(struct vctx *v, const char *part, unsigned long addr)
{
	unsigned long func = v->env->func_start(v->env, addr), end;
	struct gilk_walk_fn *f;

	if (!func)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "0x%lx is in no known function", addr);
	end = v->env->func_end(v->env, func);
	if (!end || end <= func)
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "the function at 0x%lx has no known end", func);
	if (hidden_edges_into(v))
		return gilk_vrefuse(v, GILK_REFUSED_UNVERIFIED_WALK, part, 0, "a jump label, an exception fixup or a .cold part edge lands in what the splice overwrites");
	f = memo_fn(v->env, func);
	if (f && f->targets_known && !memo_lands_inside(v, f))
		return 0;
	/* decoded again where it refuses, to name the branch */
	return scan_branches(v, part, func, end, f);
}

/*
 * Edges into what the splice overwrites: past the start of a region, or
 * anywhere in a bounce slot, control must never arrive, neither by a branch
 * of the function (or of the slot's, where that is another) nor by an edge
 * no decoder sees. kprobes' optimizer refuses its jmp over a jump target
 * the same way (can_optimize()).
 */
int gilk_vcheck_edges(struct vctx *v)
{
	const struct gilk_verify_env *env = v->env;
	int ret = check_edges_from(v, "site", v->region);

	if (!ret && v->slot &&
	    env->func_start(env, v->slot) != env->func_start(env, v->region))
		ret = check_edges_from(v, "patch0", v->slot);
	return ret;
}

