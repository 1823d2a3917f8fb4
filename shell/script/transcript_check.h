/*
 * transcript_check: a transcript that carries its expected output, for
 * teaching labs and regression tests ("gilk --check FILE"). Under a command,
 * each "#=> TEXT" line is one line of its expected output and "#=! TEXT" its
 * expected error; "#=> ..." stands for any number of lines. TEXT is literal
 * but for {{REGEX}} parts (POSIX extended), since addresses differ between
 * kernels. A command with no #=> line may print anything, but must succeed
 * unless it has a #=! line. To -x and source, these are comments.
 */
#ifndef GILK_TRANSCRIPT_CHECK_H
#define GILK_TRANSCRIPT_CHECK_H

#include <stdio.h>

#include "session/session.h"

/* Replays path in s. Returns 0 when every command did as expected (said
 * on out), else -1 after naming the first mismatch, with its file and line,
 * on stderr. */
int transcript_check(struct session *s, const char *path, FILE *out);

#endif
