/* record: save the commands typed from now on as a transcript
 * (script/record.c keeps it). */
#include <string.h>

#include "commands/commands.h"
#include "script/record.h"

static int record_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	char path[4096];

	(void)argc;
	if (!strcmp(argv[1], "stop")) {
		if (record_stop(s, path, sizeof(path), e))
			return -1;
		fprintf(s->out, "recording to %s stopped\n", path);
		return 0;
	}
	if (record_start(s, argv[1], e))
		return -1;
	fprintf(s->out, "recording commands to %s\n", argv[1]);
	return 0;
}

static const char *const what[] = { "stop", NULL };

const struct command cmd_record = {
	.name = "record",
	.group = GROUP_SESSION,
	.run = record_command,
	.min_args = 1,
	.max_args = 1,
	.complete = COMPLETE_PATH,
	.words = what,
	.usage = "record FILE | record stop",
	.help = "Saves every command typed from now on that succeeds to FILE, one per\n"
		"line, as a transcript that \"gilk -x FILE\" and \"source FILE\" replay;\n"
		"\"record stop\" ends it. Add #=> lines of expected output under a\n"
		"command to make it a checked transcript (\"gilk --check FILE\").",
};
