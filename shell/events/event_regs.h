/*
 * event_regs: the registers of the last event the shell showed that has
 * them (a regs splice's), for $rax, $rip, $arg2... in print, x, info
 * symbol and locations, as gdb's $rax reads the selected frame's. An event
 * is the one moment of a running kernel the shell holds registers of.
 */
#ifndef GILK_EVENT_REGS_H
#define GILK_EVENT_REGS_H

#include <stddef.h>
#include <stdint.h>

#include "events/event_log.h"
#include "session/session.h"

/* After the first n events of log were shown: the last of them with
 * registers is the one $NAME reads from now on. */
void event_regs_keep(struct session *s, const struct event_log *log, size_t n);
/* name without its '$': 0, or -1 with why (no such register, or no event
 * with registers shown yet). */
int event_regs_value(const struct session *s, const char *name, uint64_t *v, struct gerr *e);
void event_regs_free(struct session *s);

#endif
