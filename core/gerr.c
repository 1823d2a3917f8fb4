/* Error messages returned by core/ (see gerr.h). */
#include "gerr.h"

#include <stdarg.h>
#include <stdio.h>

int gerr_set(struct gerr *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}
