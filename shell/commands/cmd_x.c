/* x: examine kernel memory: "x/NFU LOCATION" with gdb's formats and
 * sizes, or "x LOCATION [BYTES]" as hex bytes. Enter shows what follows. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "output/code_text.h"
#include "output/xformat.h"

#define X_BYTES_MAX 4096
#define X_STRING_MAX 200	/* gdb's limit on one string shown */

static void label(struct session *s, uint64_t addr)
{
	char where[320];

	code_text_addr(s, addr, where, sizeof(where));
	fprintf(s->out, "%s:", where);
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
		fputc('\t', s->out);
		xfmt_value(s, f, v, true);
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
		code_text_addr(s, at, where, sizeof(where));
		if (decode_one(s->k->dec, code, sizeof(code), at, &in)) {
			fprintf(s->out, "   %s:\t(bad)\n", where);
			at++;
			continue;
		}
		code_text_insn(s, &in, text, sizeof(text));
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

static int x_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	const char *slash = strchr(argv[0], '/');
	struct xfmt f;
	uint64_t addr;

	if (slash && argc != 2)
		return gerr_set(e, "usage: x/NFU LOCATION (the count is N, not a second argument)");
	if ((slash && xfmt_parse("x", slash + 1, "xduotcais", 4, &f, e)) ||
	    session_resolve(s, argv[1], &addr, e))
		return -1;
	session_splices_refresh(s);	/* live, trampolines are named by their splice */
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
	.group = GROUP_CODE,
	.run = x_command,
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
