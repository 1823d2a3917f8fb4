/* complete: what Tab would offer for a line, one candidate per line, as
 * gdb's complete command shows it (for scripts and editors). */
#include <readline/readline.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "complete/complete.h"

static int complete_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	const char *line = argc > 1 ? argv[1] : "";
	size_t start = strlen(line);
	char before[4096];
	long total;

	(void)e;
	while (start && line[start - 1] != ' ' && line[start - 1] != '\t')
		start--;
	snprintf(before, sizeof(before), "%.*s", (int)start, line);
	total = complete_candidates(s, before, line + start);
	for (size_t i = 0; i < complete_count(s) && !session_interrupted(s); i++)
		fprintf(s->out, "%s%s\n", before, complete_match(s, i));
	if (total < 0) {	/* file names, as readline finds them */
		char *f;

		for (int st = 0; (f = rl_filename_completion_function(line + start, st)); st++) {
			fprintf(s->out, "%s%s\n", before, f);
			free(f);
		}
	} else if ((size_t)total > complete_count(s)) {
		fprintf(s->out, "%s%s... (%ld in all: the first %zu shown)\n", before,
			line + start, total, complete_count(s));
	}
	return 0;
}

const struct command cmd_complete = {
	.name = "complete",
	.group = GROUP_SESSION,
	.run = complete_command,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_RAW,
	.complete = COMPLETE_COMMAND,
	.usage = "complete [TEXT]",
	.help = "Lists what Tab completes TEXT to, one whole line each, as gdb's\n"
		"complete does: command names, then each command's arguments (kernel\n"
		"symbols, settings, splice ids, instruments, file names).",
};
