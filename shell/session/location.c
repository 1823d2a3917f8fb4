/* Locations: addresses and a function's entry, exits and blocks (see location.h). */
#include "session/location.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *const location_suffixes[] = { ":entry", ":exit", ":blocks", ":block", NULL };

static int parse_block_number(const char *text, size_t *n, struct gerr *e)
{
	char *end;
	unsigned long v;

	if (!text || !*text)
		return gerr_set(e, "FUNC:block needs a block number, as \"blocks FUNC\" numbers them: FUNC:block N");
	v = strtoul(text, &end, 10);
	if (*end || text[0] == '-')
		return gerr_set(e, "'%s' is not a block number", text);
	*n = v;
	return 0;
}

int location_nwords(const char *word)
{
	size_t n = strlen(word);

	return n > 6 && !strcmp(word + n - 6, ":block") ? 2 : 1;
}

int location_parse(struct session *s, char *const *words, int nwords,
		   struct location *loc, struct gerr *e)
{
	const char *w = words[0], *colon = strchr(w, ':');
	const char *suffix;

	memset(loc, 0, sizeof(*loc));
	loc->words = 1;
	if (!colon) {
		loc->kind = LOC_ADDR;
		snprintf(loc->func, sizeof(loc->func), "%s", w);
		return session_resolve(s, w, &loc->addr, e);
	}
	if ((size_t)(colon - w) >= sizeof(loc->func))
		return gerr_set(e, "'%s': the name is too long", w);
	snprintf(loc->func, sizeof(loc->func), "%.*s", (int)(colon - w), w);
	suffix = colon + 1;
	if (!strcmp(suffix, "entry")) {
		loc->kind = LOC_ENTRY;
	} else if (!strcmp(suffix, "exit")) {
		loc->kind = LOC_EXIT;
	} else if (!strcmp(suffix, "blocks")) {
		loc->kind = LOC_BLOCKS;
	} else if (!strncmp(suffix, "block", 5) && (suffix[5] == '\0' || suffix[5] == ' ')) {
		loc->kind = LOC_BLOCK;
		if (suffix[5] == ' ') {
			if (parse_block_number(suffix + 6, &loc->block, e))
				return -1;
		} else {
			if (parse_block_number(nwords > 1 ? words[1] : NULL, &loc->block, e))
				return -1;
			loc->words = 2;
		}
	} else {
		return gerr_set(e, "'%s': after FUNC, a location takes :entry, :exit, :blocks or :block N", w);
	}
	if (!loc->func[0])
		return gerr_set(e, "'%s': no function before the colon", w);
	return session_resolve(s, loc->func, &loc->addr, e);
}

int location_is_single(const struct location *loc)
{
	return loc->kind == LOC_ADDR || loc->kind == LOC_ENTRY || loc->kind == LOC_BLOCK;
}

static int push(struct loc_site **out, size_t *n, size_t *cap, struct loc_site x)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct loc_site *p = realloc(*out, c * sizeof(*p));

		if (!p)
			return -1;
		*out = p;
		*cap = c;
	}
	(*out)[(*n)++] = x;
	return 0;
}

/* A block's splice site: past ftrace (and endbr64) where the block starts
 * one; an exit's is its own instruction, unless that starts the block. */
static uint64_t site_of(struct session *s, const struct cfg *g, size_t b, uint64_t at)
{
	return at == g->blocks[b].start ? session_block_site(s, at) : at;
}

int location_sites(struct session *s, const struct location *loc,
		   struct loc_site **out, size_t *n, size_t *nconditional,
		   struct gerr *e)
{
	const struct ksym *sym;
	const struct cfg *g = &s->cfg;
	size_t cap = 0, cond = 0;

	*out = NULL;
	*n = 0;
	if (session_cfg(s, loc->addr, &sym, e))
		return -1;
	switch (loc->kind) {
	case LOC_ADDR:
		return gerr_set(e, "%s names one address, not a function's sites", loc->func);
	case LOC_ENTRY:
		if (!g->nblocks || g->blocks[0].start != g->start)
			return gerr_set(e, "%s has no entry block (its first bytes do not decode)",
					sym->name);
		if (push(out, n, &cap, (struct loc_site){ site_of(s, g, 0, g->start), 0, { 0 } }))
			goto oom;
		break;
	case LOC_BLOCK:
		if (loc->block >= g->nblocks)
			return gerr_set(e, "%s has %zu blocks (0 to %zu), not block %zu", sym->name,
					g->nblocks, g->nblocks - 1, loc->block);
		if (push(out, n, &cap, (struct loc_site){
				 site_of(s, g, loc->block, g->blocks[loc->block].start), loc->block, { 0 } }))
			goto oom;
		break;
	case LOC_BLOCKS:
		for (size_t b = 0; b < g->nblocks; b++)
			if (push(out, n, &cap, (struct loc_site){
					 site_of(s, g, b, g->blocks[b].start), b, { 0 } }))
				goto oom;
		break;
	case LOC_EXIT:
		for (size_t b = 0; b < g->nblocks; b++) {
			struct block_exit x = exit_of_block(g, b, s->k->syms);

			cond += x.kind == EXIT_CONDITIONAL;
			if (exit_is_return_point(x.kind) &&
			    push(out, n, &cap, (struct loc_site){ site_of(s, g, b, x.addr), b, x }))
				goto oom;
		}
		if (nconditional)
			*nconditional = cond;
		if (!*n)
			return gerr_set(e, "%s has no return point: it never returns%s", sym->name,
					cond ? " unconditionally (only through a jcc)" : "");
		break;
	}
	return 0;
oom:
	free(*out);
	*out = NULL;
	return gerr_set(e, "out of memory");
}
