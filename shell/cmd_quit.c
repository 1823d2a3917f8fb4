/* quit: leave the shell. Splices stay in the kernel: they outlive the
 * shell that made them, like breakpoints in a kernel debugger do not. */
#include "commands.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	(void)argv;
	if (argc != 1)
		return gerr_set(e, "usage: %s", cmd_quit.usage);
	s->quit = true;
	return 0;
}

const struct command cmd_quit = {
	.name = "quit",
	.run = run,
	.usage = "quit",
	.help = "Leaves gilk. Splices stay in place until unspliced or gilk.ko is\n"
		"unloaded (\"unsplice all\" removes them).",
};
