/*
 * site_filter: "if EXPR" on splice, latency and coverage. The expression
 * reads as hist's and events' do (filter.h), over what a hit has:
 *
 *   pid tid comm cpu context          the task and where it runs
 *   arg0..arg5                        the argument registers
 *   rax..r15 rip rflags retval        the site's registers (retval: rax)
 *
 * It is compiled into gilk.ko's filter program (uapi gilk.h), which runs
 * at every hit before the instrument: a hit it turns away calls nothing and
 * is counted as filtered. Under "set filter-self on" the shell's own process
 * is left out too, by the same program, for as long as the shell has
 * /dev/gilk open: a splice kept after it quits leaves out no one.
 */
#ifndef GILK_SITE_FILTER_H
#define GILK_SITE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "gerr.h"
#include "uapi/gilk.h"

/* What the filter may read: FUNC:exit and latency sites differ. */
enum site_filter_scope {
	SF_ANY,		/* a block: every field (retval is rax there) */
	SF_TASK,	/* entry and exits alike: the task fields only */
};

/*
 * Takes "if EXPR" off the end of argv (*argc shrinks) and compiles it,
 * with "not gilk" added when filter_self (the setting filter-self):
 * to every filter, and where add_self says so (an instrument that is
 * called anyway, where the test costs little) to none. *have: whether out
 * holds a filter.
 */
int site_filter_args(bool filter_self, int *argc, char **argv, enum site_filter_scope scope,
		     bool add_self, struct gilk_filter *out, bool *have, struct gerr *e);

/* Takes "if EXPR" off the end of argv (*argc shrinks): EXPR, or NULL. */
const char *site_filter_take(int *argc, char **argv);
/* The GILK_FF_* a filter's field name reads (pid, comm, arg2, rbx,
 * retval...), or -1. */
int site_filter_field(const char *name);

/* Compiles expr alone; self: leave out the process that splices it while it
 * has /dev/gilk open (GILK_FF_SELF: text "not gilk"), not a pid that a kept
 * splice would go on leaving out after the session. */
int site_filter_compile(const char *expr, enum site_filter_scope scope, bool self,
			struct gilk_filter *out, struct gerr *e);
/* The same at a function's entry: params (up to six, NULL-ended; "" for one
 * that is not in a register) name its arguments, as arg0.. (a filter reads
 * "count > 4096" at vfs_read's entry). */
int site_filter_compile_params(const char *expr, enum site_filter_scope scope, bool self,
			       const char *const *params, struct gilk_filter *out,
			       struct gerr *e);

/* The same mid-function too: names[i] (NULL-ended, at most
 * SITE_FILTER_NAMES_MAX) is read as the field as[i] names ("rbx", "arg1"):
 * a local the line index puts in a register there. */
#define SITE_FILTER_NAMES_MAX 48
int site_filter_compile_names(const char *expr, enum site_filter_scope scope, bool self,
			      const char *const *names, const char *const *as,
			      struct gilk_filter *out, struct gerr *e);

/*
 * Runs a program as gilk.ko does, on the values given (fields[GILK_FF_*],
 * comm): the unit tests' check that a program means its expression.
 */
bool site_filter_run(const struct gilk_filter *f, const uint64_t *fields, const char *comm);

#endif
