/* Command files (see script.h). */
#include "script/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"

/* Calls fn for each line of path with its number; stops at the first
 * non-zero return. Errors name path:line. */
static int script_lines(const char *path, int (*fn)(void *ctx, char *line,
					     unsigned lineno, struct gerr *e),
		 void *ctx, struct gerr *e)
{
	unsigned lineno = 0;
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!f)
		return gerr_set(e, "%s: %m", path);
	/* lines of any length: a pasted list of 400 functions is one */
	while (!rc && getline(&line, &cap, f) >= 0) {
		lineno++;
		if (fn(ctx, line, lineno, e)) {
			char m[sizeof(e->msg)];

			snprintf(m, sizeof(m), "%s", e->msg);
			rc = gerr_set(e, "%s:%u: %s", path, lineno, m);
		}
	}
	if (!rc && ferror(f))
		rc = gerr_set(e, "%s:%u: %m", path, lineno + 1);
	free(line);
	fclose(f);
	return rc;
}

static int run_one(void *ctx, char *line, unsigned lineno, struct gerr *e)
{
	struct session *s = ctx;

	(void)lineno;
	if (s->quit)
		return 0;
	command_trace(s, line);
	return command_run_line(s, line, e);
}

int script_run(struct session *s, const char *path, struct gerr *e)
{
	return script_lines(path, run_one, s, e);
}
