/* script: commands from a file, one per line, as "source" and "-x" run
 * them: the first that fails stops the file, naming its line. */
#ifndef GILK_SCRIPT_H
#define GILK_SCRIPT_H

#include "session.h"

/* Calls fn for each line of path with its number; stops at the first
 * non-zero return. Errors name path:line. */
int script_lines(const char *path, int (*fn)(void *ctx, char *line,
					     unsigned lineno, struct gerr *e),
		 void *ctx, struct gerr *e);
/* Runs path's commands in s. */
int script_run(struct session *s, const char *path, struct gerr *e);

#endif
