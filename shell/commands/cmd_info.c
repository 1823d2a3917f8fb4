/* info: what is spliced and what instruments there are, live; and, live or
 * offline, what the symbol table says about an address or a name, as gdb's
 * info symbol, address, line, functions and variables. */
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/agg_map.h"
#include "commands/commands.h"
#include "events/fetch.h"
#include "output/formats.h"
#include "session/lines.h"
#include "output/code_text.h"
#include "session/types.h"

static int info_splices(struct session *s, struct gerr *e)
{
	size_t n;

	return format_splices_live(s, s->out, FMT_TEXT, &n, e);
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
		char text[512];

		if (decode_one(s->k->dec, buf + off, len - off, at + off, &in) ||
		    code_text_insn(s, &in, text, sizeof(text))) {
			fprintf(s->out, "    +0x%-4zx (bytes that do not decode)\n", off);
			break;
		}
		fprintf(s->out, "    +0x%-4zx %s\n", off, text);
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
		where, (in.flags & GILK_SPLICE_TRAP) ? "trap mode" :
		(in.flags & GILK_SPLICE_JOIN) ? "joined" : "jmp",
		in.agg.kind ? in.agg.text : in.instrument, in.arg[0] ? " " : "", in.arg,
		(uint64_t)in.hits, (in.flags & GILK_SPLICE_BUG) ? ", BUG/WARN replayed" : "");
	if (in.filter[0])
		fprintf(s->out, "  if %s: %" PRIu64 " hits filtered out (not in hits)\n", in.filter,
			(uint64_t)in.filtered);
	if (in.agg.kind) {
		struct agg_view v;

		/* what it counted, as "hist SPLICE" shows it */
		if (agg_view_read(s, in.id, &v, e))
			return -1;
		agg_view_print(s, s->out, FMT_TEXT, &v);
		agg_view_free(&v);
	}
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
	if (in.join_depth > 1) {
		char below[64] = "the splice that replays the site's code";

		if (in.below)
			snprintf(below, sizeof(below), "splice %u", in.below);
		fprintf(s->out, "  the site holds %u splices; %s%s\n", in.join_depth,
			(in.flags & GILK_SPLICE_JOIN) ? "its trampoline goes on to " : "it replays the site's code",
			(in.flags & GILK_SPLICE_JOIN) ? below : "");
	}
	if (show_code(s, "trampoline", in.tramp, in.tramp_len, e))
		return -1;
	if (in.evict_len && show_code(s, "evicted neighbour's trampoline", in.evict_tramp,
				      in.evict_len, e))
		return -1;
	return 0;
}

/* "  fields: skb/x len ... [frame0/x ...]": hex ones as x/x shows them,
 * those a payload may end before in brackets. */
static void instrument_fields(FILE *out, const struct gilk_instrument_info *in)
{
	bool optional = false;

	if (!in->nfields || in->nfields > GILK_FIELDS_MAX)
		return;
	fputs("  fields:", out);
	for (uint32_t k = 0; k < in->nfields; k++) {
		const struct gilk_field_info *f = &in->fields[k];

		fprintf(out, " %s%.*s%s", !optional && (f->flags & GILK_FIELD_OPTIONAL) ? "[" : "",
			(int)sizeof(f->name), f->name, (f->flags & GILK_FIELD_HEX) ? "/x" : "");
		optional |= f->flags & GILK_FIELD_OPTIONAL;
	}
	fputs(optional ? "]\n" : "\n", out);
}

static int info_instruments(struct session *s, struct gerr *e)
{
	struct gilk_instrument_info *ins;
	size_t n;

	if (live_instruments(&s->lv, &ins, &n, e))
		return -1;
	/* what its trampoline saves (include/gilk_tramp.h) */
	for (size_t i = 0; i < n; i++) {
		fprintf(s->out, "%-12s %-10s %-7s %3u in use  %s\n", ins[i].name, ins[i].module,
			ins[i].needs == GILK_NEEDS_NOTHING ||
			ins[i].needs == GILK_NEEDS_TSC ? "inline" :
			ins[i].needs == GILK_NEEDS_SCRATCH ? "scratch" : "pt_regs",
			ins[i].users, ins[i].help);
		instrument_fields(s->out, &ins[i]);
	}
	free(ins);
	return 0;
}

/* The section a kallsyms type letter stands for. */
static const char *section_of(char type)
{
	switch (type | 0x20) {
	case 't':
		return ".text";
	case 'd':
		return ".data";
	case 'b':
		return ".bss";
	case 'r':
		return ".rodata";
	case 'a':	/* absolute: in the kernel, per-CPU offsets */
		return ".data..percpu";
	default:
		return NULL;
	}
}

static int info_symbol(struct session *s, const char *expr, struct gerr *e)
{
	char f[256], *plus;
	const struct ksym *k;
	const char *sec;
	uint64_t addr;

	if (session_resolve(s, expr, &addr, e))
		return -1;
	symtab_format(s->k->syms, addr, f, sizeof(f));
	k = symtab_by_addr(s->k->syms, addr);
	if (!strncmp(f, "0x", 2) || !k) {
		uint64_t size;

		fprintf(s->out, "No symbol matches %s.", expr);
		if (k && !ksym_is_text(k) && symtab_data_size(s->k->syms, k, &size))
			fprintf(s->out, " (It is %" PRIu64 " bytes past the end of %s, which is %"
				PRIu64 " bytes.)", addr - k->addr - size, k->name, size);
		fprintf(s->out, "\n");
		return 0;
	}
	plus = strstr(f, "+0x");
	if (plus)
		*plus = '\0';
	sec = section_of(k->type);
	/* Several names share an address: the one given is best. */
	{
		const struct ksym *given;
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(expr, "+"), expr);
		if (symtab_by_name(s->k->syms, name, &given, 1) == 1 && given->addr == k->addr)
			snprintf(f, sizeof(f), "%s", name);
	}
	fprintf(s->out, "%s", f);
	if (plus)
		fprintf(s->out, " + %" PRIu64, (uint64_t)strtoull(plus + 3, NULL, 16));
	fprintf(s->out, " in section %s", sec ? sec : "(unknown)");
	if (k->module)
		fprintf(s->out, " of module %s", k->module);
	fprintf(s->out, "\n");
	return 0;
}

static int info_address(struct session *s, const char *name, struct gerr *e)
{
	const struct ksym *k[16];
	size_t n = symtab_by_name(s->k->syms, name, k, 16);

	if (!n)
		return gerr_set(e, "No symbol \"%s\" in the kernel's symbol table.", name);
	for (size_t i = 0; i < n && i < 16; i++) {
		const char *sec = section_of(k[i]->type);

		fprintf(s->out, "Symbol \"%s\" is %s at address 0x%" PRIx64 " (%s%s, type %c%s%s)%s\n",
			name, ksym_is_text(k[i]) ? "a function" : "static storage", k[i]->addr,
			sec ? sec : "section unknown", "", k[i]->type,
			k[i]->module ? ", module " : "", k[i]->module ? k[i]->module : "",
			k[i]->type >= 'a' ? " (local)" : "");
	}
	if (n > 16)
		fprintf(s->out, "(%zu symbols are named \"%s\": the first 16 shown)\n", n, name);
	return 0;
}

/* The blocks of the function at f that code in [lo, hi) lies in, as
 * "blocks" numbers them: "block 3" or "blocks 3-5,9". */
static void blocks_of(struct session *s, uint64_t lo, uint64_t hi, char *buf, size_t len)
{
	const struct ksym *sym;
	struct gerr e;
	size_t used = 0, first = SIZE_MAX, k = 0;

	buf[0] = 0;
	if (session_cfg(s, lo, &sym, &e))
		return;
	for (size_t b = 0; b <= s->cfg.nblocks && used < len; b++) {
		bool in = b < s->cfg.nblocks && s->cfg.blocks[b].start < hi && s->cfg.blocks[b].end > lo;

		if (in && first == SIZE_MAX)
			first = b;
		if (!in && first != SIZE_MAX) {
			used += (size_t)snprintf(buf + used, len - used, "%s%zu", k ? "," : "", first);
			if (b - 1 > first)
				used += (size_t)snprintf(buf + used, len - used, "-%zu", b - 1);
			k += b - first;
			first = SIZE_MAX;
		}
	}
	if (k) {
		char tmp[256];

		snprintf(tmp, sizeof(tmp), "%s", buf);
		snprintf(buf, len, "block%s %.*s", k > 1 ? "s" : "", (int)(len > 8 ? len - 8 : 0), tmp);
	}
}

/* Whether the function containing addr is declared in file: else its code
 * there is an inlined copy. */
static bool declared_in(struct session *s, struct kernel_lines *kl, uint64_t addr, uint32_t file)
{
	const struct ksym *sym;
	struct line_func f;
	char name[256];
	size_t n;
	int64_t i;

	if (symtab_function(s->k->syms, addr, &sym, NULL, NULL))
		return false;
	snprintf(name, sizeof(name), "%s", sym->name);
	name[strcspn(name, ".")] = 0;	/* NAME.isra.0 is NAME's */
	i = lineindex_func_find(kl->li, name, &n);
	for (size_t k = 0; i >= 0 && k < n; k++) {
		lineindex_func(kl->li, (size_t)i + k, &f);
		if (f.file == file)
			return true;
	}
	return false;
}

/* info line FILE:LINE: every place its code is, with the blocks there. */
static int info_line_code(struct session *s, const char *word, struct gerr *e)
{
	struct kernel_lines *kl;
	struct range *r;
	uint32_t file, first, last;
	size_t n;

	if (lines_parse(s, word, &file, &first, &last, e) || lines_index(s, &kl, e) ||
	    lines_ranges(s, file, first, last, &r, &n, e))
		return -1;
	if (first == last)
		fprintf(s->out, "Line %u of \"%s\"", first, lineindex_file_name(kl->li, file));
	else
		fprintf(s->out, "Lines %u-%u of \"%s\"", first, last, lineindex_file_name(kl->li, file));
	fprintf(s->out, " %s in %zu place%s:\n", first == last ? "has code" : "have code",
		n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && !session_interrupted(s); i++) {
		char a[320], b[320], blocks[256];

		session_where(s, r[i].start, a, sizeof(a));
		code_text_addr(s, r[i].end, b, sizeof(b));
		blocks_of(s, r[i].start, r[i].end, blocks, sizeof(blocks));
		fprintf(s->out, "  %s to %s, %" PRIu64 " bytes%s%s%s\n", a, b, r[i].end - r[i].start,
			blocks[0] ? ", " : "", blocks,
			declared_in(s, kl, r[i].start, file) ? "" : " (inlined)");
	}
	free(r);
	return 0;
}

/* The functions inlined at addr, innermost first, each with where it is
 * called from, as gdb shows inlined frames: the source line above is in
 * the innermost. */
static void inlined_chain(struct session *s, struct kernel_lines *kl, uint64_t addr)
{
	struct line_inline in[16];
	const struct ksym *fn;
	size_t n = lineindex_inlined_at(kl->li, addr - (uint64_t)kl->slide, in, 16);

	for (size_t i = 0; i < n; i++) {
		const char *into = i + 1 < n ? in[i + 1].name :
				   !symtab_function(s->k->syms, addr, &fn, NULL, NULL) ? fn->name : "?";

		fprintf(s->out, "  in %s, inlined into %s at %s:%u\n", in[i].name[0] ? in[i].name : "?",
			into, lineindex_file_name(kl->li, in[i].call_file), in[i].call_line);
	}
}

static int info_line(struct session *s, const char *expr, struct gerr *e)
{
	struct kernel_lines *kl;
	struct line_row r;
	char where[320], end[320];
	uint64_t addr, lo, hi;
	int64_t i;

	if (lines_is_fileline(expr))
		return info_line_code(s, expr, e);
	if (session_resolve(s, expr, &addr, e))
		return -1;
	code_text_addr(s, addr, where, sizeof(where));
	if (lines_index(s, &kl, e))
		return -1;
	i = kernel_lines_row_at(kl, addr, &r);
	if (i < 0) {
		fprintf(s->out, "No line number information available for address %s\n", where);
		return 0;
	}
	lo = kernel_lines_addr(kl, &r);
	hi = kernel_lines_row_end(kl, (size_t)i);
	code_text_addr(s, lo, where, sizeof(where));
	code_text_addr(s, hi, end, sizeof(end));
	fprintf(s->out, "Line %u of \"%s\" starts at address %s and ends at %s.\n",
		r.line, lineindex_file_name(kl->li, r.file), where, end);
	inlined_chain(s, kl, addr);
	return 0;
}

/* info functions / variables: kallsyms names matching rx, as gdb's
 * non-debugging symbols. */
static int info_names(struct session *s, bool functions, const char *rx_text, struct gerr *e)
{
	regex_t rx;
	size_t shown = 0;

	if (rx_text && regcomp(&rx, rx_text, REG_EXTENDED | REG_NOSUB))
		return gerr_set(e, "'%s' is not a regular expression", rx_text);
	if (rx_text)
		fprintf(s->out, "All %s matching regular expression \"%s\":\n\n",
			functions ? "functions" : "variables", rx_text);
	else
		fprintf(s->out, "All defined %s:\n\n", functions ? "functions" : "variables");
	fprintf(s->out, "Non-debugging symbols:\n");
	for (size_t i = 0; i < symtab_count(s->k->syms) && !session_interrupted(s); i++) {
		const struct ksym *k = symtab_at(s->k->syms, i);

		if (ksym_is_text(k) != functions || (!functions && !section_of(k->type)))
			continue;
		if (rx_text && regexec(&rx, k->name, 0, NULL, 0))
			continue;
		fprintf(s->out, "0x%016" PRIx64 "  %s%s%s%s\n", k->addr, k->name,
			k->module ? "  [" : "", k->module ? k->module : "", k->module ? "]" : "");
		shown++;
	}
	if (rx_text)
		regfree(&rx);
	if (!shown)
		fprintf(s->out, "(none)\n");
	return 0;
}

/* The subcommands, each as the table calls it: argv[0] is its name. */
/*
 * info scope LOCATION, as gdb's: the parameters and locals a splice there
 * can name (fetch, if), and where each is at that address.
 */
static int info_scope(struct session *s, char *const *words, int nwords, struct gerr *e)
{
	struct cexpr_site site;
	struct location loc;
	struct loc_site *sites;
	struct ktypes *t;
	size_t n;
	uint64_t addr;
	char where[160], type[128];

	if (location_parse(s, words, nwords, &loc, e))
		return -1;
	addr = loc.addr;
	if (loc.kind != LOC_ADDR) {
		if (!location_is_single(&loc))
			return gerr_set(e, "info scope takes one address: FUNC:block N, FUNC:entry or "
					"an address, not %s", words[0]);
		if (location_sites(s, &loc, &sites, &n, NULL, e))
			return -1;
		addr = sites[0].site;
		free(sites);
	}
	if (fetch_locals_at(s, addr, &site, e) || types_get(s, &t, e))
		return -1;
	session_where(s, addr, where, sizeof(where));
	if (!site.nlocals) {
		fprintf(s->out, "No parameters or locals at %s.\n", where);
		return 0;
	}
	fprintf(s->out, "At %s:\n", where);
	for (int i = 0; i < site.nlocals; i++) {
		const struct cexpr_local *l = &site.locals[i];
		const char *reg = fetch_field_name(l->field);

		ktypes_name(t, &l->type, type, sizeof(type));
		if (l->kind == LINE_LOCAL_REG)
			fprintf(s->out, "Symbol %s is in $%s, of type %s.\n", l->name, reg, type);
		else if (l->kind == LINE_LOCAL_MEM)
			fprintf(s->out, "Symbol %s is at [$%s%+d], of type %s.\n", l->name, reg, l->off,
				type);
		else if (l->kind == LINE_LOCAL_OUT)
			fprintf(s->out, "Symbol %s is optimized out, of type %s.\n", l->name, type);
		else if (l->kind == LINE_LOCAL_EXPR)
			fprintf(s->out, "Symbol %s is computed by a DWARF expression gilk does not "
				"evaluate, of type %s.\n", l->name, type);
		else
			fprintf(s->out, "Symbol %s is $%s%+d (its value), of type %s.\n", l->name, reg,
				l->off, type);
	}
	return 0;
}

static int run_scope(struct session *s, int argc, char **argv, struct gerr *e)
{
	return info_scope(s, argv + 1, argc - 1, e);
}

static int run_splices(struct session *s, int argc, char **argv, struct gerr *e)
{
	return argc == 2 ? info_splice(s, argv[1], e) : info_splices(s, e);
}

static int run_instruments(struct session *s, int argc, char **argv, struct gerr *e)
{
	(void)argc;
	(void)argv;
	return info_instruments(s, e);
}

static int run_symbol(struct session *s, int argc, char **argv, struct gerr *e)
{
	(void)argc;
	return info_symbol(s, argv[1], e);
}

static int run_address(struct session *s, int argc, char **argv, struct gerr *e)
{
	(void)argc;
	return info_address(s, argv[1], e);
}

static int run_line(struct session *s, int argc, char **argv, struct gerr *e)
{
	(void)argc;
	return info_line(s, argv[1], e);
}

static int run_names(struct session *s, int argc, char **argv, struct gerr *e)
{
	return info_names(s, argv[0][0] == 'f', argc == 2 ? argv[1] : NULL, e);
}

/* "info splice ID" reads as English: a unique prefix names splices */
static const struct subcommand subs[] = {
	{ "splices", run_splices, 0, 1, CMD_LIVE, "[ID]" },
	{ "instruments", run_instruments, 0, 0, CMD_LIVE, NULL },
	{ "symbol", run_symbol, 1, 1, 0, "LOCATION" },
	{ "address", run_address, 1, 1, 0, "SYMBOL" },
	{ "line", run_line, 1, 1, 0, "LOCATION|FILE:LINE" },
	{ "scope", run_scope, 1, 2, 0, "LOCATION" },
	{ "functions", run_names, 0, 1, 0, "[REGEX]" },
	{ "variables", run_names, 0, 1, 0, "[REGEX]" },
	{ NULL, NULL, 0, 0, 0, NULL },
};

const struct command cmd_info = {
	.name = "info",
	.group = GROUP_CODE,
	.subs = subs,
	.complete = COMPLETE_WORDS,
	.complete2 = COMPLETE_SYMBOL,
	.help = "info splices: every splice with its hits, events lost because the\n"
		"buffer was full, nested hits (inside an instrument, not run), hits its\n"
		"filter turned away (filtered), and the filter (if EXPR).\n"
		"info splice ID: one splice in full: the bytes it displaced, the bytes\n"
		"it wrote (read back now) and its trampoline, disassembled; for one\n"
		"that aggregates, its maps as \"hist ID\" shows them.\n"
		"info instruments: the instruments gilk.ko knows, their modules, what\n"
		"their trampolines save (pt_regs; scratch: what a call clobbers; inline:\n"
		"no call, count's counter or tsc's ring written in the trampoline) and\n"
		"their uses, and the fields their events hold (/x: shown in hex; in\n"
		"brackets: an event may end before them).\n"
		"info symbol LOCATION: the symbol and offset at an address, its section\n"
		"and module (past an object's size, which the line index keeps, none).\n"
		"info address SYMBOL: where a symbol is. info line LOCATION:\n"
		"the source line of an address and where its code starts and ends, and\n"
		"the functions inlined there with where each is called from; info\n"
		"line FILE:LINE (or FILE:FIRST-LAST): every place the line's code is,\n"
		"inlined copies in other functions too, and the blocks there (lines come\n"
		"from the kernel's line index: docs/kernels.md). info scope LOCATION: the\n"
		"parameters and locals the line index puts at that address, each in a\n"
		"register or in memory at one (the frame's at rsp plus the CFA's offset\n"
		"from the kernel's ORC table), which a splice there can name in fetch\n"
		"and if (splice path_init:block 5 regs fetch nd->depth), or optimized\n"
		"out there (DWARF gives it no place), or computed by a DWARF expression\n"
		"gilk does not evaluate. info functions [REGEX],\n"
		"info variables [REGEX]: the function or data symbols whose names match\n"
		"(these work offline too, over kallsyms).",
};
