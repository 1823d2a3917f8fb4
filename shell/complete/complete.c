/*
 * Tab completion (see complete.h). Symbols come from the symbol table's
 * sorted name index, a binary search and a walk, so completion stays
 * immediate over 100k names; a list longer than COMPLETE_SYMBOLS_MAX is cut
 * and the cut is said.
 */
#include "complete/complete.h"

#include <inttypes.h>
#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "session/lines.h"
#include "session/location.h"

/* The candidates of the last completion, and the next one readline takes. */
struct completion {
	char **matches;
	size_t n, next;
};

/* readline's callbacks take no context: the session they complete for. */
static struct session *completing;

static void reset(struct session *s)
{
	if (!s->tab)
		s->tab = calloc(1, sizeof(*s->tab));
	if (!s->tab)
		return;
	for (size_t i = 0; i < s->tab->n; i++)
		free(s->tab->matches[i]);
	s->tab->n = s->tab->next = 0;
}

static void add(struct session *s, const char *word)
{
	struct completion *t = s->tab;
	char **m = t ? realloc(t->matches, (t->n + 1) * sizeof(*m)) : NULL;

	if (!m)
		return;
	t->matches = m;
	m[t->n] = strdup(word);
	if (m[t->n])
		t->n++;
}

size_t complete_count(const struct session *s)
{
	return s->tab ? s->tab->n : 0;
}

const char *complete_match(const struct session *s, size_t i)
{
	return i < complete_count(s) ? s->tab->matches[i] : NULL;
}

void complete_free(struct session *s)
{
	reset(s);
	if (s->tab)
		free(s->tab->matches);
	free(s->tab);
	s->tab = NULL;
}

static char *generate(const char *text, int state)
{
	struct completion *t = completing->tab;

	(void)text;
	if (!t)
		return NULL;
	if (!state)
		t->next = 0;
	return t->next < t->n ? strdup(t->matches[t->next++]) : NULL;
}

static size_t collect_symbols(struct session *s, const char *text)
{
	const char **names = malloc(COMPLETE_SYMBOLS_MAX * sizeof(*names));
	size_t total;

	if (!names)
		return 0;
	total = symtab_complete(s->k->syms, text, names, COMPLETE_SYMBOLS_MAX);
	for (size_t i = 0; i < total && i < COMPLETE_SYMBOLS_MAX; i++)
		add(s, names[i]);
	free(names);
	return total;
}

/* "FUNC:" and part of a suffix: FUNC:entry, FUNC:exit, FUNC:blocks, FUNC:block. */
/* Splice ids that start with a prefix, as gilk.ko lists them in brief. */
struct id_prefix {
	struct session *s;
	const char *text;
	size_t len;
};

static int add_splice_id(void *ctx, const struct gilk_brief *b)
{
	const struct id_prefix *want = ctx;
	char id[16];

	snprintf(id, sizeof(id), "%u", b->id);
	if (!strncmp(id, want->text, want->len))
		add(want->s, id);
	return 0;
}

static void collect_suffixes(struct session *s, const char *text)
{
	const char *colon = strchr(text, ':');
	size_t flen = (size_t)(colon - text);
	char name[256], full[512];

	if (flen >= sizeof(name))
		return;
	snprintf(name, sizeof(name), "%.*s", (int)flen, text);
	if (!symtab_by_name(s->k->syms, name, NULL, 0))
		return;
	for (size_t i = 0; location_suffixes[i]; i++) {
		snprintf(full, sizeof(full), "%s%s", name, location_suffixes[i]);
		if (!strncmp(full, text, strlen(text)))
			add(s, full);
	}
}

/* Source files by a prefix of their path ("fs/na": fs/namei.c:), from the
 * line index when there is one; each ends in ':' for its line to follow. */
static void collect_files(struct session *s, const char *text)
{
	struct kernel_lines *kl;
	struct gerr e;
	size_t n = strlen(text);
	char full[1024];

	if (!n || strchr(text, ':') || lines_index(s, &kl, &e))
		return;
	for (uint32_t f = 1; f < lineindex_nfiles(kl->li) && complete_count(s) < COMPLETE_SYMBOLS_MAX; f++) {
		const char *name = lineindex_file_name(kl->li, f);

		if (name[0] != '/' && !strncmp(name, text, n)) {
			snprintf(full, sizeof(full), "%s:", name);
			add(s, full);
		}
	}
}

static void collect_words(struct session *s, const char *const *words, const char *text)
{
	size_t len = strlen(text);

	for (size_t i = 0; words && words[i]; i++)
		if (!strncmp(words[i], text, len))
			add(s, words[i]);
}

/* c's words: its subcommands' names, or its row's list (and the settings). */
static void collect_command_words(struct session *s, const struct command *c, const char *text)
{
	size_t len = strlen(text);

	if (c->complete == COMPLETE_SETTING)
		for (const struct setting *t = settings_table; t->name; t++)
			if (!strncmp(t->name, text, len))
				add(s, t->name);
	if (!c->subs) {
		collect_words(s, c->words, text);
		return;
	}
	for (const struct subcommand *u = c->subs; u->name; u++)
		if (!strncmp(u->name, text, len))
			add(s, u->name);
}

/* Returns the number of candidates in all (symbols may be cut). */
static size_t collect(struct session *s, enum complete_kind kind, const char *text)
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
		return collect_symbols(s, text);
	case COMPLETE_LOCATION:
		/* a symbol has no '/', a source file's path has (fs/namei.c:) */
		if (!strchr(text, ':') && strchr(text, '/')) {
			collect_files(s, text);
			return complete_count(s);
		}
		if (!strchr(text, ':'))
			return collect_symbols(s, text);
		collect_suffixes(s, text);
		break;
	case COMPLETE_SPLICE: {
		struct id_prefix want = { s, text, len };

		if (!s->live)
			break;
		if (!strncmp("all", text, len))
			add(s, "all");
		live_each_brief(&s->lv, add_splice_id, &want, &e);
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
	return complete_count(s);
}

long complete_candidates(struct session *s, const char *before, const char *text)
{
	char buf[4096], *words[32];
	int n = 0;
	const struct command *c = NULL;
	enum complete_kind kind;

	snprintf(buf, sizeof(buf), "%s", before);
	for (char *tok = strtok(buf, " \t"); tok && n < 32; tok = strtok(NULL, " \t"))
		if (strncmp(tok, "--", 2))	/* options do not count */
			words[n++] = tok;
	reset(s);
	if (n == 0) {
		kind = COMPLETE_COMMAND;
	} else {
		words[0][strcspn(words[0], "/")] = '\0';	/* x/4i is x */
		c = command_find(words[0]);
		if (!c)
			return 0;
		kind = n == 1 ? c->complete : c->complete2;
		if (kind == COMPLETE_PATH) {
			/* a path, or one of the command's words ("record stop") */
			if (n == 1)
				collect_command_words(s, c, text);
			return -1;
		}
		if (kind == COMPLETE_WORDS || kind == COMPLETE_SETTING) {
			collect_command_words(s, c, text);
			return (long)complete_count(s);
		}
	}
	return (long)collect(s, kind, text);
}

static char **attempt(const char *text, int start, int end)
{
	struct session *s = completing;
	char before[4096];
	long total;

	(void)end;
	snprintf(before, sizeof(before), "%.*s", start, rl_line_buffer);
	rl_attempted_completion_over = 1;
	total = complete_candidates(s, before, text);
	if (total < 0 && !complete_count(s)) {
		rl_attempted_completion_over = 0; /* readline's own: file names */
		return NULL;
	}
	if (total > COMPLETE_SYMBOLS_MAX) {
		printf("\n[%ld symbols start with \"%s\": showing the first %d; type more]\n",
		       total, text, COMPLETE_SYMBOLS_MAX);
		rl_on_new_line();
	}
	/* FILE: waits for its line, with no blank after it */
	if (complete_count(s) == 1 && s->tab->matches[0][strlen(s->tab->matches[0]) - 1] == ':')
		rl_completion_append_character = '\0';
	return complete_count(s) ? rl_completion_matches(text, generate) : NULL;
}

void complete_init(struct session *s)
{
	completing = s;
	rl_readline_name = "gilk";
	rl_attempted_completion_function = attempt;
}
