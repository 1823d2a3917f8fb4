/* shell: run a shell command, as gdb's shell and "!" do. */
#include "commands/commands.h"
#include "output/pipe.h"

static int shell_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	if (argc < 2 || !argv[1][0])
		return command_usage(&cmd_shell, e);
	return pipe_shell(argv[1], s->out, e);
}

const struct command cmd_shell = {
	.name = "shell",
	.group = GROUP_SESSION,
	.run = shell_command,
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_RAW,
	.complete = COMPLETE_PATH,
	.complete2 = COMPLETE_PATH,
	.usage = "shell COMMAND | !COMMAND",
	.help = "Runs COMMAND with /bin/sh, its output where gilk's would go. A status\n"
		"other than 0 is an error. Any gilk command's output goes through a\n"
		"shell command with \"CMD | COMMAND\" (\"disas f | grep call\").",
};
