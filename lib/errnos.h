/*
 * errnos: every errno gilk.ko returns and what it means, from the ioctls (a
 * refused SPLICE also fills its reason), from an instrument's event write,
 * and ("at load") from insmod. The shell's "help errors" and
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

#endif
