/*
 * cexpr: C expressions over kernel memory, as gdb's print reads them:
 * variables by name (their types from the line index and BTF), members
 * (s.f, p->f), subscripts (a[i]), *p, &x, casts ((struct file *)0x...),
 * numbers, "current" (gilk's own task, live) and + - between them (a
 * pointer's step is its target's size). Memory is read through the
 * session (gilk.ko's READ live, the image offline): an address nothing
 * maps is an error, never a fault.
 */
#ifndef GILK_CEXPR_H
#define GILK_CEXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "ktypes.h"
#include "session.h"

struct cval {
	bool typed;             /* else a bare address or number */
	struct ktype type;
	bool lvalue;            /* in memory at addr; else v holds it */
	uint64_t addr, v;
	bool symbol;            /* untyped: an address with a symbol (a function) */
	bool unknown;           /* a variable of no known type, named bare */
	char why[512];          /* why its type is not known */
};

int cexpr_eval(struct session *s, const char *text, struct cval *out, struct gerr *e);
/* A value in memory read as a number into v->v (integers, pointers). */
int cexpr_scalar(struct session *s, struct cval *v, struct gerr *e);
/* Prints a value as print shows it; hex: /x. */
int cexpr_print(struct session *s, const struct cval *v, bool hex, struct gerr *e);

#endif
