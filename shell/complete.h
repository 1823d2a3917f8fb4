/* complete: Tab completion for readline: command names, then each
 * command's arguments (kernel symbols, splice ids, instruments, paths). */
#ifndef GILK_COMPLETE_H
#define GILK_COMPLETE_H

#include "session.h"

#define COMPLETE_SYMBOLS_MAX 1000

void complete_init(struct session *s);

#endif
