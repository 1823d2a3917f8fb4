/* source: run commands from a file, stopping at the first error. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	char line[4096];
	unsigned lineno = 0;
	FILE *f;
	int rc = 0;

	if (argc != 2)
		return gerr_set(e, "usage: %s", cmd_source.usage);
	f = fopen(argv[1], "r");
	if (!f)
		return gerr_set(e, "%s: %m", argv[1]);
	while (!rc && !s->quit && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			rc = gerr_set(e, "%s:%u: line too long", argv[1], lineno);
			break;
		}
		if (command_run_line(s, line, e)) {
			char m[sizeof(e->msg)];

			snprintf(m, sizeof(m), "%s", e->msg);
			rc = gerr_set(e, "%s:%u: %s", argv[1], lineno, m);
		}
	}
	fclose(f);
	return rc;
}

const struct command cmd_source = {
	.name = "source",
	.run = run,
	.usage = "source FILE",
	.help = "Runs the commands in FILE, one per line (# starts a comment), and\n"
		"stops at the first that fails, naming its line.",
	.complete = COMPLETE_PATH,
};
