/*
 * cexpr: C expressions over kernel memory, as gdb's print reads them:
 * variables by name (their types from the line index and BTF), members
 * (s.f, p->f), subscripts (a[i]), *p, &x, casts ((struct file *)0x...),
 * numbers, "current" (gilk's own task, live), * / % between numbers
 * and + - between them (a pointer's step is its target's size). Memory is read through the
 * session (gilk.ko's READ live, the image offline): an address nothing
 * maps is an error, never a fault.
 */
#ifndef GILK_CEXPR_H
#define GILK_CEXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "ktypes.h"
#include "session/session.h"

struct cval {
	bool typed;             /* else a bare address or number */
	struct ktype type;
	bool lvalue;            /* in memory at addr; else v holds it */
	uint64_t addr, v;
	bool symbol;            /* untyped: an address with a symbol (a function) */
	bool unknown;           /* a variable of no known type, named bare */
	bool sym;               /* fetch: v (or addr) is relative to a value read at the hit */
	char why[512];          /* why its type is not known */
};

int cexpr_eval(struct session *s, const char *text, struct cval *out, struct gerr *e);

/*
 * What a fetch may name at its site besides registers (rdi..r15, arg0..arg5,
 * rip, rflags, retval: rax), current and globals: a function's parameters
 * at its entry, its typed return value at a return point.
 */
/* A parameter or local where the line index puts it at the site: in
 * register field (GILK_FF_*), in memory at it plus off, or it plus off. */
struct cexpr_local {
	char name[64];
	struct ktype type;
	uint8_t kind;           /* LINE_LOCAL_REG, _MEM, _VALUE, _EXPR, _OUT (lineindex.h) */
	uint8_t field;
	int32_t off;
};

#define CEXPR_LOCALS_MAX 48

struct cexpr_site {
	int nparams;
	char params[6][64];
	struct ktype ptypes[6];
	bool have_ret;
	struct ktype ret;
	int nlocals;
	struct cexpr_local locals[CEXPR_LOCALS_MAX];
};

/*
 * Compiles text into one value of a fetch program (uapi gilk.h), by the
 * same grammar: every read becomes a step gilk.ko runs at the hit, so
 * nothing is read now. A char array or char pointer at the end is fetched
 * as a string, a number or pointer as 8 bytes; a struct, a bit-field, or
 * two values read at the hit are refused.
 */
int cexpr_fetch(struct session *s, const char *text, const struct cexpr_site *site,
		struct gilk_fetch_value *out, struct gerr *e);
/* A value in memory read as a number into v->v (integers, pointers). */
int cexpr_scalar(struct session *s, struct cval *v, struct gerr *e);
/* Prints a value as print shows it; hex: /x. */
int cexpr_print(struct session *s, const struct cval *v, bool hex, struct gerr *e);

#endif
