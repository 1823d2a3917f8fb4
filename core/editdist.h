/* editdist: how far apart two names are, for "did you mean" (symbols,
 * source files, types). */
#ifndef GILK_EDITDIST_H
#define GILK_EDITDIST_H

#include <stddef.h>

/* Edit distance between a and b (insertions, deletions, substitutions), or
 * more than limit when it is; names of 127 bytes or more are far. */
size_t edit_distance(const char *a, const char *b, size_t limit);

#endif
