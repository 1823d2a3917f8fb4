/*
 * interrupt: Ctrl-C during a command. SIGINT sets a flag that long loops
 * poll (disas, blocks, x, info functions, dump, the pager); the command
 * stops, says "interrupted", and the session goes on. At the prompt,
 * readline handles Ctrl-C itself.
 */
#ifndef GILK_INTERRUPT_H
#define GILK_INTERRUPT_H

#include <stdbool.h>

void interrupt_install(void);
bool interrupt_pending(void);
void interrupt_clear(void);

#endif
