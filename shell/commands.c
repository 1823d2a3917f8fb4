/* The command table and line dispatch (see commands.h). */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "parse.h"

static const struct command *const table[] = {
	&cmd_help, &cmd_disas, &cmd_blocks, &cmd_plan, &cmd_splice,
	&cmd_unsplice, &cmd_info, &cmd_events, &cmd_hist, &cmd_dump, &cmd_x, &cmd_set,
	&cmd_show, &cmd_source, &cmd_quit,
};

const struct command *command_at(size_t i)
{
	return i < sizeof(table) / sizeof(table[0]) ? table[i] : NULL;
}

const struct command *command_find(const char *name)
{
	const struct command *c, *prefix = NULL;
	size_t n = strlen(name), matches = 0;

	for (size_t i = 0; (c = command_at(i)); i++) {
		if (!strcmp(c->name, name))
			return c;
		if (n && !strncmp(c->name, name, n)) {
			prefix = c;
			matches++;
		}
	}
	/* gdb's rule: a unique prefix names its command */
	return matches == 1 ? prefix : NULL;
}

int command_run_line(struct session *s, char *line, struct gerr *e)
{
	char *words[PARSE_MAX_WORDS];
	const char *err = NULL;
	const struct command *c;
	int n = parse_words(line, words, PARSE_MAX_WORDS, &err), rc;
	FILE *saved = s->out, *to = NULL;

	if (n < 0)
		return gerr_set(e, "%s", err);
	if (n == 0)
		return 0;
	c = command_find(words[0]);
	if (!c)
		return gerr_set(e, "undefined command: \"%s\"; try \"help\"", words[0]);
	/* "CMD > FILE" or "CMD >> FILE", as in crash */
	if (n >= 3 && (!strcmp(words[n - 2], ">") || !strcmp(words[n - 2], ">>"))) {
		to = fopen(words[n - 1], words[n - 2][1] ? "a" : "w");
		if (!to)
			return gerr_set(e, "%s: %m", words[n - 1]);
		s->out = to;
		n -= 2;
	} else if (n >= 2 && (words[n - 1][0] == '>')) {
		return gerr_set(e, "redirection needs a file: CMD > FILE or CMD >> FILE");
	}
	rc = c->run(s, n, words, e);
	s->out = saved;
	if (to && fclose(to) && !rc)
		rc = gerr_set(e, "%s: %m", words[n + 1]);
	return rc;
}
