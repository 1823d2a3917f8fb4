/* gdb's /FMT letters (see xformat.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/code_text.h"
#include "output/xformat.h"

#define COUNT_MAX 4096	/* bytes x shows at once: no count can ask more */

/* "x d u o t c a" from "xduotca": the letters as an error names them. */
static void spaced(const char *letters, char *buf, size_t len)
{
	size_t n = 0;

	for (; *letters && n + 3 < len; letters++) {
		buf[n++] = *letters;
		buf[n++] = ' ';
	}
	buf[n ? n - 1 : 0] = '\0';
}

int xfmt_parse(const char *cmd, const char *spec, const char *formats, unsigned size,
	       struct xfmt *f, struct gerr *e)
{
	const char *p = spec;
	bool sized = false;
	char list[32];

	f->count = 1;
	f->fmt = 'x';
	f->size = size;
	if (isdigit((unsigned char)*p)) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);

		if (!n || n > COUNT_MAX)
			return gerr_set(e, "%s/%s: a count is 1 to %d", cmd, spec, COUNT_MAX);
		f->count = (unsigned)n;
		p = end;
	}
	for (; *p; p++) {
		const char *sz = strchr("bhwg", *p);

		if (sz) {
			f->size = 1u << (sz - "bhwg");
			sized = true;
		} else if (strchr(formats, *p)) {
			f->fmt = *p;
		} else {
			spaced(formats, list, sizeof(list));
			return gerr_set(e, "%s/%s: '%c' is neither a format (%s) nor a size (b h w g)",
					cmd, spec, *p, list);
		}
	}
	if (!sized && f->fmt == 'a')
		f->size = 8;
	if (!sized && f->fmt == 'c')
		f->size = 1;
	if (f->fmt == 'a' && f->size != 8)
		return gerr_set(e, "%s/%s: an address is 8 bytes (g)", cmd, spec);
	return 0;
}

void xfmt_value(struct session *s, const struct xfmt *f, uint64_t v, bool padded)
{
	unsigned bits = f->size * 8;
	char buf[320];

	if (bits < 64)
		v &= (UINT64_C(1) << bits) - 1;
	switch (f->fmt) {
	case 'x':
		fprintf(s->out, "0x%0*" PRIx64, padded ? (int)f->size * 2 : 1, v);
		break;
	case 'd':
		fprintf(s->out, "%" PRId64, bits == 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits));
		break;
	case 'u':
		fprintf(s->out, "%" PRIu64, v);
		break;
	case 'o':
		fprintf(s->out, "0%" PRIo64, v);
		break;
	case 't':
		for (unsigned b = padded || !v ? bits : 64 - (unsigned)__builtin_clzll(v); b--;)
			fputc('0' + (int)((v >> b) & 1), s->out);
		break;
	case 'a':
		code_text_addr(s, v, buf, sizeof(buf));
		fputs(buf, s->out);
		break;
	case 'c':
		if (isprint((int)(v & 0xff)) && (v & 0xff) != '\'' && (v & 0xff) != '\\')
			fprintf(s->out, "%d '%c'", (int)(int8_t)v, (int)(v & 0xff));
		else
			fprintf(s->out, "%d '\\%03o'", (int)(int8_t)v, (unsigned)(v & 0xff));
		break;
	}
}
