/* The command table and line dispatch (see commands.h). */
#include "commands.h"

#include <string.h>

#include "parse.h"

static const struct command *const table[] = {
	&cmd_help, &cmd_disas, &cmd_blocks, &cmd_plan, &cmd_splice,
	&cmd_unsplice, &cmd_info, &cmd_events, &cmd_x, &cmd_source, &cmd_quit,
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
	int n = parse_words(line, words, PARSE_MAX_WORDS, &err);

	if (n < 0)
		return gerr_set(e, "%s", err);
	if (n == 0)
		return 0;
	c = command_find(words[0]);
	if (!c)
		return gerr_set(e, "undefined command: \"%s\"; try \"help\"", words[0]);
	return c->run(s, n, words, e);
}
