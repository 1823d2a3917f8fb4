/* Errors returned by core/ and lib/ (see gerr.h). */
#include "gerr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

static int vset(struct gerr *e, int code, const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	/* errno may be 0 after a call that failed without setting it */
	e->code = code ? code : EIO;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return -1;
}

int gerr_set(struct gerr *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, EINVAL, fmt, ap);
	va_end(ap);
	return -1;
}

int gerr_setc(struct gerr *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, code, fmt, ap);
	va_end(ap);
	return -1;
}
