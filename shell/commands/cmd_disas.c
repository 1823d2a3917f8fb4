/* disas: disassemble kernel code, marking block starts and padding. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "session/lines.h"
#include "session/location.h"
#include "output/code_text.h"

static int parse_count(const char *s, size_t *n, struct gerr *e)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || v == 0 || v > 100000)
		return gerr_set(e, "'%s' is not a count (1 to 100000)", s);
	*n = v;
	return 0;
}

/* disas /s: the source line an instruction's code comes from, when it
 * differs from the last one shown; lines skipped since the last in the same
 * file are shown too when they are few (the statements between), as gdb's. */
struct source_mode {
	bool raw;		/* /r: every byte of each instruction, not the first 8 */
	bool on;
	uint32_t file, line;
};

static void show_source(struct session *s, struct source_mode *m, uint64_t addr)
{
	struct kernel_lines *kl;
	const struct source_text *t;
	struct line_row r;
	uint32_t from;
	char text[4096];
	struct gerr e;

	if (lines_index(s, &kl, &e) || kernel_lines_row_at(kl, addr, &r) < 0 ||
	    (r.file == m->file && r.line == m->line))
		return;
	from = r.file == m->file && r.line > m->line && r.line - m->line <= 4 ? m->line + 1 : r.line;
	if (r.file != m->file)
		fprintf(s->out, "%s:\n", lineindex_file_name(kl->li, r.file));
	m->file = r.file;
	m->line = r.line;
	if (lines_source(s, r.file, &t, &e)) {
		fprintf(s->out, "%u\t(source not at hand: %s)\n", r.line, e.msg);
		return;
	}
	for (uint32_t n = from; n <= r.line; n++) {
		lines_text(t, n, text, sizeof(text));
		fprintf(s->out, "%u\t%s\n", n, text);
	}
}

/* (as last read: session_splices_refresh) */
/* Prints count instructions of g from index first; returns the index after. */
static size_t show(struct session *s, const struct cfg *g, const struct ksym *sym,
		   size_t first, size_t count, struct source_mode *m)
{
	size_t i;

	for (i = first; i < g->ninsn && count && !session_interrupted(s); i++, count--) {
		const struct insn *in = &g->insns[i];
		char text[512], bytes[3 * 16 + 1] = "", spliced[48] = "";
		unsigned most = m->raw ? 15 : 8;
		uint32_t id = session_splice_at(s, in->addr);
		ssize_t b = cfg_block_at(g, in->addr);
		char mark = b < 0 ? '-' : g->blocks[b].start == in->addr ? '>' : ' ';

		if (i > first && g->insns[i - 1].addr + g->insns[i - 1].len < in->addr)
			fprintf(s->out, "- (%" PRIu64 " more bytes of int3 filler)\n",
				in->addr - g->insns[i - 1].addr - g->insns[i - 1].len);
		if (m->on)
			show_source(s, m, in->addr);
		for (unsigned k = 0; k < in->len && k < most; k++)
			snprintf(bytes + 3 * k, sizeof(bytes) - 3 * k, "%02x ", in->bytes[k]);
		code_text_insn(s, in, text, sizeof(text));
		if (id)
			snprintf(spliced, sizeof(spliced), "   [splice %u: %" PRIu64 " hits]", id,
				 session_splice_hits(s, id));
		fprintf(s->out, "%c 0x%016" PRIx64 " <%s+%" PRIu64 ">: %-*s %s%s\n", mark,
			in->addr, sym->name, in->addr - g->start, m->raw ? 45 : 24, bytes, text,
			spliced);
	}
	return i;
}

/* FUNC:exit: each return point's instruction; FUNC:entry and FUNC:block N:
 * from the site, the block's instructions unless COUNT says. */
static int show_location(struct session *s, const struct location *loc, size_t count,
			 const struct ksym *sym, struct source_mode *m, struct gerr *e)
{
	const struct cfg *g = &s->cfg;
	struct loc_site *sites;
	size_t n;

	if (location_sites(s, loc, &sites, &n, NULL, e))
		return -1;
	session_splices_refresh(s);
	for (size_t k = 0; k < n && !session_interrupted(s); k++) {
		const struct block *bl = &g->blocks[sites[k].block];
		ssize_t first = cfg_insn_at(g, sites[k].site);
		size_t left = bl->first + bl->count - (size_t)first;

		if (first >= 0)
			show(s, g, sym, (size_t)first, count ? count : loc->kind == LOC_EXIT ? 1 : left, m);
	}
	free(sites);
	return 0;
}

static int disas_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	const struct ksym *sym;
	struct location loc;
	uint64_t addr;
	size_t count = 0;
	ssize_t first;
	char where[160];
	const struct cfg *g = &s->cfg;
	struct source_mode m = { 0 };
	const char *mod = strchr(argv[0], '/');

	/* gdb's modifier, after the name or as the first word: disas /s */
	if (!mod && argc > 2 && argv[1][0] == '/') {
		mod = argv[1];
		argv++;
		argc--;
	}
	/* gdb's /s, /r and both */
	if (mod && (strspn(mod + 1, "rs") != strlen(mod + 1) || !mod[1]))
		return gerr_set(e, "disas takes /s (source lines between the instructions) and /r "
				"(every byte of each instruction), not %s", mod);
	m.raw = mod && strchr(mod, 'r');
	if (mod && strchr(mod, 's')) {
		struct kernel_lines *kl;

		if (lines_index(s, &kl, e))
			return -1;
		m.on = true;
	}
	if (argc < 2)
		return command_usage(&cmd_disas, e);
	if (argc > 2 + location_nwords(argv[1]))
		return command_usage(&cmd_disas, e);
	if (location_parse(s, argv + 1, argc - 1, &loc, e))
		return -1;
	addr = loc.addr;
	if ((argc == 2 + loc.words && parse_count(argv[1 + loc.words], &count, e)) ||
	    session_cfg(s, addr, &sym, e))
		return -1;
	/* Label with the name given, where it names this function's start
	 * (several names share an address: __x64_sys_X, __ia32_sys_X, ...). */
	{
		char name[256];
		const struct ksym *given;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(loc.func, "+"), loc.func);
		if (symtab_by_name(s->k->syms, name, &given, 1) == 1 && given->addr == g->start)
			sym = given;
	}
	if (loc.kind != LOC_ADDR && loc.kind != LOC_BLOCKS)
		return show_location(s, &loc, count, sym, &m, e);
	if (loc.kind == LOC_BLOCKS)
		addr = g->start;
	first = cfg_insn_at(g, addr);
	if (first < 0) {
		ssize_t in = cfg_insn_containing(g, addr);

		session_where(s, addr, where, sizeof(where));
		for (size_t f = 0; in < 0 && f < g->nfiller; f++)
			if (addr >= g->filler[f].start && addr < g->filler[f].end)
				return gerr_set(e, "%s is int3 filler, as is all of +0x%" PRIx64
						" to +0x%" PRIx64 " (disas 0x%" PRIx64 " shows its end)",
						where, g->filler[f].start - g->start,
						g->filler[f].end - g->start, g->filler[f].end);
		if (in < 0)
			return gerr_set(e, "%s does not decode", where);
		return gerr_set(e, "%s is inside the instruction at +0x%" PRIx64 " (%u bytes)",
				where, g->insns[in].addr - g->start, g->insns[in].len);
	}
	if (!count)
		count = addr == g->start ? g->ninsn : s->set.listsize;
	session_splices_refresh(s);
	size_t i = show(s, g, sym, (size_t)first, count, &m);

	if (g->bad_addr && i == g->ninsn)
		fprintf(s->out, "  (bytes from 0x%" PRIx64 " on do not decode)\n", g->bad_addr);
	/* Enter goes on where this stopped: the next function past the end. */
	else
		snprintf(s->repeat, sizeof(s->repeat), "disas%s%s%s 0x%" PRIx64,
			 m.on || m.raw ? " /" : "", m.raw ? "r" : "", m.on ? "s" : "",
			 i < g->ninsn ? g->insns[i].addr : g->end);
	return 0;
}

const struct command cmd_disas = {
	.name = "disas",
	.group = GROUP_CODE,
	.run = disas_command,
	.min_args = 1,
	.max_args = 4,
	.flags = CMD_FORMAT,
	.usage = "disas [/rs] LOCATION [COUNT]",
	.help = "Disassembles COUNT instructions from LOCATION; a function's start with\n"
		"no COUNT shows the whole function (elsewhere, \"set listsize\" many,\n"
		"16 unless set). FUNC:entry and FUNC:block N show that block (from\n"
		"its splice site), FUNC:exit each return point's instruction,\n"
		"FUNC:blocks the whole function. '>' marks the first instruction of\n"
		"a basic block, '-' dead padding (a bounce may use it). Live, the code\n"
		"shown is the original, as gilk plans from it, and \"[splice N: H hits]\" marks\n"
		"where splice N is, with its hits; \"x\" shows the bytes as they are now.\n"
		"disas /s: the source lines the code comes from between the instructions\n"
		"(from the kernel's line index, as \"list\" reads them); /r: every byte\n"
		"of each instruction (without it, the first 8).",
	.complete = COMPLETE_LOCATION,
};
