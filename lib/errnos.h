/*
 * errnos: every errno gilk.ko returns and what it means, from the ioctls (a
 * refused SPLICE also fills its reason and its kind of refusal), from an
 * instrument's event write, and ("at load") from insmod; and gilk.ko's
 * refusals by kind. The shell's "help errors" and
 * docs/security.md print this table; a test holds it to the errnos kmod/
 * returns, so that it cannot drift from the code.
 */
#ifndef GILK_ERRNOS_H
#define GILK_ERRNOS_H

#include <stddef.h>

struct gilk_errno {
	int err;
	const char *name;	/* "EBUSY" */
	const char *meaning;
};

/* The i-th row, NULL past the last. */
const struct gilk_errno *gilk_errno_at(size_t i);

/* A row of gilk.ko's refusals (uapi/gilk_refusals.h). */
struct gilk_refusal_row {
	unsigned code;		/* GILK_REFUSED_* */
	int err;
	const char *err_name;	/* "EBUSY" */
	const char *name;	/* "jump-label" */
	const char *meaning;
};

/* The i-th row, NULL past the last. */
const struct gilk_refusal_row *gilk_refusal_at(size_t i);
/* The row of a refused request's code, NULL for none or one unknown. */
const struct gilk_refusal_row *gilk_refusal_of(unsigned code);

#endif
