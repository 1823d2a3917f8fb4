/* complete: Tab completion for readline: command names, then each
 * command's arguments (kernel symbols, splice ids, instruments, paths), as
 * the command table says; the "complete" command shows the same list. */
#ifndef GILK_COMPLETE_H
#define GILK_COMPLETE_H

#include <stdio.h>

#include "session/session.h"

#define COMPLETE_SYMBOLS_MAX 1000

void complete_init(struct session *s);

/* The completions of text, the word being typed after before (the line up
 * to it), kept in the session. Returns how many there were in all, which is
 * more than complete_count() when a symbol list was cut; -1 when the word is
 * a path (the caller completes file names). */
long complete_candidates(struct session *s, const char *before, const char *text);
/* The candidates kept: how many, and the i-th (NULL past the last). */
size_t complete_count(const struct session *s);
const char *complete_match(const struct session *s, size_t i);
/* Frees them, as the session closes. */
void complete_free(struct session *s);

/* gilk's bash or zsh completion script, from the command table: 0, or -1
 * for a shell it does not know. */
int complete_script(FILE *out, const char *shell);

#endif
