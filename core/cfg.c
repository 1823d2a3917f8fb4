/* Basic blocks of a function (see cfg.h). */
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "u64set.h"

#define GROW(arr, n, cap, init)                                               \
	((n) < (cap) ? 0 : grow((void **)&(arr), &(cap), sizeof(*(arr)), (init)))

static int grow(void **arr, size_t *cap, size_t elem, size_t init)
{
	size_t ncap = *cap ? *cap * 2 : init;
	void *p = realloc(*arr, ncap * elem);

	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

void cfg_free(struct cfg *g)
{
	free(g->insns);
	free(g->blocks);
	free(g->edges);
	free(g->targets);
	free(g->padding);
	free(g->filler);
	memset(g, 0, sizeof(*g));
}

/* An address in a CFG, for the searches below. */
struct cfg_key {
	const struct cfg *g;
	uint64_t addr;
};

static bool insn_starts_below(const void *ctx, size_t i)
{
	const struct cfg_key *k = ctx;

	return k->g->insns[i].addr < k->addr;
}

static bool insn_ends_at_or_below(const void *ctx, size_t i)
{
	const struct cfg_key *k = ctx;

	return k->g->insns[i].addr + k->g->insns[i].len <= k->addr;
}

static bool block_ends_at_or_below(const void *ctx, size_t i)
{
	const struct cfg_key *k = ctx;

	return k->g->blocks[i].end <= k->addr;
}

size_t cfg_insn_count(const struct cfg *g)
{
	size_t n = g->ninsn;

	for (size_t i = 0; i < g->nfiller; i++)
		n += g->filler[i].end - g->filler[i].start;
	return n;
}

ssize_t cfg_insn_at(const struct cfg *g, uint64_t addr)
{
	struct cfg_key k = { g, addr };
	size_t i = u64_partition(g->ninsn, insn_starts_below, &k);

	return i < g->ninsn && g->insns[i].addr == addr ? (ssize_t)i : -1;
}

ssize_t cfg_insn_containing(const struct cfg *g, uint64_t addr)
{
	struct cfg_key k = { g, addr };
	size_t i = u64_partition(g->ninsn, insn_ends_at_or_below, &k);

	return i < g->ninsn && g->insns[i].addr <= addr ? (ssize_t)i : -1;
}

ssize_t cfg_block_at(const struct cfg *g, uint64_t addr)
{
	struct cfg_key k = { g, addr };
	size_t i = u64_partition(g->nblocks, block_ends_at_or_below, &k);

	return i < g->nblocks && g->blocks[i].start <= addr ? (ssize_t)i : -1;
}

static size_t target_lower(const struct cfg *g, uint64_t addr)
{
	return u64_lower_bound(g->targets, g->ntargets, addr);
}

bool cfg_is_target(const struct cfg *g, uint64_t addr)
{
	size_t i = target_lower(g, addr);

	return i < g->ntargets && g->targets[i] == addr;
}

static int add_edge(struct cfg *g, uint32_t from, uint32_t to, enum edge_kind k)
{
	if (GROW(g->edges, g->nedges, g->capedges, 256))
		return -1;
	g->edges[g->nedges++] = (struct edge){ from, to, (uint8_t)k };
	return 0;
}

/* Where the run of int3 that in (an int3) starts ends. */
static uint64_t int3_run_end(const struct cfg *g, const uint8_t *code, const struct insn *in)
{
	uint64_t a = in->addr;

	while (a < g->end && code[a - g->start] == 0xcc)
		a++;
	return a;
}

/* Decodes g's range; with hollow, the middle of each long run of int3 is
 * skipped (g->filler) instead. */
static int decode_all(struct cfg *g, struct decoder *d, const uint8_t *code, bool hollow)
{
	uint64_t a = g->start, run_end = g->start, skip = 0, skip_to = 0;

	while (a < g->end) {
		struct insn *in;

		if (GROW(g->insns, g->ninsn, g->capinsn, 1024))
			return -1;
		in = &g->insns[g->ninsn];
		if (decode_one(d, code + (a - g->start), (size_t)(g->end - a), a, in)) {
			g->bad_addr = a;
			break;
		}
		g->ninsn++;
		if (hollow && in->kind == IK_INT3 && in->len == 1 && a >= run_end &&
		    code[a - g->start] == 0xcc) {
			run_end = int3_run_end(g, code, in);
			if (run_end - a > CFG_FILLER_LONG) {
				skip = a + CFG_FILLER_KEEP;
				skip_to = run_end - CFG_FILLER_KEEP;
				if (GROW(g->filler, g->nfiller, g->capfiller, 4))
					return -1;
				g->filler[g->nfiller++] = (struct range){ skip, skip_to };
			}
		}
		a += in->len;
		if (a == skip)
			a = skip_to;
	}
	if (arch_info(decoder_arch(d))->mark_insns)
		arch_info(decoder_arch(d))->mark_insns(g->insns, g->ninsn);
	return 0;
}

static const struct cfg_table *table_of(const struct cfg *g, uint64_t jump)
{
	for (size_t i = 0; i < g->ntables; i++)
		if (g->tables[i].jump == jump)
			return &g->tables[i];
	return NULL;
}

static int collect_targets(struct cfg *g, const uint64_t *ext, size_t next)
{
	size_t n;

	for (size_t i = 0; i < g->ninsn; i++) {
		const struct insn *in = &g->insns[i];
		const struct cfg_table *t;

		/* jmp [table + reg*8] (br after a table dispatch on arm64):
		 * a switch whose targets no decoder sees, unless its table
		 * was read. A jmp through a register is a tail call in the
		 * x86 kernel (built with -fno-jump-tables), so it does not
		 * count. */
		if (in->table_jump && !(t = table_of(g, in->addr)))
			g->jump_table = true;
		else if (in->table_jump)
			for (size_t k = 0; k < t->n; k++) {
				if (GROW(g->targets, g->ntargets, g->captargets, 256))
					return -1;
				g->targets[g->ntargets++] = t->targets[k];
			}
		if (!insn_has_target(in) || in->target < g->start || in->target >= g->end)
			continue;
		if (GROW(g->targets, g->ntargets, g->captargets, 256))
			return -1;
		g->targets[g->ntargets++] = in->target;
	}
	for (size_t i = 0; i < next; i++) {
		if (ext[i] < g->start || ext[i] >= g->end)
			continue;
		if (GROW(g->targets, g->ntargets, g->captargets, 256))
			return -1;
		g->targets[g->ntargets++] = ext[i];
	}
	n = g->ntargets = u64_sort_unique(g->targets, g->ntargets);
	for (size_t i = 0; i < n && !g->misaligned; i++)
		if (cfg_insn_at(g, g->targets[i]) < 0 &&
		    (!g->bad_addr || g->targets[i] < g->bad_addr))
			g->misaligned = g->targets[i];
	return 0;
}

/* [lo, hi) is padding: the last run extended, or a new one. */
static int add_padding(struct cfg *g, uint64_t lo, uint64_t hi)
{
	if (g->npadding && g->padding[g->npadding - 1].end == lo) {
		g->padding[g->npadding - 1].end = hi;
		return 0;
	}
	if (GROW(g->padding, g->npadding, g->cappadding, 64))
		return -1;
	g->padding[g->npadding++] = (struct range){ lo, hi };
	return 0;
}

/* Splits the instruction stream into blocks and padding runs. */
static int split_blocks(struct cfg *g)
{
	bool reach_by_fall = true; /* the entry is reached */
	struct block *cur = NULL;

	for (size_t i = 0, f = 0; i < g->ninsn; i++) {
		const struct insn *in = &g->insns[i];
		bool tgt = cfg_is_target(g, in->addr);

		/* filler skipped before in: padding, as its int3s were */
		if (f < g->nfiller && g->filler[f].end == in->addr) {
			cur = NULL;
			if (add_padding(g, g->filler[f].start, g->filler[f].end))
				return -1;
			f++;
		}

		/* int3 is never meant to run, so an untargeted run of it is
		 * filler even after a call to a noreturn function; nops are
		 * filler only where nothing falls into them. */
		if (!tgt && (in->kind == IK_INT3 || (!reach_by_fall && in->nop))) {
			/* Dead filler: extend or open a padding run. */
			cur = NULL;
			if (add_padding(g, in->addr, in->addr + in->len))
				return -1;
			continue;
		}
		if (!cur || tgt) {
			if (GROW(g->blocks, g->nblocks, g->capblocks, 256))
				return -1;
			cur = &g->blocks[g->nblocks++];
			memset(cur, 0, sizeof(*cur));
			cur->start = in->addr;
			cur->first = (uint32_t)i;
			cur->targeted = tgt;
		}
		cur->count++;
		cur->end = in->addr + in->len;
		reach_by_fall = insn_falls_through(in);
		if (insn_ends_block(in))
			cur = NULL;
	}
	return 0;
}

static int link_blocks(struct cfg *g, const uint64_t *ext, size_t next)
{
	uint32_t *stack;
	size_t sp = 0;

	for (size_t b = 0; b < g->nblocks; b++) {
		const struct block *blk = &g->blocks[b];
		const struct insn *last = &g->insns[blk->first + blk->count - 1];

		g->blocks[b].edge_first = (uint32_t)g->nedges;
		if (insn_has_target(last) && last->kind != IK_CALL &&
		    last->target >= g->start && last->target < g->end) {
			ssize_t t = cfg_block_at(g, last->target);

			if (t >= 0 && g->blocks[t].start == last->target &&
			    add_edge(g, (uint32_t)b, (uint32_t)t,
				     last->kind == IK_JMP ? EDGE_JUMP : EDGE_TAKEN))
				return -1;
		}
		if (insn_falls_through(last) && b + 1 < g->nblocks &&
		    g->blocks[b + 1].start == blk->end &&
		    add_edge(g, (uint32_t)b, (uint32_t)b + 1, EDGE_FALL))
			return -1;
		if (last->table_jump) {
			const struct cfg_table *t = table_of(g, last->addr);

			for (size_t k = 0; t && k < t->n; k++) {
				ssize_t to = cfg_block_at(g, t->targets[k]);

				if (to >= 0 && g->blocks[to].start == t->targets[k] &&
				    add_edge(g, (uint32_t)b, (uint32_t)to, EDGE_JUMP))
					return -1;
			}
		}
		g->blocks[b].nsucc = (uint16_t)(g->nedges - g->blocks[b].edge_first);
	}
	for (size_t i = 0; i < next; i++) {
		ssize_t t = cfg_block_at(g, ext[i]);

		if (t >= 0 && g->blocks[t].start == ext[i] &&
		    add_edge(g, CFG_OUTSIDE, (uint32_t)t, EDGE_EXTERNAL))
			return -1;
	}
	/* Reachability from the entry and every external edge. */
	stack = malloc((g->nblocks + 1) * sizeof(*stack));
	if (!stack)
		return -1;
	if (g->nblocks && g->blocks[0].start == g->start) {
		g->blocks[0].reachable = 1;
		stack[sp++] = 0;
	}
	for (size_t i = 0; i < g->nedges; i++) {
		uint32_t t = g->edges[i].to;

		if (g->edges[i].from == CFG_OUTSIDE && !g->blocks[t].reachable) {
			g->blocks[t].reachable = 1;
			stack[sp++] = t;
		}
	}
	while (sp) {
		uint32_t b = stack[--sp];

		for (size_t i = 0; i < g->blocks[b].nsucc; i++) {
			const struct edge *ed = &g->edges[g->blocks[b].edge_first + i];

			if (g->blocks[ed->to].reachable)
				continue;
			g->blocks[ed->to].reachable = 1;
			stack[sp++] = ed->to;
		}
	}
	free(stack);
	return 0;
}

/* Whether a target lies in filler not decoded (targets are sorted). */
static bool targets_filler(const struct cfg *g)
{
	for (size_t i = 0; i < g->nfiller; i++) {
		size_t t = target_lower(g, g->filler[i].start);

		if (t < g->ntargets && g->targets[t] < g->filler[i].end)
			return true;
	}
	return false;
}

int cfg_build_tables(struct cfg *g, struct decoder *d, const uint8_t *code,
		     uint64_t start, uint64_t end, const uint64_t *ext, size_t next,
		     const struct cfg_table *tables, size_t ntables, struct gerr *e)
{
	int rc = 0;

	if (end <= start)
		return gerr_set(e, "empty function range");
	g->start = start;
	g->end = end;
	g->ninsn = g->nblocks = g->nedges = g->ntargets = g->npadding = g->nfiller = 0;
	g->bad_addr = g->misaligned = 0;
	g->jump_table = false;
	g->tables = tables;
	g->ntables = ntables;
	if (decode_all(g, d, code, true) || collect_targets(g, ext, next))
		rc = -1;
	else if (g->nfiller && targets_filler(g)) {
		/* something lands in the filler: it is code after all */
		g->ninsn = g->ntargets = g->nfiller = 0;
		g->bad_addr = g->misaligned = 0;
		g->jump_table = false;
		rc = decode_all(g, d, code, false) || collect_targets(g, ext, next) ? -1 : 0;
	}
	if (rc || split_blocks(g) || link_blocks(g, ext, next))
		rc = gerr_set(e, "out of memory");
	g->tables = NULL;
	g->ntables = 0;
	return rc;
}

int cfg_build(struct cfg *g, struct decoder *d, const uint8_t *code,
	      uint64_t start, uint64_t end, const uint64_t *ext, size_t next,
	      struct gerr *e)
{
	return cfg_build_tables(g, d, code, start, end, ext, next, NULL, 0, e);
}

int cfg_collect_targets(struct decoder *d, const uint8_t *code, uint64_t start,
			uint64_t end, uint64_t lo, uint64_t hi, uint64_t **out,
			size_t *n, size_t *cap)
{
	uint64_t a = start;
	struct insn in;

	while (a < end) {
		/* a byte that does not decode (data, an instruction Capstone
		 * lacks) is stepped over, as gilk.ko's scans do */
		if (decode_one(d, code + (a - start), (size_t)(end - a), a, &in)) {
			a++;
			continue;
		}
		a += in.len;
		if (!insn_has_target(&in) || in.kind == IK_CALL ||
		    in.target < lo || in.target >= hi)
			continue;
		if (GROW(*out, *n, *cap, 16))
			return -1;
		(*out)[(*n)++] = in.target;
	}
	return 0;
}
