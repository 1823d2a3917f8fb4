/* help: the list of commands, or one command's usage and help. */
#include <stdio.h>

#include "commands.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	const struct command *c;

	if (argc == 2) {
		c = command_find(argv[1]);
		if (!c)
			return gerr_set(e, "no command \"%s\"; \"help\" lists them", argv[1]);
		fprintf(s->out, "usage: %s\n%s\n%s", c->usage, c->help,
			(c->flags & CMD_LIVE) ? "Needs live mode.\n" : "");
		return 0;
	}
	fprintf(s->out, "gilk commands (%s mode; \"help COMMAND\" for more):\n",
		s->live ? "live" : "offline");
	for (size_t i = 0; (c = command_at(i)); i++)
		fprintf(s->out, "  %s%s\n", c->usage, (c->flags & CMD_LIVE) ? "   (live)" : "");
	fprintf(s->out, "A LOCATION is a symbol, symbol+offset (decimal or 0x-hex) or a 0x-address.\n"
		"Any command's output goes to a file with \"> FILE\" (\">> FILE\" appends),\n"
		"or through a shell command with \"| COMMAND\". At the terminal, Enter on\n"
		"an empty line repeats disas and x where they stopped, and Ctrl-C\n"
		"interrupts a command.\n");
	return 0;
}

const struct command cmd_help = {
	.name = "help",
	.run = run,
	.min_args = 0,
	.max_args = 1,
	.usage = "help [COMMAND]",
	.help = "Lists the commands, or shows how to use one. A unique prefix of a\n"
		"command's name also names it (\"dis\" is \"disas\").",
	.complete = COMPLETE_COMMAND,
};
