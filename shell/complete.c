/*
 * Tab completion (see complete.h). Symbols come from the symbol table's
 * sorted name index, a binary search and a walk, so completion stays
 * immediate over 100k names; a list longer than COMPLETE_SYMBOLS_MAX is cut
 * and the cut is said.
 */
#include "complete.h"

#include <inttypes.h>
#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* readline's callbacks take no context: the session they complete for. */
static struct session *completing;

static void reset(struct session *s)
{
	for (size_t i = 0; i < s->nmatches; i++)
		free(s->matches[i]);
	s->nmatches = s->next = 0;
}

static void add(struct session *s, const char *word)
{
	char **m = realloc(s->matches, (s->nmatches + 1) * sizeof(*m));

	if (!m)
		return;
	s->matches = m;
	m[s->nmatches] = strdup(word);
	if (m[s->nmatches])
		s->nmatches++;
}

static char *generate(const char *text, int state)
{
	struct session *s = completing;

	(void)text;
	if (!state)
		s->next = 0;
	return s->next < s->nmatches ? strdup(s->matches[s->next++]) : NULL;
}

static void collect_symbols(struct session *s, const char *text)
{
	const char **names = malloc(COMPLETE_SYMBOLS_MAX * sizeof(*names));
	size_t total;

	if (!names)
		return;
	total = symtab_complete(s->k->syms, text, names, COMPLETE_SYMBOLS_MAX);
	for (size_t i = 0; i < total && i < COMPLETE_SYMBOLS_MAX; i++)
		add(s, names[i]);
	if (total > COMPLETE_SYMBOLS_MAX) {
		printf("\n[%zu symbols start with \"%s\": showing the first %d; type more]\n",
		       total, text, COMPLETE_SYMBOLS_MAX);
		rl_on_new_line();
	}
	free(names);
}

static void collect(struct session *s, enum complete_kind kind,
		    const char *const *words, const char *text)
{
	size_t len = strlen(text);
	struct gerr e;

	switch (kind) {
	case COMPLETE_COMMAND: {
		const struct command *c;

		for (size_t i = 0; (c = command_at(i)); i++)
			if (!strncmp(c->name, text, len))
				add(s, c->name);
		break;
	}
	case COMPLETE_SYMBOL:
		collect_symbols(s, text);
		break;
	case COMPLETE_WORDS:
		for (size_t i = 0; words && words[i]; i++)
			if (!strncmp(words[i], text, len))
				add(s, words[i]);
		break;
	case COMPLETE_SPLICE: {
		struct gilk_splice_info *all;
		size_t n;
		char id[16];

		if (!s->live || live_list(&s->lv, &all, &n, &e))
			break;
		if (!strncmp("all", text, len))
			add(s, "all");
		for (size_t i = 0; i < n; i++) {
			snprintf(id, sizeof(id), "%u", all[i].id);
			if (!strncmp(id, text, len))
				add(s, id);
		}
		free(all);
		break;
	}
	case COMPLETE_INSTRUMENT: {
		struct gilk_instrument_info *ins;
		size_t n;

		if (!s->live || live_instruments(&s->lv, &ins, &n, &e))
			break;
		for (size_t i = 0; i < n; i++)
			if (!strncmp(ins[i].name, text, len))
				add(s, ins[i].name);
		free(ins);
		break;
	}
	default:
		break;
	}
}

static char **attempt(const char *text, int start, int end)
{
	struct session *s = completing;
	char before[4096], *words[32];
	int n = 0;
	const struct command *c = NULL;
	enum complete_kind kind;

	(void)end;
	snprintf(before, sizeof(before), "%.*s", start, rl_line_buffer);
	for (char *tok = strtok(before, " \t"); tok && n < 32; tok = strtok(NULL, " \t"))
		if (strncmp(tok, "--", 2))	/* options do not count */
			words[n++] = tok;
	rl_attempted_completion_over = 1;
	reset(s);
	if (n == 0) {
		kind = COMPLETE_COMMAND;
	} else {
		c = command_find(words[0]);
		if (!c)
			return NULL;
		kind = n == 1 ? c->complete : c->complete2;
		if (kind == COMPLETE_PATH) {
			rl_attempted_completion_over = 0; /* readline's own */
			return NULL;
		}
	}
	collect(s, kind, c ? c->words : NULL, text);
	return s->nmatches ? rl_completion_matches(text, generate) : NULL;
}

void complete_init(struct session *s)
{
	completing = s;
	rl_readline_name = "gilk";
	rl_attempted_completion_function = attempt;
}
