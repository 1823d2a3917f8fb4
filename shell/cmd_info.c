/* info: what is spliced and what instruments there are. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "formats.h"

static int info_splices(struct session *s, struct gerr *e)
{
	struct gilk_splice_info *all;
	size_t n;

	if (live_list(&s->lv, &all, &n, e))
		return -1;
	format_splices(s->out, FMT_TEXT, s, all, n);
	free(all);
	return 0;
}

static void hex_line(FILE *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %02x", b[i]);
	fputc('\n', out);
}

/* Code gilk wrote, read back live and disassembled, one line each. */
static int show_code(struct session *s, const char *what, uint64_t at, size_t len,
		     struct gerr *e)
{
	uint8_t buf[GILK_TRAMP_MAX];
	size_t off = 0;

	if (len > sizeof(buf))
		len = sizeof(buf);
	if (live_read_mem(&s->lv, at, buf, len, e))
		return -1;
	fprintf(s->out, "  %s at 0x%" PRIx64 ", %zu bytes:\n", what, at, len);
	while (off < len) {
		struct insn in;
		char text[160], where[160] = "";

		if (decode_one(s->k->dec, buf + off, len - off, at + off, &in) ||
		    decode_text(s->k->dec, &in, text, sizeof(text))) {
			fprintf(s->out, "    +0x%-4zx (bytes that do not decode)\n", off);
			break;
		}
		if (insn_has_target(&in))
			session_where(s, in.target, where, sizeof(where));
		fprintf(s->out, "    +0x%-4zx %s%s%s\n", off, text, where[0] ? "    ; " : "", where);
		off += in.len;
	}
	return 0;
}

/* One splice in full: what it displaced, what it wrote, and its code. */
static int info_splice(struct session *s, const char *idtext, struct gerr *e)
{
	struct gilk_splice_info in;
	char *end, where[160];
	unsigned long id = strtoul(idtext, &end, 10);

	if (*end || !id)
		return gerr_set(e, "'%s' is not a splice id", idtext);
	if (live_info(&s->lv, (uint32_t)id, &in, e))
		return -1;
	session_where(s, in.site, where, sizeof(where));
	fprintf(s->out, "splice %u at %s: %s, instrument %s%s%s, %" PRIu64 " hits%s\n", in.id,
		where, (in.flags & GILK_SPLICE_TRAP) ? "trap mode" : "jmp", in.instrument,
		in.arg[0] ? " " : "", in.arg, (uint64_t)in.hits,
		(in.flags & GILK_SPLICE_BUG) ? ", BUG/WARN replayed" : "");
	fprintf(s->out, "  displaced %u bytes:", in.region_len);
	hex_line(s->out, in.region_orig, in.region_len < GILK_PATCH_MAX_LEN ? in.region_len : GILK_PATCH_MAX_LEN);
	for (uint32_t i = 0; i < in.npatch && i < GILK_MAX_PATCHES; i++) {
		uint8_t now[GILK_PATCH_MAX_LEN];
		uint32_t n = in.patch[i].len < GILK_PATCH_MAX_LEN ? in.patch[i].len : GILK_PATCH_MAX_LEN;

		if (live_read_mem(&s->lv, in.patch[i].addr, now, n, e))
			return -1;
		session_where(s, in.patch[i].addr, where, sizeof(where));
		fprintf(s->out, "  wrote at %s:", where);
		hex_line(s->out, now, n);
		fprintf(s->out, "         was:");
		hex_line(s->out, in.patch[i].orig, n);
	}
	if (in.flags & GILK_SPLICE_TRAP)
		fprintf(s->out, "  (trap mode: the int3 at the site stays; gilk.ko sends each hit to the trampoline)\n");
	if (show_code(s, "trampoline", in.tramp, in.tramp_len, e))
		return -1;
	if (in.evict_len && show_code(s, "evicted neighbour's trampoline", in.evict_tramp,
				      in.evict_len, e))
		return -1;
	return 0;
}

static int info_instruments(struct session *s, struct gerr *e)
{
	struct gilk_instrument_info *ins;
	size_t n;

	if (live_instruments(&s->lv, &ins, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++)
		fprintf(s->out, "%-12s %-10s %3u in use  %s\n", ins[i].name, ins[i].module,
			ins[i].users, ins[i].help);
	free(ins);
	return 0;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	if (argc < 2 || argc > 3)
		return gerr_set(e, "usage: %s", cmd_info.usage);
	if (!s->live)
		return gerr_set(e, "info %s needs live mode (/dev/gilk)", argv[1]);
	if (!strncmp(argv[1], "splices", strlen(argv[1])))
		return argc == 3 ? info_splice(s, argv[2], e) : info_splices(s, e);
	if (argc == 3)
		return gerr_set(e, "usage: %s", cmd_info.usage);
	if (!strncmp(argv[1], "instruments", strlen(argv[1])))
		return info_instruments(s, e);
	return gerr_set(e, "info what? \"splices\" or \"instruments\"");
}

static const char *const what[] = { "splices", "instruments", NULL };

const struct command cmd_info = {
	.name = "info",
	.run = run,
	.usage = "info splices [ID] | info instruments",
	.help = "info splices: every splice with its hits, events lost because the\n"
		"buffer was full, and nested hits (inside an instrument, not run).\n"
		"info splice ID: one splice in full: the bytes it displaced, the bytes\n"
		"it wrote (read back now) and its trampoline, disassembled.\n"
		"info instruments: the instruments gilk.ko knows, their modules and uses.",
	.complete = COMPLETE_WORDS,
	.words = what,
	.complete2 = COMPLETE_SPLICE,
};
