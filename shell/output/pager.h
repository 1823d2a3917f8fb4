/*
 * pager: output longer than the terminal stops every screenful and asks, as
 * gdb does ("--Type <RET> for more, q to quit, c to continue without
 * paging--"). It is a stream the session writes to like any other; "set
 * pagination off" and "set height N" (0: no limit) change it, and q stops
 * the command as Ctrl-C would. A command typed ahead, before the question
 * comes, is left for the prompt, and the output runs on unpaged.
 */
#ifndef GILK_PAGER_H
#define GILK_PAGER_H

#include <stdbool.h>
#include <stdio.h>

#include "session/settings.h"

struct pager;

/* A stream to the terminal (out) paged by the settings st; answers are
 * read from the descriptor in. NULL when it cannot be made. */
struct pager *pager_open(FILE *out, int in, const struct settings *st);
FILE *pager_stream(struct pager *p);
/* A new command: a full screen before the next question. */
void pager_reset(struct pager *p);
/* The rest of this command unpaged, as if "c" had been answered: output
 * that streams (events --follow) must not wait on a question. */
void pager_unpaged(struct pager *p);
/* Whether output of this command was dropped (q, or Ctrl-C): what was
 * written last may not have been shown. */
bool pager_dropped(struct pager *p);
/* Whether the user answered q. */
bool pager_quit(const struct pager *p);
void pager_close(struct pager *p);

#endif
