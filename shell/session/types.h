/*
 * types: the session's C types (core/ktypes.h): the running kernel's BTF
 * live, the image's offline, read on first use; and what a C expression
 * over kernel memory needs from the session: a variable's type (from the
 * line index, since BTF does not say which variable has which type) and
 * "current", gilk's own task.
 */
#ifndef GILK_TYPES_H
#define GILK_TYPES_H

#include "ktypes.h"
#include "session/session.h"

int types_get(struct session *s, struct ktypes **t, struct gerr *e);
void types_free(struct session *s);
/* The type of the global variable name: 0, or -1 (e says why: no index, no
 * such variable, a type BTF lacks). */
int types_of_var(struct session *s, const char *name, struct ktype *ty, struct gerr *e);
/* Live: the address of gilk's own task_struct (found on the task list). */
int types_current(struct session *s, uint64_t *addr, struct gerr *e);

#endif
