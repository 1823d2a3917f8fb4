/* source: run commands from a file, stopping at the first error. */
#include "commands/commands.h"
#include "script/script.h"

static int source_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	(void)argc;
	return script_run(s, argv[1], e);
}

const struct command cmd_source = {
	.name = "source",
	.group = GROUP_SESSION,
	.run = source_command,
	.min_args = 1,
	.max_args = 1,
	.complete = COMPLETE_PATH,
	.usage = "source FILE",
	.help = "Runs the commands in FILE, one per line (# starts a comment, so a\n"
		"checked transcript's #=> lines are skipped), and stops at the first\n"
		"that fails, naming its line. \"gilk -x FILE\" does the same.",
};
