/* blocks: a function's basic blocks, edges, and whether each can be spliced. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cfg_dot.h"
#include "commands.h"
#include "verdict.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	const struct ksym *sym;
	uint64_t addr;
	size_t nok = 0, nbounce = 0;
	const struct cfg *gp = &s->cfg;
	struct gerr pe;

	bool dot = argc >= 2 && !strcmp(argv[1], "--dot");

	if (argc != 2 + dot)
		return command_usage(&cmd_blocks, e);
	if (session_resolve(s, argv[1 + dot], &addr, e) || session_cfg(s, addr, &sym, e))
		return -1;
	/* Planning below uses its own windows; s->cfg stays this function. */
#define g (*gp)
	session_splices_refresh(s);
	if (dot) {
		cfg_dot(s->out, s, gp, addr == gp->start ? argv[2] : sym->name);
		return 0;
	}
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
		if (!bl->nsucc && session_warn_resume(s, gp, bl) >= 0)
			snprintf(succ, sizeof(succ), "%zd", session_warn_resume(s, gp, bl));
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
	.min_args = 1,
	.max_args = 2,
	.usage = "blocks [--dot] FUNCTION",
	.help = "Lists FUNCTION's basic blocks: offset, size, instructions, successor\n"
		"blocks (\"exit\" when control leaves; after a WARN(), where it goes\n"
		"on), and how a splice there would go: a jmp, a bounce (through\n"
		"padding, a splice's dead tail, or an evicted neighbour), why it is\n"
		"refused, or which splice is already there. Blocks that start with an\n"
		"ftrace call site are spliced past it; a BUG()/WARN() ud2 is replayed.\n"
		"--dot: the graph in Graphviz's dot language instead (\"> FILE\" to keep\n"
		"it): each block's instructions and verdict, taken branches labelled,\n"
		"entries from outside dashed; live, spliced blocks coloured by hits.",
	.complete = COMPLETE_SYMBOL,
};
