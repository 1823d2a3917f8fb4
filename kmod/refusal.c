// SPDX-License-Identifier: GPL-2.0
/*
 * Refusing a splice (see refusal.h): every refusal of gilk.ko's goes
 * through gilk_refuse(), so that its kind, errno and sentence agree.
 */
#include <linux/kernel.h>
#include <linux/stdarg.h>

#include "gilk_internal.h"

int gilk_refuse(struct gilk_why *why, u32 code, const char *fmt, ...)
{
	va_list ap;

	/* a refusal always says its kind: a code of none is gilk's own bug */
	if (WARN_ON_ONCE(!code || code >= GILK_NREFUSALS))
		code = GILK_REFUSED_MALFORMED;
	*why->code = code;
	va_start(ap, fmt);
	vsnprintf(why->text, why->len, fmt, ap);
	va_end(ap);
	return gilk_refusal_errno(code);
}
