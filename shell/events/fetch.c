/* Fetch programs from C (see fetch.h). */
#include "events/fetch.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilk_reg_index.h"
#include "session/lines.h"
#include "orc.h"
#include "session/session.h"
#include "session/types.h"

bool fetch_take(int *argc, char **argv, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	for (i = *argc - 1; i > 0 && strcmp(argv[i], "fetch"); i--)
		;
	if (i <= 0)
		return false;
	buf[0] = '\0';
	for (int k = i + 1; k < *argc; k++)
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s",
				      k > i + 1 ? " " : "", argv[k]);
	*argc = i;
	return true;
}

static const char *skip_blanks(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* "NAME = EXPR" (not "=="): NAME's length, or 0. */
static size_t explicit_name(const char *p)
{
	size_t n = 0;
	const char *q;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	q = skip_blanks(p + n);
	return *q == '=' && q[1] != '=' ? n : 0;
}

/* The last identifier of an expression, as perf probe names a value. */
static void last_ident(const char *p, size_t len, char *buf, size_t size)
{
	size_t end = len, start;

	while (end > 0 && !isalnum((unsigned char)p[end - 1]) && p[end - 1] != '_')
		end--;
	start = end;
	while (start > 0 && (isalnum((unsigned char)p[start - 1]) || p[start - 1] == '_'))
		start--;
	while (start < end && isdigit((unsigned char)p[start]))	/* a[3]: "a", not "3" */
		start++;
	if (start == end) {
		snprintf(buf, size, "%s", "");
		return;
	}
	snprintf(buf, size, "%.*s", (int)(end - start), p + start);
}

int fetch_compile(struct session *s, const char *text, const struct cexpr_site *site,
		  struct gilk_fetch *out, struct gerr *e)
{
	const char *p = skip_blanks(text);

	memset(out, 0, sizeof(*out));
	if (!*p)
		return gerr_set(e, "fetch: what to fetch? fetch EXPR[, EXPR]... (fetch filename)");
	if (strlen(text) >= sizeof(out->text))
		return gerr_set(e, "fetch: '%s' is longer than %zu characters", text,
				sizeof(out->text) - 1);
	snprintf(out->text, sizeof(out->text), "%s", p);
	while (*p) {
		size_t len = strcspn(p, ","), nlen = explicit_name(p);
		struct gilk_fetch_value *v = &out->value[out->len];
		char expr[GILK_FETCH_TEXT_MAX], name[64];

		if (out->len == GILK_FETCH_MAX)
			return gerr_set(e, "fetch: at most %d values a splice", GILK_FETCH_MAX);
		snprintf(expr, sizeof(expr), "%.*s", (int)len, p);
		while (len && isspace((unsigned char)expr[len - 1]))
			expr[--len] = '\0';
		if (nlen) {
			snprintf(name, sizeof(name), "%.*s", (int)nlen, p);
			memmove(expr, skip_blanks(strchr(expr, '=') + 1),
				strlen(skip_blanks(strchr(expr, '=') + 1)) + 1);
		} else {
			last_ident(expr, strlen(expr), name, sizeof(name));
		}
		if (!expr[0])
			return gerr_set(e, "fetch: an empty value in '%s'", text);
		if (cexpr_fetch(s, expr, site, v, e))
			return -1;
		if (!name[0])
			return gerr_set(e, "fetch: '%s' needs a name: NAME=%s", expr, expr);
		if (strlen(name) >= GILK_FETCH_NAME_MAX)
			return gerr_set(e, "fetch: the name '%s' is longer than %d characters", name,
					GILK_FETCH_NAME_MAX - 1);
		for (uint32_t k = 0; k < out->len; k++)
			if (!strcmp(out->value[k].name, name))
				return gerr_set(e, "fetch: two values named '%s'; name one: NAME=EXPR",
						name);
		snprintf(v->name, sizeof(v->name), "%s", name);
		out->len++;
		p += strcspn(p, ",");
		if (*p == ',') {
			p = skip_blanks(p + 1);
			if (!*p)
				return gerr_set(e, "fetch: a value expected after the last ','");
		}
	}
	return 0;
}

static const char *from_name(uint8_t from)
{
	/* as kprobe events write them: pt_regs' members */
	static const char *const regs[] = {
#define GILK_REG(name, member, dwarf) "%" #member,
#include "gilk_regs.h"
	};
	static const char *const args[] = {
#define GILK_ARG(i, name, member) "%" #member,
#include "gilk_regs.h"
	};

	if (from == GILK_FETCH_FROM_ZERO)
		return "0";
	if (from == GILK_FETCH_FROM_TASK)
		return "$current";
	if (from >= GILK_FF_ARG0 && from < GILK_FF_ARG0 + sizeof(args) / sizeof(args[0]))
		return args[from - GILK_FF_ARG0];
	if (from >= GILK_FF_RAX && from < GILK_FF_RAX + GILK_NREGS)
		return regs[from - GILK_FF_RAX];
	switch (from) {
#define GILK_STATE(name, member, field) case field: return "%" #member;
#include "gilk_regs.h"
	case GILK_FF_PID: return "$pid";
	case GILK_FF_TID: return "$tid";
	case GILK_FF_CPU: return "$cpu";
	case GILK_FF_CONTEXT: return "$context";
	}
	return "?";
}

void fetch_describe(const struct gilk_fetch_value *v, char *buf, size_t len)
{
	char inner[512], next[600];
	const char *type;

	snprintf(inner, sizeof(inner), "%s", from_name(v->from));
	for (uint8_t k = 0; k < v->nsteps && k < GILK_FETCH_STEPS; k++) {
		const struct gilk_fetch_step *st = &v->step[k];
		bool zero = v->from == GILK_FETCH_FROM_ZERO && !k;

		if (st->op == GILK_FSTEP_ADD)
			snprintf(next, sizeof(next), "(%s)%+" PRId64, inner, (int64_t)st->off);
		else if (zero)	/* an absolute address, as kprobe events write one */
			snprintf(next, sizeof(next), "@0x%" PRIx64, (uint64_t)st->off);
		else
			snprintf(next, sizeof(next), "%+" PRId64 "(%s)", (int64_t)st->off, inner);
		snprintf(inner, sizeof(inner), "%.*s", (int)sizeof(inner) - 1, next);
	}
	if (v->show == GILK_FSHOW_STRING)
		snprintf(buf, len, "%s:string (at most %u bytes)", inner,
			 v->nsteps ? v->step[v->nsteps - 1].width : 0);
	else {
		type = v->show == GILK_FSHOW_HEX ? "x" : v->show == GILK_FSHOW_SIGNED ? "s" : "u";
		snprintf(buf, len, "%s:%s%u", inner, type, 8u * (v->size ? v->size : 8));
	}
}

/* DWARF's register numbers as gilk's fields (uapi GILK_FF_*). */
uint8_t fetch_dwarf_field(uint8_t reg)
{
	static const uint8_t field[] = {
#define GILK_REG(name, member, dwarf) [dwarf] = GILK_FF_RAX + GILK_REG_##name,
#include "gilk_regs.h"
	};

	return reg < sizeof(field) ? field[reg] : GILK_FF_RAX + reg;
}

static const char *const reg_names[GILK_NREGS] = {
#define GILK_REG(name, member, dwarf) #name,
#include "gilk_regs.h"
};

const char *fetch_field_name(uint8_t field)
{
	return field >= GILK_FF_RAX && field < GILK_FF_RAX + GILK_NREGS ?
	       reg_names[field - GILK_FF_RAX] : "?";
}

static int read_kernel(void *ctx, uint64_t addr, void *buf, size_t len, struct gerr *e)
{
	return session_read(ctx, addr, buf, len, e);
}

/* The CFA at addr as rsp plus *off, from the kernel's ORC table. */
static int cfa_at(struct session *s, uint64_t addr, int32_t *off, struct gerr *e)
{
	struct orc_table t = { .read = read_kernel, .ctx = s };

	if (session_resolve(s, "__start_orc_unwind_ip", &t.ip_start, e) ||
	    session_resolve(s, "__stop_orc_unwind_ip", &t.ip_stop, e) ||
	    session_resolve(s, "__start_orc_unwind", &t.entries, e))
		return -1;
	return orc_cfa_offset(&t, addr, off, e);
}

int fetch_locals_at(struct session *s, uint64_t addr, struct cexpr_site *site, struct gerr *e)
{
	bool have_cfa = false, tried_cfa = false;
	int32_t cfa = 0;
	struct line_local l[CEXPR_LOCALS_MAX];
	struct kernel_lines *kl;
	struct ktypes *t;
	size_t n;

	site->nlocals = 0;
	if (lines_index(s, &kl, e) || types_get(s, &t, e))
		return -1;
	n = lineindex_locals_at(kl->li, addr - (uint64_t)kl->slide, l, CEXPR_LOCALS_MAX);
	for (size_t i = 0; i < n; i++) {
		struct cexpr_local *c = &site->locals[site->nlocals];
		struct gerr ignored;

		/* a type BTF does not have (a local's own struct) is left out */
		if (ktypes_parse(t, l[i].type, &c->type, &ignored))
			continue;
		snprintf(c->name, sizeof(c->name), "%s", l[i].name);
		c->kind = l[i].kind;
		c->field = fetch_dwarf_field(l[i].reg);
		c->off = l[i].off;
		if (c->kind == LINE_LOCAL_CFA) {
			/* in the frame: at rsp plus the CFA's offset plus its own */
			if (!tried_cfa)
				have_cfa = !cfa_at(s, addr, &cfa, &ignored);
			tried_cfa = true;
			if (!have_cfa)
				continue;
			c->kind = LINE_LOCAL_MEM;
			c->field = GILK_FF_RAX + GILK_REG_SP;
			c->off = cfa + l[i].off;
		}
		site->nlocals++;
	}
	return 0;
}

void fetch_site_at(struct session *s, const struct location *loc, struct cexpr_site *site)
{
	char names[6][64];
	const struct ksym *sym;
	struct ktypes *t;
	struct gerr e;
	int n;

	memset(site, 0, sizeof(*site));
	if (!loc || symtab_function(s->k->syms, loc->addr, &sym, NULL, NULL))
		return;
	if (loc->kind == LOC_BLOCK || (loc->kind == LOC_ADDR && loc->addr != sym->addr)) {
		/* mid-function: where the line index puts each local there */
		struct loc_site *sites;
		size_t ns;

		if (loc->kind == LOC_ADDR) {
			fetch_locals_at(s, loc->addr, site, &e);
		} else if (!location_sites(s, loc, &sites, &ns, NULL, &e)) {
			if (ns == 1)
				fetch_locals_at(s, sites[0].site, site, &e);
			free(sites);
		}
		return;
	}
	if (strchr(sym->name, '.') || types_get(s, &t, &e))
		return;
	if (loc->kind == LOC_EXIT) {
		site->have_ret = !ktypes_return(t, sym->name, &site->ret);
		return;
	}
	if (loc->kind != LOC_ENTRY && loc->kind != LOC_ADDR)
		return;
	n = ktypes_params(t, sym->name, names, site->ptypes);
	for (int i = 0; i < n; i++)
		memcpy(site->params[i], names[i], sizeof(site->params[i]));
	site->nparams = n > 0 ? n : 0;
}
