#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "switch_arm64.h"
#include "u64set.h"

#define SLOTS 32	/* stack slots remembered: a table's address spilled */
#define PASSES 64	/* over the blocks; the facts settle in a few */
#define ROUNDS 4	/* a switch nested in a case of another: read next round */
#define TABLES 16	/* of one function, at most */
#define XZR 31	/* register field 31: the zero register (or sp, by context) */

/*
 * A stack slot (8 bytes at off from sp, 8-aligned) written on some path:
 * with an address, or with something else (unknown). A slot no path has
 * written since sp last moved holds nothing a compiled function reads, so
 * it agrees with any other path's (it is left out of struct flow).
 */
struct slot {
	int64_t off;
	bool unknown;
	uint64_t addr;
};

/* What holds before an instruction on every path into it seen so far. */
struct flow {
	bool reached;
	uint32_t known;		/* bit n: addr[n] is in Xn */
	uint32_t bounded;	/* bit n: Wn <= bound[n], unsigned */
	uint64_t addr[31];
	uint32_t bound[31];
	unsigned nslots;
	struct slot slot[SLOTS];
	/* A slot not listed is unknown from here up (a callee or a store
	 * may have written it), unwritten below; INT64_MIN: every one. */
	int64_t unknown_from;
};

/* What an instruction puts in a register, from the facts before it. */
struct def {
	unsigned r;
	bool known, bounded;
	uint64_t addr;
	uint32_t bound;
};

static uint32_t word_of(const struct insn *in)
{
	uint32_t w;

	memcpy(&w, in->bytes, 4);
	return w;
}

static int64_t sext_bits(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* adr or adrp's value at pc (adrp: a page) */
static uint64_t adr_value(uint32_t w, uint64_t pc)
{
	int64_t imm = sext_bits(((w >> 5) & 0x7ffff) << 2 | ((w >> 29) & 3), 21);

	return w & 0x80000000u ? (pc & ~0xfffull) + (uint64_t)(imm << 12) : pc + (uint64_t)imm;
}

static bool has(uint32_t set, unsigned r)
{
	return r < 31 && (set >> r & 1);
}

/* Slot off's value into *out (unknown, an address, or unwritten: neither
 * unknown nor an address); whether f lists it. */
static bool slot_get(const struct flow *f, int64_t off, struct slot *out)
{
	for (unsigned i = 0; i < f->nslots; i++)
		if (f->slot[i].off == off) {
			*out = f->slot[i];
			return true;
		}
	*out = (struct slot){ off, off + 8 > f->unknown_from, 0 };
	return false;
}

/* Every slot unknown: a store into the frame at no offset followed. */
static void slots_unknown(struct flow *f)
{
	f->nslots = 0;
	f->unknown_from = INT64_MIN;
}

/* Slot off now holds v; unknown if no room is left to say it. */
static void slot_put(struct flow *f, struct slot v)
{
	unsigned j = 0;

	for (unsigned i = 0; i < f->nslots; i++)
		if (f->slot[i].off != v.off)
			f->slot[j++] = f->slot[i];
	f->nslots = j;
	if (v.unknown && v.off + 8 > f->unknown_from)
		return;
	if (f->nslots == SLOTS)
		slots_unknown(f);
	else
		f->slot[f->nslots++] = v;
}

/* A store of len bytes at off: each 8-byte slot it touches is unknown,
 * or holds register r's address where it is exactly one slot. */
static void slot_store(struct flow *f, int64_t off, unsigned len, unsigned r)
{
	if (len == 8 && off % 8 == 0 && has(f->known, r)) {
		slot_put(f, (struct slot){ off, false, f->addr[r] });
		return;
	}
	for (int64_t s = off & ~7; s < off + (int64_t)len; s += 8)
		slot_put(f, (struct slot){ s, true, 0 });
}

static bool slot_load(const struct flow *f, int64_t off, uint64_t *addr)
{
	struct slot v;

	slot_get(f, off, &v);
	*addr = v.addr;
	return off % 8 == 0 && !v.unknown && v.addr;
}

/* The stack moved: a frame nothing has written yet. */
static void slots_fresh(struct flow *f)
{
	f->nslots = 0;
	f->unknown_from = INT64_MAX;
}

/* Loads and stores (the encoding group), and which of them write memory:
 * an LSE atomic both loads and stores; one register of the general ones
 * stores where opc is 00 (10 and 11 are the sign-extending loads and
 * prfm); every other form with a base has the load bit at 22. A literal
 * load has no base. */
static bool is_store(uint32_t w)
{
	if ((w & 0x0a000000u) != 0x08000000u || (w & 0x3b000000u) == 0x18000000u)
		return false;
	if ((w & 0x3f200c00u) == 0x38200000u)
		return true;
	if ((w & 0x3c000000u) == 0x38000000u)
		return !(w & 3u << 22);
	return !(w & 1u << 22);
}

/* add/sub (immediate) writing sp: rd 31 means sp there. */
static bool moves_sp(uint32_t w)
{
	return (w & 0x1f000000u) == 0x11000000u && !(w & 1u << 29) && (w & 31) == XZR;
}

/* Where the stack's address is taken into a register other than sp and
 * x29 (add, sub or mov from sp or x29), the lowest offset from sp so
 * taken: a callee or a store through another register may write any slot
 * from there up. INT64_MAX when nothing is taken; 0 for x29, whose offset
 * from sp is not followed. */
static int64_t stack_escapes(const struct cfg *g)
{
	int64_t lo = INT64_MAX;

	for (size_t i = 0; i < g->ninsn; i++) {
		uint32_t w = word_of(&g->insns[i]);
		unsigned rd = w & 31, rn = (w >> 5) & 31;
		int64_t k = (int64_t)((w >> 10) & 0xfff) << (w & 1u << 22 ? 12 : 0);

		if ((w & 0x1f000000u) != 0x11000000u || (w & 1u << 29) ||
		    (rn != XZR && rn != 29) || rd == XZR || rd == 29)
			continue;
		if (rn == 29 || (w & 1u << 30))	/* sub: below sp */
			k = 0;
		if (k < lo)
			lo = k;
	}
	return lo;
}

/* Forgets the slots an escaped address may reach: from escapes up. */
static void slots_escaped(struct flow *f, int64_t escapes)
{
	unsigned j = 0;

	if (escapes == INT64_MAX)
		return;
	for (unsigned i = 0; i < f->nslots; i++)
		if (f->slot[i].off + 8 <= escapes)
			f->slot[j++] = f->slot[i];
	f->nslots = j;
	if (escapes < f->unknown_from)
		f->unknown_from = escapes;
}

/* The registers an instruction writes that Capstone may leave out: the
 * destination field of data processing and of loads, a pair's second. */
static uint32_t writes_by_encoding(uint32_t w)
{
	unsigned rd = w & 31, rt2 = (w >> 10) & 31;
	uint32_t m = 0;

	if ((w & 0x1c000000u) == 0x10000000u ||	/* data processing, immediate */
	    (w & 0x0e000000u) == 0x0a000000u ||	/* data processing, register */
	    (w & 0x0e000000u) == 0x0e000000u ||	/* SIMD and FP (moves to X) */
	    (w & 0xffc00000u) == 0xd5000000u)	/* system: mrs */
		m |= rd < 31 ? 1u << rd : 0;
	if ((w & 0x0a000000u) == 0x08000000u) {	/* loads and stores */
		if (!is_store(w) || (w & 0x3f200c00u) == 0x38200000u)
			m |= rd < 31 ? 1u << rd : 0;
		if ((w & 0x38000000u) == 0x28000000u && !is_store(w))	/* load pair */
			m |= rt2 < 31 ? 1u << rt2 : 0;
		if ((w & 0x3f000000u) == 0x08000000u)	/* exclusive: status */
			m |= ((w >> 16) & 31) < 31 ? 1u << ((w >> 16) & 31) : 0;
	}
	return m;
}

static void step(struct decoder *d, const struct switch_image *img, struct flow *f,
		 const struct insn *in, int64_t escapes)
{
	uint32_t w = word_of(in), writes = decode_arm64_writes(d, in) | writes_by_encoding(w);
	unsigned rd = w & 31, rn = (w >> 5) & 31, rt2 = (w >> 10) & 31, rm = (w >> 16) & 31;
	int64_t off;
	struct def set[2];
	unsigned nset = 0;
	uint64_t a;

	if ((w & 0x1f000000u) == 0x10000000u) {			/* adr, adrp */
		set[nset++] = (struct def){ rd, true, false, adr_value(w, in->addr), 0 };
	} else if ((w & 0xff800000u) == 0x91000000u && rn != XZR && rd != XZR) {
		/* add Xd, Xn, #imm (lsl #12 when bit 22) */
		uint64_t imm = (uint64_t)((w >> 10) & 0xfff) << (w & 1u << 22 ? 12 : 0);

		set[nset++] = (struct def){ rd, has(f->known, rn), false, f->addr[rn] + imm, 0 };
	} else if ((w & 0xffe0ffe0u) == 0xaa0003e0u) {		/* mov Xd, Xm */
		set[nset++] = (struct def){ rd, has(f->known, rm), has(f->bounded, rm),
						f->addr[rm % 31], f->bound[rm % 31] };
	} else if ((w & 0xffe0ffe0u) == 0x2a0003e0u) {		/* mov Wd, Wm */
		set[nset++] = (struct def){ rd, false, has(f->bounded, rm), 0,
						f->bound[rm % 31] };
	} else if ((w & 0xffc003e0u) == 0xf94003e0u) {		/* ldr Xt, [sp, #imm] */
		off = (int64_t)((w >> 10) & 0xfff) * 8;
		if (slot_load(f, off, &a))
			set[nset++] = (struct def){ rd, true, false, a, 0 };
	} else if ((w & 0xffc003e0u) == 0xa94003e0u) {		/* ldp Xt, Xt2, [sp, #imm] */
		off = sext_bits((w >> 15) & 0x7f, 7) * 8;
		if (slot_load(f, off, &a))
			set[nset++] = (struct def){ rd, true, false, a, 0 };
		if (slot_load(f, off + 8, &a))
			set[nset++] = (struct def){ rt2, true, false, a, 0 };
	} else if ((w & 0xffc003e0u) == 0xf90003e0u) {		/* str Xt, [sp, #imm] */
		slot_store(f, (int64_t)((w >> 10) & 0xfff) * 8, 8, rd);
	} else if ((w & 0xffc003e0u) == 0xa90003e0u) {		/* stp Xt, Xt2, [sp, #imm] */
		off = sext_bits((w >> 15) & 0x7f, 7) * 8;
		slot_store(f, off, 8, rd);
		slot_store(f, off + 8, 8, rt2);
	} else if ((w & 0x3b4003e0u) == 0x390003e0u) {
		/* any other store to [sp, #imm] (strb, strh, str w, SIMD) */
		unsigned len = w & 1u << 26 && w & 1u << 23 ? 16 : 1u << (w >> 30);

		slot_store(f, (int64_t)((w >> 10) & 0xfff) * len, len, XZR);
	} else if ((w & 0x3bc003e0u) == 0x290003e0u) {
		/* any other store pair to [sp, #imm] */
		unsigned len = w & 1u << 26 ? 4u << (w >> 30) : (w >> 30) == 2 ? 8 : 4;

		slot_store(f, sext_bits((w >> 15) & 0x7f, 7) * len, 2 * len, XZR);
	} else if (is_store(w) && (rn == XZR || rn == 29)) {
		slots_unknown(f);	/* a store into the frame, where not followed */
	} else if (is_store(w)) {
		slots_escaped(f, escapes);
	}
	if (in->kind == IK_CALL || in->kind == IK_CALL_IND)
		slots_escaped(f, escapes);	/* what a callee may write */
	if (writes & 1u << 31 || moves_sp(w))
		slots_fresh(f);
	/* nothing goes on after a call that never returns */
	if (in->kind == IK_CALL && img->noreturn && img->noreturn(img->ctx, in->target))
		f->reached = false;
	f->known &= ~writes;
	f->bounded &= ~writes;
	for (unsigned i = 0; i < nset; i++) {
		unsigned r = set[i].r;

		if (r >= 31)
			continue;
		f->known = (f->known & ~(1u << r)) | (uint32_t)set[i].known << r;
		f->bounded = (f->bounded & ~(1u << r)) | (uint32_t)set[i].bounded << r;
		f->addr[r] = set[i].addr;
		f->bound[r] = set[i].bound;
	}
}

/* Whether a and b list the same slots. */
static bool slots_same(const struct flow *a, const struct flow *b)
{
	struct slot v;

	if (a->nslots != b->nslots || a->unknown_from != b->unknown_from)
		return false;
	for (unsigned i = 0; i < a->nslots; i++)
		if (!slot_get(b, a->slot[i].off, &v) || v.unknown != a->slot[i].unknown ||
		    v.addr != a->slot[i].addr)
			return false;
	return true;
}

/* One slot of two paths: unwritten on one, the other's; an address on
 * both, if the same; else unknown. */
static struct slot slot_meet(const struct flow *a, const struct flow *b, int64_t off,
			     bool *unwritten)
{
	struct slot va, vb;
	bool la = slot_get(a, off, &va), lb = slot_get(b, off, &vb);
	bool ua = !la && !va.unknown, ub = !lb && !vb.unknown;

	*unwritten = ua && ub;
	if (ua)
		return vb;
	if (ub)
		return va;
	if (va.unknown || vb.unknown || va.addr != vb.addr)
		return (struct slot){ off, true, 0 };
	return va;
}

/* a's facts, less what b does not also hold; whether a changed. */
static bool meet(struct flow *a, const struct flow *b)
{
	struct flow old;
	struct slot out[2 * SLOTS];
	unsigned n = 0;

	if (!b->reached)
		return false;
	if (!a->reached) {
		*a = *b;
		return true;
	}
	old = *a;
	for (unsigned r = 0; r < 31; r++) {
		if (has(a->known, r) && (!has(b->known, r) || a->addr[r] != b->addr[r]))
			a->known &= ~(1u << r);
		if (has(a->bounded, r) && !has(b->bounded, r))
			a->bounded &= ~(1u << r);
		else if (has(a->bounded, r) && b->bound[r] > a->bound[r])
			a->bound[r] = b->bound[r];
	}
	for (unsigned k = 0; k < old.nslots + b->nslots; k++) {
		int64_t off = k < old.nslots ? old.slot[k].off : b->slot[k - old.nslots].off;
		bool unwritten, dup = false;
		struct slot v = slot_meet(&old, b, off, &unwritten);

		for (unsigned i = 0; i < n && !dup; i++)
			dup = out[i].off == off;
		if (!dup && !unwritten)
			out[n++] = v;
	}
	a->unknown_from = old.unknown_from < b->unknown_from ? old.unknown_from : b->unknown_from;
	a->nslots = 0;
	for (unsigned i = 0; i < n; i++)
		if (!out[i].unknown || out[i].off + 8 <= a->unknown_from) {
			if (a->nslots == SLOTS) {
				slots_unknown(a);
				break;
			}
			a->slot[a->nslots++] = out[i];
		}
	if (a->known != old.known || a->bounded != old.bounded || !slots_same(a, &old))
		return true;
	for (unsigned r = 0; r < 31; r++)
		if (has(a->bounded, r) && a->bound[r] != old.bound[r])
			return true;
	return false;
}

static void bound_reg(struct flow *f, unsigned r, uint32_t bound)
{
	if (r < 31 && (!has(f->bounded, r) || f->bound[r] > bound)) {
		f->bounded |= 1u << r;
		f->bound[r] = bound;
	}
}

/* The edge's own fact: cmp Rn, #N right before a b.cond bounds Wn on the
 * edge where the unsigned compare says Rn <= N (or < N), and each copy of
 * Rn the block made (mov) that still holds it. */
static void refine(struct decoder *d, const struct cfg *g, const struct block *b,
		   const struct edge *ed, struct flow *f)
{
	uint32_t since = 0;

	uint32_t br, cmp, n, imm;
	bool taken = ed->kind == EDGE_TAKEN;
	int64_t bound = -1;

	if (b->count < 2 || (ed->kind != EDGE_TAKEN && ed->kind != EDGE_FALL))
		return;
	br = word_of(&g->insns[b->first + b->count - 1]);
	cmp = word_of(&g->insns[b->first + b->count - 2]);
	if ((br & 0xff000010u) != 0x54000000u || (cmp & 0x7f80001fu) != 0x7100001fu)
		return;
	n = (cmp >> 5) & 31;
	imm = ((cmp >> 10) & 0xfff) << (cmp & 1u << 22 ? 12 : 0);
	switch (br & 0xf) {
	case 0x8:	/* b.hi: not taken, <= N */
		bound = taken ? -1 : (int64_t)imm;
		break;
	case 0x9:	/* b.ls: taken, <= N */
		bound = taken ? (int64_t)imm : -1;
		break;
	case 0x2:	/* b.hs: not taken, < N */
		bound = taken ? -1 : (int64_t)imm - 1;
		break;
	case 0x3:	/* b.lo: taken, < N */
		bound = taken ? (int64_t)imm - 1 : -1;
		break;
	}
	if (bound < 0 || n >= 31)
		return;
	bound_reg(f, n, (uint32_t)bound);
	for (uint32_t k = b->count - 2; k-- > 0;) {
		const struct insn *in = &g->insns[b->first + k];
		uint32_t w = word_of(in), r = w & 31;

		if (((w & 0xffe0ffe0u) == 0xaa0003e0u || (w & 0xffe0ffe0u) == 0x2a0003e0u) &&
		    ((w >> 16) & 31) == n && !has(since, r))
			bound_reg(f, r, (uint32_t)bound);
		since |= decode_arm64_writes(d, in) | writes_by_encoding(w);
		if (has(since, n))
			break;
	}
}

/*
 * The facts before each block's first instruction, to a fixed point; -1
 * when they do not settle (they always should: the facts only shrink, and
 * a bound only grows to one of the function's cmp immediates).
 *
 * A block no edge of the function enters is reached in a way not seen:
 * most often it is a case of a table not read yet, or a jump label's
 * target, or where a .cold part comes back, each from inside the function
 * with what holds there. These are left out of the meets first (cases
 * true: the facts of the function's own paths); where that reads nothing,
 * they are taken as code an alternative branches to, or a WARN's brk goes
 * on to, where nothing is known (cases false). A table read either way is
 * checked entry by entry (table_targets()).
 */
static int flow_blocks(struct decoder *d, const struct switch_image *img, const struct cfg *g,
		       struct flow *in, int64_t escapes, bool cases)
{
	ssize_t entry = cfg_block_at(g, g->start);
	const struct flow unknown = { .reached = true, .unknown_from = INT64_MIN };
	bool changed = true;
	int pass;

	bool *entered = calloc(g->nblocks, sizeof(*entered));

	if (!entered)
		return -1;
	memset(in, 0, g->nblocks * sizeof(*in));
	if (entry >= 0)
		meet(&in[entry], &unknown);
	/* an external edge, or none at all: a block reached in ways not
	 * seen (a WARN's brk going on, code an alternative branches to)
	 * starts knowing nothing */
	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].kind != EDGE_EXTERNAL)
			entered[g->edges[i].to] = true;
	for (size_t i = 0; i < g->nedges && !cases; i++)
		if (g->edges[i].kind == EDGE_EXTERNAL)
			meet(&in[g->edges[i].to], &unknown);
	for (size_t b = 0; b < g->nblocks && !cases; b++)
		if (!entered[b])
			meet(&in[b], &unknown);
	for (pass = 0; changed && pass < PASSES; pass++) {
		changed = false;
		for (size_t b = 0; b < g->nblocks; b++) {
			const struct block *blk = &g->blocks[b];
			struct flow out;

			if (!in[b].reached)
				continue;
			out = in[b];
			for (uint32_t i = 0; i < blk->count; i++)
				step(d, img, &out, &g->insns[blk->first + i], escapes);
			for (uint32_t k = 0; k < blk->nsucc; k++) {
				const struct edge *ed = &g->edges[blk->edge_first + k];
				struct flow e = out;

				refine(d, g, blk, ed, &e);
				changed |= meet(&in[ed->to], &e);
			}
		}
	}
	free(entered);
	return changed ? -1 : 0;
}

/* The facts right before insns[at]. */
static bool flow_at(struct decoder *d, const struct switch_image *img, const struct cfg *g,
		    const struct flow *in, size_t at, int64_t escapes, struct flow *f)
{
	for (size_t b = 0; b < g->nblocks; b++) {
		const struct block *blk = &g->blocks[b];

		if (at < blk->first || at >= blk->first + blk->count)
			continue;
		if (!in[b].reached)
			return false;
		*f = in[b];
		for (size_t i = blk->first; i < at; i++)
			step(d, img, f, &g->insns[i], escapes);
		return f->reached;
	}
	return false;
}

/* The targets of the table the br at insns[br] jumps through, into out
 * (sorted, distinct); 0 when the dispatch or its facts are not as read. */
static size_t table_targets(struct decoder *d, const struct cfg *g, const struct flow *in,
			    size_t br, int64_t escapes, const struct switch_image *img,
			    uint64_t *out)
{
	uint32_t jmp, add, adr, ldr, ext, size, n;
	unsigned t, i;
	const uint8_t *p;
	uint64_t base;
	size_t nout = 0;
	struct flow f;

	if (br < 3)
		return 0;
	for (size_t k = br - 3; k < br; k++)
		if (g->insns[k + 1].addr != g->insns[k].addr + 4)
			return 0;
	jmp = word_of(&g->insns[br]);
	add = word_of(&g->insns[br - 1]);
	adr = word_of(&g->insns[br - 2]);
	ldr = word_of(&g->insns[br - 3]);
	ext = (add >> 13) & 7;
	size = (ldr & 0xffe00c00u) == 0x38600800u ? 1 :
	       (ldr & 0xffe01c00u) == 0x78601800u ? 2 : 0;	/* ldrh: scaled (S) */
	if ((jmp & 0xfffffc1fu) != 0xd61f0000u || ((jmp >> 5) & 31) != (add & 31) ||
	    (add & 0xffe01c00u) != 0x8b200800u || (ext & 3) > 1 ||	/* add Xd, Xb, Wk, ext #2 */
	    (adr & 0x9f000000u) != 0x10000000u || (adr & 31) != ((add >> 5) & 31) ||
	    !size || (ldr & 31) != ((add >> 16) & 31) || ((ldr >> 13) & 7) != 2)
		return 0;
	t = (ldr >> 5) & 31;
	i = (ldr >> 16) & 31;
	if (!flow_at(d, img, g, in, br - 3, escapes, &f) || !has(f.known, t) || !has(f.bounded, i) ||
	    f.bound[i] >= CFG_TABLE_MAX)
		return 0;
	n = f.bound[i] + 1;
	base = adr_value(adr, g->insns[br - 2].addr);
	p = img->bytes(img->ctx, f.addr[t], (size_t)n * size);
	if (!p)
		return 0;
	for (uint32_t k = 0; k < n; k++) {
		uint16_t e = size == 1 ? p[k] : (uint16_t)(p[2 * k] | p[2 * k + 1] << 8);
		int64_t v = ext & 4 ? sext_bits(e, 8 * size) : (int64_t)e;
		uint64_t to = base + (uint64_t)(v * 4);

		if (to < g->start || to >= g->end || cfg_insn_at(g, to) < 0)
			return 0;	/* not this table after all */
		out[nout++] = to;
	}
	return u64_sort_unique(out, nout);
}

static bool read_already(const struct cfg_table *t, size_t n, uint64_t jump)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].jump == jump)
			return true;
	return false;
}

int switch_arm64_read(struct decoder *d, struct cfg *g, const uint8_t *code,
		      const uint64_t *ext, size_t next, const struct switch_image *img,
		      struct gerr *e)
{
	struct cfg_table tables[TABLES];
	uint64_t *buf = malloc(TABLES * CFG_TABLE_MAX * sizeof(*buf));
	size_t nt = 0, before = SIZE_MAX;
	int64_t escapes = stack_escapes(g);
	struct flow *in = NULL;
	int rc = 0;

	if (!buf)
		return gerr_set(e, "out of memory");
	/* a switch inside a case of another is reached once the outer
	 * table's edges are in: read again while a round adds tables */
	for (int round = 0; round < ROUNDS && nt != before && g->jump_table; round++) {
		size_t used = 0;

		before = nt;
		nt = 0;
		free(in);
		in = malloc(g->nblocks * sizeof(*in));
		if (!in) {
			rc = gerr_set(e, "out of memory");
			break;
		}
		for (int cases = 1; cases >= 0; cases--) {
			if (flow_blocks(d, img, g, in, escapes, cases))
				continue;
			for (size_t i = 0; i < g->ninsn && nt < TABLES; i++) {
				size_t n;

				if (!g->insns[i].table_jump || read_already(tables, nt, g->insns[i].addr))
					continue;
				n = table_targets(d, g, in, i, escapes, img, buf + used);
				if (n)
					tables[nt++] = (struct cfg_table){ g->insns[i].addr, buf + used, n };
				used += n;
			}
		}
		if (nt > before && cfg_build_tables(g, d, code, g->start, g->end, ext, next,
						     tables, nt, e)) {
			rc = -1;
			break;
		}
	}
	free(in);
	free(buf);
	return rc;
}
