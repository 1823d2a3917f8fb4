/* record: the commands typed, saved as a transcript that -x, source and
 * --check replay ("record FILE" starts, "record stop" ends). */
#ifndef GILK_RECORD_H
#define GILK_RECORD_H

#include "session.h"

/* A line the user typed ran without error: saved when recording. */
void record_line(struct session *s, const char *line);
/* Ends a recording the session still has, as it closes. */
void record_close(struct session *s);

#endif
