/* record: the commands typed, saved as a transcript that -x, source and
 * --check replay (the record command starts and stops it). Only lines that
 * ran without error are saved, so that the transcript replays to its end:
 * -x and source stop at the first error. */
#ifndef GILK_RECORD_H
#define GILK_RECORD_H

#include "gerr.h"
#include "session/session.h"

/* Starts saving to path (written anew, headed by when and in which mode). */
int record_start(struct session *s, const char *path, struct gerr *e);
/* Stops; path gets the file's name. -1 (with *e) when it was not
 * recording or the file took a write error. */
int record_stop(struct session *s, char *path, size_t len, struct gerr *e);
/* A line the user typed ran without error: saved when recording. */
void record_line(struct session *s, const char *line);
/* Ends a recording the session still has, as it closes. */
void record_close(struct session *s);

#endif
