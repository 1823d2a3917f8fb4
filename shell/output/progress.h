/*
 * progress: how far a long command is, on stderr, so that a big glob or
 * the whole kernel is not minutes of silence. Nothing for a command done
 * within its first second; then, at a terminal, one line written over,
 * else a line at most every second. The line goes before the command's
 * own output (progress_end clears it at a terminal).
 */
#ifndef GILK_PROGRESS_H
#define GILK_PROGRESS_H

#include <stdbool.h>
#include <time.h>

struct progress {
	struct timespec start, last;
	bool tty, shown;
};

void progress_start(struct progress *p);
/* Whether a line would be shown now: the caller counts only then. */
bool progress_due(const struct progress *p);
/* Shows the line (printf's format) when due. */
void progress_say(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Clears a line written over at a terminal. */
void progress_end(struct progress *p);

#endif
