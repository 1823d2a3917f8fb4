/* script: commands from a file, one per line, as "source" and "-x" run
 * them: the first that fails stops the file, naming its line. */
#ifndef GILK_SCRIPT_H
#define GILK_SCRIPT_H

#include "session/session.h"

/* Runs path's commands in s. */
int script_run(struct session *s, const char *path, struct gerr *e);

#endif
