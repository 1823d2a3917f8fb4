/* Control flow graphs as dot (see cfg_dot.h). */
#include "output/cfg_dot.h"

#include <inttypes.h>
#include <string.h>

#include "output/code_text.h"
#include "plan/verdict.h"

/* Text inside a dot string: quotes and backslashes escaped. */
static void dot_text(FILE *out, const char *t)
{
	for (; *t; t++) {
		if (*t == '"' || *t == '\\')
			fputc('\\', out);
		fputc(*t, out);
	}
}

static uint64_t hits_at(const struct session *s, uint64_t site, uint32_t *id)
{
	for (size_t i = 0; i < s->nmarks; i++)
		if (s->marks[i].site == site) {
			*id = s->marks[i].id;
			return s->marks[i].hits;
		}
	*id = 0;
	return 0;
}

static void block_node(FILE *out, struct session *s, const struct cfg *g, size_t b,
		       uint64_t max)
{
	const struct block *bl = &g->blocks[b];
	uint64_t site = session_block_site(s, bl->start);
	uint32_t id;
	uint64_t hits = hits_at(s, site, &id);
	char text[512];

	fprintf(out, "  b%zu [label=\"block %zu  +0x%" PRIx64 "\\l", b, b, bl->start - g->start);
	for (uint32_t i = bl->first; i < bl->first + bl->count; i++) {
		code_text_insn(s, &g->insns[i], text, sizeof(text));
		fprintf(out, "  +0x%" PRIx64 "  ", g->insns[i].addr - g->start);
		dot_text(out, text);
		fprintf(out, "\\l");
	}
	if (id) {
		fprintf(out, "splice %u: %" PRIu64 " hits\\l\"", id, hits);
		/* white to red with the share of the hottest block's hits */
		fprintf(out, ", style=filled, fillcolor=\"0.0 %.3f 1.0\"",
			max ? (double)hits / (double)max : 0.0);
	} else {
		struct splice_plan p;
		struct gerr e;
		int ok = session_plan(s, site, 0, &p, &e) == 0;

		char past[96];

		plan_verdict(&p, ok, text, sizeof(text));
		site_note(g, s->k->dec, bl->start, site, past, sizeof(past));
		fprintf(out, "%s", past);
		dot_text(out, text);
		fprintf(out, "\\l\"%s", ok ? "" : ", style=dashed, color=gray50");
	}
	fprintf(out, "];\n");
}

void cfg_dot(FILE *out, struct session *s, const struct cfg *g, const char *name)
{
	uint64_t max = 0;
	bool outside = false;

	for (size_t b = 0; b < g->nblocks; b++) {
		uint32_t id;
		uint64_t h = hits_at(s, session_block_site(s, g->blocks[b].start), &id);

		max = h > max ? h : max;
	}
	fprintf(out, "digraph \"");
	dot_text(out, name);
	fprintf(out, "\" {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
		"  label=\"");
	dot_text(out, name);
	fprintf(out, " (%zu blocks)\";\n", g->nblocks);
	for (size_t b = 0; b < g->nblocks; b++)
		block_node(out, s, g, b, max);
	for (size_t i = 0; i < g->nedges; i++) {
		const struct edge *ed = &g->edges[i];

		if (ed->from == CFG_OUTSIDE) {
			if (!outside)
				fprintf(out, "  outside [label=\"from outside the function\\n"
					"(.cold parts, jump labels, fixups, WARN returns)\", shape=plaintext];\n");
			outside = true;
			fprintf(out, "  outside -> b%u [style=dashed];\n", ed->to);
		} else {
			fprintf(out, "  b%u -> b%u%s;\n", ed->from, ed->to,
				ed->kind == EDGE_TAKEN ? " [label=\"taken\"]" : "");
		}
	}
	for (size_t b = 0; b < g->nblocks; b++) {
		ssize_t next = g->blocks[b].nsucc ? -1 : session_warn_resume(s, g, &g->blocks[b]);

		if (next >= 0)
			fprintf(out, "  b%zu -> b%zd [style=dashed, label=\"after WARN\"];\n", b, next);
	}
	fprintf(out, "}\n");
}
