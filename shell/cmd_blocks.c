/* blocks: a function's basic blocks, edges, and whether each can be spliced. */
#include <inttypes.h>
#include <stdio.h>

#include "commands.h"
#include "verdict.h"

/* A WARN()'s ud2 ends its block, and the trap handler resumes after it:
 * that block is the successor no decoder sees. */
static void warn_resume(struct session *s, const struct cfg *g,
			const struct block *bl, char *succ, size_t len)
{
	const struct insn *last = &g->insns[bl->first + bl->count - 1];
	ssize_t next;

	if (last->kind != IK_UD2 || !s->k->facts ||
	    textfacts_bug(s->k->facts, last->addr) != BUG_WARN)
		return;
	next = cfg_block_at(g, last->addr + last->len);
	if (next >= 0 && g->blocks[next].start == last->addr + last->len)
		snprintf(succ, len, "%zd", next);
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	const struct ksym *sym;
	uint64_t addr;
	size_t nok = 0, nbounce = 0;
	const struct cfg *gp = &s->cfg;
	struct gerr pe;

	if (argc != 2)
		return gerr_set(e, "usage: %s", cmd_blocks.usage);
	if (session_resolve(s, argv[1], &addr, e) || session_cfg(s, addr, &sym, e))
		return -1;
	/* Planning below uses its own windows; s->cfg stays this function. */
#define g (*gp)
	session_splices_refresh(s);
	fprintf(s->out, "%s: %zu bytes, %zu instructions, %zu blocks%s%s\n", sym->name,
		(size_t)(g.end - g.start), g.ninsn, g.nblocks,
		g.jump_table ? ", jumps through a table" : "",
		g.misaligned ? ", branches into an instruction" : "");
	for (size_t b = 0; b < g.nblocks; b++) {
		const struct block *bl = &g.blocks[b];
		struct splice_plan p;
		char succ[64] = "", verdict[160];
		size_t used = 0;
		uint64_t site = session_block_site(s, bl->start);
		uint32_t id = session_splice_at(s, site);
		int ok = id ? 1 : session_plan(s, site, 0, &p, &pe) == 0;

		for (unsigned k = 0; k < bl->nsucc; k++)
			used += (size_t)snprintf(succ + used, sizeof(succ) - used, "%s%u",
						 k ? "," : "", g.edges[bl->edge_first + k].to);
		if (!bl->nsucc)
			warn_resume(s, &g, bl, succ, sizeof(succ));
		if (id) {
			snprintf(verdict, sizeof(verdict), "spliced (splice %u)", id);
		} else {
			plan_verdict(&p, ok, verdict, sizeof(verdict));
			nbounce += ok && p.mode == SPLICE_BOUNCE;
		}
		nok += ok;
		fprintf(s->out, "%4zu  +0x%-5" PRIx64 " %4u bytes %3u insns  -> %-8s %s%s\n", b,
			bl->start - g.start, (unsigned)(bl->end - bl->start), bl->count,
			succ[0] ? succ : "exit", site != bl->start ? "(past ftrace) " : "", verdict);
	}
	fprintf(s->out, "%zu of %zu blocks spliceable or spliced (%zu more through a bounce)\n",
		nok, g.nblocks, nbounce);
#undef g
	return 0;
}

const struct command cmd_blocks = {
	.name = "blocks",
	.run = run,
	.usage = "blocks FUNCTION",
	.help = "Lists FUNCTION's basic blocks: offset, size, instructions, successor\n"
		"blocks (\"exit\" when control leaves; after a WARN(), where it goes\n"
		"on), and how a splice there would go: a jmp, a bounce (through\n"
		"padding, a splice's dead tail, or an evicted neighbour), why it is\n"
		"refused, or which splice is already there. Blocks that start with an\n"
		"ftrace call site are spliced past it; a BUG()/WARN() ud2 is replayed.",
	.complete = COMPLETE_SYMBOL,
};
