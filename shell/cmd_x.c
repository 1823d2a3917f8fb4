/* x: examine kernel memory: "x/NFU LOCATION" with gdb's formats and
 * sizes, or "x LOCATION [BYTES]" as hex bytes. Enter shows what follows. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "symbolize.h"

#define X_BYTES_MAX 4096
#define X_STRING_MAX 200	/* gdb's limit on one string shown */

struct xfmt {
	unsigned count;
	char fmt;		/* x d u o t c a i s */
	unsigned size;		/* 1 2 4 8 */
};

static int parse_fmt(const char *spec, struct xfmt *f, struct gerr *e)
{
	const char *p = spec;
	bool sized = false;

	f->count = 1;
	f->fmt = 'x';
	f->size = 4;
	if (isdigit((unsigned char)*p)) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);

		if (!n || n > X_BYTES_MAX)
			return gerr_set(e, "x/%s: a count is 1 to %d", spec, X_BYTES_MAX);
		f->count = (unsigned)n;
		p = end;
	}
	for (; *p; p++) {
		const char *sz = strchr("bhwg", *p);

		if (sz) {
			f->size = 1u << (sz - "bhwg");
			sized = true;
		} else if (strchr("xduotcais", *p)) {
			f->fmt = *p;
		} else {
			return gerr_set(e, "x/%s: '%c' is neither a format (x d u o t c a i s) nor a size (b h w g)",
					spec, *p);
		}
	}
	if (!sized && f->fmt == 'a')
		f->size = 8;
	if (!sized && f->fmt == 'c')
		f->size = 1;
	if (f->fmt == 'a' && f->size != 8)
		return gerr_set(e, "x/%s: an address is 8 bytes (g)", spec);
	return 0;
}

static void label(struct session *s, uint64_t addr)
{
	char where[320];

	symbolize_addr(s, addr, where, sizeof(where));
	fprintf(s->out, "%s:", where);
}

static void item(struct session *s, const struct xfmt *f, uint64_t v)
{
	unsigned bits = f->size * 8;
	char buf[320];

	switch (f->fmt) {
	case 'x':
		fprintf(s->out, "\t0x%0*" PRIx64, (int)f->size * 2, v);
		break;
	case 'd':
		fprintf(s->out, "\t%" PRId64, bits == 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits));
		break;
	case 'u':
		fprintf(s->out, "\t%" PRIu64, v);
		break;
	case 'o':
		fprintf(s->out, "\t0%" PRIo64, v);
		break;
	case 't':
		fputc('\t', s->out);
		for (unsigned b = bits; b--;)
			fputc('0' + (int)((v >> b) & 1), s->out);
		break;
	case 'a':
		symbolize_addr(s, v, buf, sizeof(buf));
		fprintf(s->out, "\t%s", buf);
		break;
	case 'c':
		if (isprint((int)(v & 0xff)) && (v & 0xff) != '\'' && (v & 0xff) != '\\')
			fprintf(s->out, "\t%d '%c'", (int)(int8_t)v, (int)(v & 0xff));
		else
			fprintf(s->out, "\t%d '\\%03o'", (int)(int8_t)v, (unsigned)(v & 0xff));
		break;
	}
}

/* x/Nx, d, u, o, t, c, a: units, as many on a line as gdb puts. */
static int units(struct session *s, uint64_t addr, const struct xfmt *f, struct gerr *e)
{
	uint8_t buf[X_BYTES_MAX];
	size_t len = (size_t)f->count * f->size;
	unsigned per_line = f->fmt == 'a' || f->size == 8 ? 2 : f->size == 4 ? 4 : 8;

	if (len > sizeof(buf))
		return gerr_set(e, "x: at most %d bytes at once", X_BYTES_MAX);
	if (session_read(s, addr, buf, len, e))
		return -1;
	for (unsigned i = 0; i < f->count && !session_interrupted(s); i++) {
		uint64_t v = 0;

		memcpy(&v, buf + (size_t)i * f->size, f->size);	/* little endian */
		if (i % per_line == 0)
			label(s, addr + (uint64_t)i * f->size);
		item(s, f, v);
		if (i % per_line == per_line - 1 || i + 1 == f->count)
			fputc('\n', s->out);
	}
	snprintf(s->repeat, sizeof(s->repeat), "x/%u%c%c 0x%" PRIx64, f->count, f->fmt,
		 "bhwg"[__builtin_ctz(f->size)], addr + len);
	return 0;
}

/* x/Ni: instructions, as gdb lists them. */
static int insns(struct session *s, uint64_t addr, const struct xfmt *f, struct gerr *e)
{
	uint64_t at = addr;

	for (unsigned i = 0; i < f->count && !session_interrupted(s); i++) {
		uint8_t code[INSN_MAX];
		struct insn in;
		char where[320], text[512];

		if (session_read(s, at, code, sizeof(code), e))
			return -1;
		symbolize_addr(s, at, where, sizeof(where));
		if (decode_one(s->k->dec, code, sizeof(code), at, &in)) {
			fprintf(s->out, "   %s:\t(bad)\n", where);
			at++;
			continue;
		}
		symbolize_insn(s, &in, text, sizeof(text));
		fprintf(s->out, "   %s:\t%s\n", where, text);
		at += in.len;
	}
	snprintf(s->repeat, sizeof(s->repeat), "x/%ui 0x%" PRIx64, f->count, at);
	return 0;
}

/* x/Ns: NUL-terminated strings. */
static int strings(struct session *s, uint64_t addr, const struct xfmt *f, struct gerr *e)
{
	uint64_t at = addr;

	for (unsigned i = 0; i < f->count && !session_interrupted(s); i++) {
		uint8_t buf[X_STRING_MAX];
		size_t n = 0;

		if (session_read(s, at, buf, sizeof(buf), e))
			return -1;
		label(s, at);
		fputs("\t\"", s->out);
		for (; n < sizeof(buf) && buf[n]; n++) {
			if (buf[n] == '"' || buf[n] == '\\')
				fprintf(s->out, "\\%c", buf[n]);
			else if (buf[n] == '\n')
				fputs("\\n", s->out);
			else if (isprint(buf[n]))
				fputc(buf[n], s->out);
			else
				fprintf(s->out, "\\%03o", buf[n]);
		}
		fprintf(s->out, "\"%s\n", n == sizeof(buf) ? "..." : "");
		at += n + (n < sizeof(buf));
	}
	snprintf(s->repeat, sizeof(s->repeat), "x/%us 0x%" PRIx64, f->count, at);
	return 0;
}

/* The old form: BYTES bytes in hex, 16 a line. */
static int hex_bytes(struct session *s, uint64_t addr, int argc, char **argv, struct gerr *e)
{
	uint8_t buf[X_BYTES_MAX];
	size_t n = 64;

	if (argc == 3) {
		char *end;
		unsigned long v = strtoul(argv[2], &end, 0);

		if (*end || !v || v > sizeof(buf))
			return gerr_set(e, "'%s' is not a byte count (1 to %zu)", argv[2], sizeof(buf));
		n = v;
	}
	if (session_read(s, addr, buf, n, e))
		return -1;
	for (size_t i = 0; i < n && !session_interrupted(s); i += 16) {
		fprintf(s->out, "0x%016" PRIx64 ":", addr + i);
		for (size_t k = i; k < i + 16 && k < n; k++)
			fprintf(s->out, " %02x", buf[k]);
		fprintf(s->out, "\n");
	}
	snprintf(s->repeat, sizeof(s->repeat), "x 0x%" PRIx64 " %zu", addr + n, n);
	return 0;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	const char *slash = strchr(argv[0], '/');
	struct xfmt f;
	uint64_t addr;

	if (slash && argc != 2)
		return gerr_set(e, "usage: x/NFU LOCATION (the count is N, not a second argument)");
	if ((slash && parse_fmt(slash + 1, &f, e)) || session_resolve(s, argv[1], &addr, e))
		return -1;
	if (!slash)
		return hex_bytes(s, addr, argc, argv, e);
	if (f.fmt == 'i')
		return insns(s, addr, &f, e);
	if (f.fmt == 's')
		return strings(s, addr, &f, e);
	return units(s, addr, &f, e);
}

const struct command cmd_x = {
	.name = "x",
	.run = run,
	.min_args = 1,
	.max_args = 2,
	.flags = CMD_FORMAT,
	.complete = COMPLETE_SYMBOL,
	.usage = "x/NFU LOCATION | x LOCATION [BYTES]",
	.help = "x/NFU: N units (1 unless given) of kernel memory at LOCATION, as gdb's x:\n"
		"F is the format, x (hex, the default), d (signed), u (unsigned), o\n"
		"(octal), t (binary), c (character), a (address, with its symbol),\n"
		"i (instructions, disassembled) or s (strings); U the unit size, b\n"
		"(1 byte), h (2), w (4, the default) or g (8). At most 4096 bytes.\n"
		"x LOCATION [BYTES]: BYTES (64 unless given) in hex, 16 a line.\n"
		"Enter on an empty line shows what follows. Live, memory is read\n"
		"through gilk.ko (an unmapped address is an error, not an oops), so\n"
		"spliced bytes show as they are now; offline, from the image.",
};
