/*
 * fetch: "fetch EXPR[, EXPR]..." on splice, the values gilk.ko reads at
 * every hit and appends to its events (uapi gilk.h, struct gilk_fetch),
 * as kprobe events' fetch arguments and bpftrace's str() do. Each EXPR is
 * C over what the hit has (cexpr.h): a parameter by name at a function's
 * entry, retval at a return point, a register, current, a global, with
 * members, subscripts, * and casts; a char array or pointer is fetched as
 * a string. NAME=EXPR names a value; otherwise it is named by the last
 * identifier of its expression, as perf probe names them (file->f_pos is
 * f_pos), and events, hist and dump show it by that name.
 */
#ifndef GILK_FETCH_H
#define GILK_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "session/cexpr.h"
#include "gerr.h"
#include "session/location.h"
#include "uapi/gilk.h"

struct session;

/* Takes "fetch EXPR..." off the end of argv (*argc shrinks; "if EXPR" is
 * taken before it): its words joined into buf, or false when there is none. */
bool fetch_take(int *argc, char **argv, char *buf, size_t len);

/*
 * What a hit names at loc (NULL: a block): at a function's entry (past
 * ftrace) its parameters' names and types, which a filter and a fetch may
 * read for arg0..arg5; at its return points (FUNC:exit) its return type,
 * for retval. Mid-function (an address past the entry, FUNC:block N),
 * the parameters and locals the line index says are in a register, in
 * memory at a register plus an offset, or a register plus an offset there.
 * Nothing by BTF in a copy the compiler made (.isra, .constprop), which
 * may take other arguments.
 */
void fetch_site_at(struct session *s, const struct location *loc, struct cexpr_site *site);

/* The parameters and locals the line index puts at a running address, with
 * their types from BTF, into site->locals; -1 without an index. */
int fetch_locals_at(struct session *s, uint64_t addr, struct cexpr_site *site, struct gerr *e);
/* DWARF's x86-64 register number as a GILK_FF_* field, and a register
 * field's name ("rbx"). */
uint8_t fetch_dwarf_field(uint8_t reg);
const char *fetch_field_name(uint8_t field);

/* Compiles text into out, with what the site names (NULL: registers,
 * current and globals only). */
int fetch_compile(struct session *s, const char *text, const struct cexpr_site *site,
		  struct gilk_fetch *out, struct gerr *e);

/* A value's program as kprobe events write fetch arguments:
 * "+0(%si):string", "+8(+16(%di)):u32"; (X)+N for an add. */
void fetch_describe(const struct gilk_fetch_value *v, char *buf, size_t len);

#endif
