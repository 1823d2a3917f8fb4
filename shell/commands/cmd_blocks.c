/* blocks: a function's basic blocks, edges, and whether each can be spliced. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "output/cfg_dot.h"
#include "commands/commands.h"
#include "session/lines.h"
#include "session/location.h"
#include "plan/verdict.h"

/* Whether block b is one loc names (a function names all of them). */
static bool selected(const struct location *loc, const struct block_exit *x, size_t b)
{
	switch (loc->kind) {
	case LOC_ENTRY: return b == 0;
	case LOC_BLOCK: return b == loc->block;
	case LOC_EXIT: return exit_is_return_point(x->kind) || x->kind == EXIT_CONDITIONAL;
	default: return true;
	}
}

/* How the block leaves the function, after its verdict: where a FUNC:exit
 * splice goes and how it would go, or why the block is not an exit. */
static void exit_note(struct session *s, const struct block *bl, const struct block_exit *x,
		      char *buf, size_t len)
{
	const struct cfg *g = &s->cfg;
	char to[160] = "", verdict[160];
	struct splice_plan p;
	struct gerr pe;

	buf[0] = '\0';
	if (x->target)
		symtab_format(s->k->syms, x->target, to, sizeof(to));
	switch (x->kind) {
	case EXIT_RET: case EXIT_RETURN_THUNK: case EXIT_TAIL_CALL: case EXIT_TAIL_INDIRECT:
		if (x->addr == bl->start) {
			snprintf(buf, len, "  [exit: %s%s%s]", exit_kind_str(x->kind),
				 x->kind == EXIT_TAIL_CALL ? " to " : "", x->kind == EXIT_TAIL_CALL ? to : "");
			return;
		}
		plan_verdict(&p, session_plan(s, x->addr, 0, &p, &pe) == 0, verdict, sizeof(verdict));
		snprintf(buf, len, "  [exit: %s%s%s at +0x%" PRIx64 ", %s]", exit_kind_str(x->kind),
			 x->kind == EXIT_TAIL_CALL ? " to " : "", x->kind == EXIT_TAIL_CALL ? to : "",
			 x->addr - g->start, verdict);
		return;
	case EXIT_CONDITIONAL:
		snprintf(buf, len, "  [conditional exit at +0x%" PRIx64 " to %s: not a return point]",
			 x->addr - g->start, to);
		return;
	case EXIT_NORETURN:
		snprintf(buf, len, "  [calls %s, which does not return: not an exit]",
			 to[0] ? to : "through a pointer");
		return;
	case EXIT_COLD:
		snprintf(buf, len, "  [goes on in %s: not an exit]", to);
		return;
	default:
		return;
	}
}

static int blocks_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	const struct ksym *sym;
	struct location loc;
	size_t nok = 0, nbounce = 0, nshown = 0;
	const struct cfg *gp = &s->cfg;
	struct gerr pe;

	bool dot = argc >= 2 && !strcmp(argv[1], "--dot");
	bool with_lines;

	if (argc < 2 + dot || argc > 1 + dot + location_nwords(argv[1 + dot]))
		return command_usage(&cmd_blocks, e);
	if (location_parse(s, argv + 1 + dot, argc - 1 - dot, &loc, e))
		return -1;
	if (session_cfg(s, loc.addr, &sym, e))
		return -1;
	if (loc.kind == LOC_BLOCK && loc.block >= gp->nblocks)
		return gerr_set(e, "%s has %zu blocks (0 to %zu), not block %zu", sym->name,
				gp->nblocks, gp->nblocks - 1, loc.block);
	/* Planning below uses its own windows; s->cfg stays this function. */
#define g (*gp)
	session_splices_refresh(s);
	if (dot) {
		cfg_dot(s->out, s, gp, loc.addr == gp->start ? loc.func : sym->name);
		return 0;
	}
	/* each block's source lines, when the kernel's line index is at hand */
	with_lines = lines_have(s);
	fprintf(s->out, "%s: %zu bytes, %zu instructions, %zu blocks%s%s\n", sym->name,
		(size_t)(g.end - g.start), cfg_insn_count(&g), g.nblocks,
		g.jump_table ? ", jumps through a table" : "",
		g.misaligned ? ", branches into an instruction" : "");
	for (size_t b = 0; b < g.nblocks; b++) {
		const struct block *bl = &g.blocks[b];
		struct block_exit x = exit_of_block(gp, b, s->k->syms);
		struct splice_plan p;
		char succ[64] = "", verdict[160], note[320], past[96], src[200] = "";
		size_t used = 0;
		uint64_t site;
		uint32_t id;
		int ok;

		if (!selected(&loc, &x, b))
			continue;
		site = session_block_site(s, bl->start);
		id = session_splice_at(s, site);
		ok = id ? 1 : session_plan(s, site, 0, &p, &pe) == 0;
		/* a switch's block may have hundreds: as many as fit, then
		 * how many in all */
		for (unsigned k = 0; k < bl->nsucc; k++) {
			int w = snprintf(succ + used, sizeof(succ) - used, "%s%u", k ? "," : "",
					 g.edges[bl->edge_first + k].to);

			if (w < 0 || used + (size_t)w >= sizeof(succ) - 16) {
				snprintf(succ + used, sizeof(succ) - used, ",... (%u)", bl->nsucc);
				break;
			}
			used += (size_t)w;
		}
		if (!bl->nsucc && session_warn_resume(s, gp, bl) >= 0)
			snprintf(succ, sizeof(succ), "%zd", session_warn_resume(s, gp, bl));
		else if (!bl->nsucc && !exit_is_return_point(x.kind))
			snprintf(succ, sizeof(succ), "%s", x.kind == EXIT_NORETURN ? "noreturn" :
				 x.kind == EXIT_COLD ? "cold" : x.kind == EXIT_BUG ? "trap" : "none");
		if (id) {
			snprintf(verdict, sizeof(verdict), "spliced (splice %u: %" PRIu64 " hits)", id,
				 session_splice_hits(s, id));
		} else {
			plan_verdict(&p, ok, verdict, sizeof(verdict));
			nbounce += ok && p.mode == SPLICE_BOUNCE;
		}
		exit_note(s, bl, &x, note, sizeof(note));
		site_note(gp, s->k->dec, bl->start, site, past, sizeof(past));
		nok += ok;
		nshown++;
		if (with_lines)
			lines_span(s, bl->start, bl->end, true, src, sizeof(src));
		fprintf(s->out, "%4zu  +0x%-5" PRIx64 " %4u bytes %3u insns  -> %-8s %s%s%s%s%s\n", b,
			bl->start - g.start, (unsigned)(bl->end - bl->start), bl->count,
			succ[0] ? succ : "exit", past, verdict,
			note, src[0] ? "  lines " : "", src);
	}
	fprintf(s->out, "%zu of %zu blocks spliceable or spliced (%zu more through a bounce)\n",
		nok, nshown, nbounce);
#undef g
	return 0;
}

const struct command cmd_blocks = {
	.name = "blocks",
	.group = GROUP_CODE,
	.run = blocks_command,
	.min_args = 1,
	.max_args = 3,
	.usage = "blocks [--dot] LOCATION",
	.help = "Lists the basic blocks of LOCATION's function (FUNC:entry, FUNC:exit,\n"
		"FUNC:block N: only those): offset, size, instructions, successor\n"
		"blocks (\"exit\" when control returns, \"noreturn\" after a call that\n"
		"never returns, \"cold\" into the .cold part; after a WARN(), where it\n"
		"goes on), and how a splice there would go: a jmp, a bounce (through\n"
		"padding, a splice's dead tail, or an evicted neighbour) or a trap,\n"
		"with \"region N bytes\", the instructions it moves to the trampoline;\n"
		"why it is refused; or which splice is already there, with its hits.\n"
		"Blocks that start with an ftrace call site are spliced past it; a\n"
		"BUG()/WARN() ud2 is replayed. With the kernel's line index at hand\n"
		"(docs/kernels.md), \"lines\" ends each row: the source lines its code\n"
		"comes from, file by file (inlined code names its own file).\n"
		"[exit: ...] says what a FUNC:exit splice splices there (ret, return\n"
		"thunk, tail call) and how; a noreturn call's block is not an exit, nor\n"
		"is a conditional jump out of the function (said as such).\n"
		"--dot: the graph in Graphviz's dot language instead (\"> FILE\" to keep\n"
		"it): each block's instructions and verdict, taken branches labelled,\n"
		"entries from outside dashed; live, spliced blocks coloured by hits.",
	.complete = COMPLETE_LOCATION,
};
