/* C expressions over kernel memory (see cexpr.h): a recursive descent over
 * gdb's print grammar, the part a kernel's data needs. */
#include "session/cexpr.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/event_regs.h"
#include "gilk_reg_index.h"
#include "lineindex.h"
#include "output/code_text.h"
#include "session/types.h"

/* Values larger than this are not read whole (a task_struct is ~10 KiB). */
#define CEXPR_READ_MAX (1u << 20)

struct parser {
	struct session *s;
	struct ktypes *t;
	const char *p, *text;
	struct gerr *e;
	const char *cmd;	/* "print", or "fetch" */
	/* fetch: the value compiled, what the site names, and whether a
	 * value read at the hit is in it yet (one is) */
	struct gilk_fetch_value *fv;
	const struct cexpr_site *site;
	bool read_at_hit;
};

static int perr(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *ps, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gerr_set(ps->e, "%s: %s", ps->cmd, msg);
}

/*
 * Fetch: a read that happens at the hit, as the program's next step
 * (uapi gilk.h): the value so far plus off.
 */
static int fetch_step(struct parser *ps, struct cval *v, uint8_t op, uint8_t width, uint64_t off)
{
	struct gilk_fetch_value *fv = ps->fv;

	if (!v->sym) {	/* a constant address: the value starts from 0 */
		if (ps->read_at_hit)
			return perr(ps, "'%s' reads two values at the hit; fetch each on its own", ps->text);
		fv->from = GILK_FETCH_FROM_ZERO;
		ps->read_at_hit = v->sym = true;
	}
	if (fv->nsteps == GILK_FETCH_STEPS)
		return perr(ps, "'%s' takes more than %d reads and adds", ps->text, GILK_FETCH_STEPS);
	fv->step[fv->nsteps].op = op;
	fv->step[fv->nsteps].width = width;
	fv->step[fv->nsteps].off = (int64_t)off;
	fv->nsteps++;
	return 0;
}

static void blanks(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool eat(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);

	blanks(ps);
	if (strncmp(ps->p, tok, n))
		return false;
	ps->p += n;
	return true;
}

static int ident(struct parser *ps, char *buf, size_t len)
{
	size_t n = 0;

	blanks(ps);
	if (!isalpha((unsigned char)*ps->p) && *ps->p != '_')
		return -1;
	while (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_')
		n++;
	if (n >= len)
		return -1;
	memcpy(buf, ps->p, n);
	buf[n] = 0;
	ps->p += n;
	return 0;
}

static int syntax(struct parser *ps, const char *what)
{
	if (!*ps->p)
		return perr(ps, "%s at the end", what);
	return perr(ps, "%s at '%s'", what, ps->p);
}

static const struct ktype long_type = { 0, 0, false, 0 };

/* An lvalue's scalar, read: integers and pointers up to 8 bytes. */
static int rvalue(struct parser *ps, struct cval *v)
{
	int64_t size;

	if (!v->lvalue)
		return 0;
	size = ktypes_size(ps->t, &v->type);
	if (v->type.array || ktypes_is_struct(ps->t, &v->type)) {
		/* an array or struct stands for its address */
		v->v = v->addr;
		v->lvalue = false;
		if (v->type.array) {
			v->type = ktypes_element(ps->t, &v->type);
			v->type.ptr++;
		}
		return 0;
	}
	if (size <= 0 || size > 8)
		return perr(ps, "a value of %" PRId64 " bytes is no number", size);
	v->v = 0;
	if (ps->fv) {	/* read at the hit; signed shown as such */
		if (size == 3 || (size > 4 && size < 8))
			return perr(ps, "a value of %" PRId64 " bytes is no number", size);
		if (fetch_step(ps, v, GILK_FSTEP_LOAD, (uint8_t)size, v->addr))
			return -1;
		v->lvalue = false;
		return 0;
	}
	if (session_read(ps->s, v->addr, &v->v, (size_t)size, ps->e))
		return -1;
	if (ktypes_is_signed(ps->t, &v->type) && size < 8 && (v->v >> (8 * size - 1)) & 1)
		v->v |= ~0ull << (8 * size);
	v->lvalue = false;
	return 0;
}

static int expr(struct parser *ps, struct cval *v);
static int unary(struct parser *ps, struct cval *v);

/* A cast's type in parentheses: "(struct file *)", "(unsigned long)". */
static int try_cast(struct parser *ps, struct ktype *ty, bool *is_cast)
{
	const char *save = ps->p, *close;
	char text[256];
	struct gerr ignored;

	*is_cast = false;
	if (!eat(ps, "("))
		return 0;
	close = strchr(ps->p, ')');
	if (!close || (size_t)(close - ps->p) >= sizeof(text)) {
		ps->p = save;
		return 0;
	}
	snprintf(text, sizeof(text), "%.*s", (int)(close - ps->p), ps->p);
	if (strchr(text, '(')) {	/* a parenthesised expression, not a type */
		ps->p = save;
		return 0;
	}
	if (!strncmp(text, "struct ", 7) || !strncmp(text, "union ", 6) || !strncmp(text, "enum ", 5) ||
	    strchr(text, '*') || !ktypes_parse(ps->t, text, ty, &ignored)) {
		if (ktypes_parse(ps->t, text, ty, ps->e))
			return -1;
		ps->p = close + 1;
		*is_cast = true;
		return 0;
	}
	ps->p = save;
	return 0;
}

/* A register's field (GILK_FF_*): rdi..r15, rip, rflags, arg0..arg5. */
static int reg_field(const char *name)
{
	static const struct {
		const char *name;
		int field;
	} regs[] = {
#define GILK_REG(name, member, dwarf) { #name, GILK_FF_RAX + GILK_REG_##name },
#define GILK_STATE(name, member, field) { #name, field },
#include "gilk_regs.h"
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(name, regs[i].name))
			return regs[i].field;
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '5' && !name[4])
		return GILK_FF_ARG0 + name[3] - '0';
	return -1;
}

/*
 * Fetch: a name the hit gives (a parameter at the entry, retval at a
 * return point, a register, current): 1 with v the value read there, 0
 * for another name (a global), -1 on error.
 */
static int site_name(struct parser *ps, const char *name, struct cval *v)
{
	const struct cexpr_site *site = ps->site;
	int field = -1;
	bool typed = false;

	for (int i = 0; site && i < site->nparams; i++)
		if (!strcmp(name, site->params[i])) {
			field = GILK_FF_ARG0 + i;
			v->type = site->ptypes[i];
			typed = true;
		}
	for (int i = 0; field < 0 && site && i < site->nlocals; i++) {
		const struct cexpr_local *l = &site->locals[i];

		if (strcmp(name, l->name))
			continue;
		if (l->kind == LINE_LOCAL_OUT)
			return perr(ps, "'%s' is optimized out here: the kernel's debug information "
				    "gives it no location at this site (info scope LOCATION lists "
				    "what a block has)", name);
		if (l->kind == LINE_LOCAL_EXPR)
			return perr(ps, "'%s' is computed here by a DWARF expression gilk does not "
				    "evaluate (info scope LOCATION lists what a block has)", name);
		if (ps->read_at_hit)
			return perr(ps, "'%s' reads two values at the hit; fetch each on its own",
				    ps->text);
		ps->fv->from = l->field;
		ps->read_at_hit = true;
		v->typed = v->sym = true;
		v->type = l->type;
		/* in memory at the register plus off; else the register (plus
		 * off) is its value */
		v->lvalue = l->kind == LINE_LOCAL_MEM;
		v->addr = v->lvalue ? (uint64_t)(int64_t)l->off : 0;
		v->v = l->kind == LINE_LOCAL_VALUE ? (uint64_t)(int64_t)l->off : 0;
		return 1;
	}
	if (field < 0 && site && site->have_ret && !strcmp(name, "retval")) {
		field = GILK_FF_RAX + GILK_REG_RETVAL;
		v->type = site->ret;
		typed = true;
	}
	if (field < 0 && !strcmp(name, "retval"))
		field = GILK_FF_RAX + GILK_REG_RETVAL;
	if (field < 0)
		field = reg_field(name);
	if (field < 0 && !strcmp(name, "current")) {
		if (ktypes_parse(ps->t, "struct task_struct", &v->type, ps->e))
			return -1;
		v->type.ptr = 1;
		field = GILK_FETCH_FROM_TASK;
		typed = true;
	}
	if (field < 0)
		return 0;
	if (ps->read_at_hit)
		return perr(ps, "'%s' reads two values at the hit; fetch each on its own", ps->text);
	if (!typed && ktypes_parse(ps->t, "unsigned long", &v->type, ps->e))
		return -1;
	ps->fv->from = (uint8_t)field;
	ps->read_at_hit = true;
	v->typed = v->sym = true;
	v->v = 0;
	return 1;
}

static int primary(struct parser *ps, struct cval *v)
{
	const struct ksym *fn;
	struct gerr why;
	char name[256];
	uint64_t addr;

	memset(v, 0, sizeof(*v));
	blanks(ps);
	if (eat(ps, "(")) {
		if (expr(ps, v))
			return -1;
		return eat(ps, ")") ? 0 : syntax(ps, "')' expected");
	}
	if (isdigit((unsigned char)*ps->p)) {
		char *end;

		v->v = strtoull(ps->p, &end, 0);
		if (isalnum((unsigned char)*end) || *end == '_') {
			size_t n = strcspn(ps->p, " \t+-*()[]");

			return perr(ps, "'%.*s' is not a number (decimal or 0x-hex)", (int)n, ps->p);
		}
		ps->p = end;
		v->typed = true;
		v->type = long_type;
		return ktypes_parse(ps->t, "long", &v->type, ps->e);
	}
	if (*ps->p == '$' && !ps->fv) {	/* a register of the last event shown */
		ps->p++;
		if (ident(ps, name, sizeof(name)))
			return syntax(ps, "a register's name after '$' expected");
		if (event_regs_value(ps->s, name, &v->v, ps->e))
			return -1;
		if (!strcmp(name, "rip") || !strcmp(name, "pc")) {
			v->symbol = true;	/* shown as an address and where it is */
			return 0;
		}
		v->typed = true;
		return ktypes_parse(ps->t, "long", &v->type, ps->e);
	}
	if (ident(ps, name, sizeof(name)))
		return syntax(ps, "a variable, a number or '(' expected");
	if (ps->fv)
		switch (site_name(ps, name, v)) {
		case -1:
			return -1;
		case 1:
			return 0;
		}
	if (!strcmp(name, "current")) {
		if (types_current(ps->s, &v->addr, ps->e) ||
		    ktypes_parse(ps->t, "struct task_struct", &v->type, ps->e))
			return -1;
		v->v = v->addr;
		v->type.ptr = 1;
		v->typed = true;
		return 0;
	}
	if (session_resolve(ps->s, name, &addr, ps->e)) {
		if (ps->fv && ps->site && (ps->site->nparams || ps->site->nlocals)) {
			char names[400];
			size_t used = 0;

			for (int i = 0; i < ps->site->nparams; i++)
				used += (size_t)snprintf(names + used, used < sizeof(names) ?
							 sizeof(names) - used : 0, " %s",
							 ps->site->params[i]);
			for (int i = 0; i < ps->site->nlocals; i++)
				if (ps->site->locals[i].kind < LINE_LOCAL_EXPR)
					used += (size_t)snprintf(names + used, used < sizeof(names) ?
								 sizeof(names) - used : 0, " %s",
								 ps->site->locals[i].name);
			if (used)
				return perr(ps, "no parameter, local or global '%s' here; the site "
					    "has:%s", name, names);
		}
		if (ps->fv)
			return perr(ps, "no parameter, local or global '%s' here (info scope LOCATION "
				    "lists what a block has; registers: rdi, arg0, ...)", name);
		return -1;
	}
	v->addr = addr;
	if (!types_of_var(ps->s, name, &v->type, &why)) {
		v->typed = v->lvalue = true;
		return 0;
	}
	/* no type: a function stands for its address; a variable is an
	 * error unless & takes its address (cexpr_eval tells) */
	v->typed = false;
	v->symbol = true;
	v->v = addr;
	v->unknown = !symtab_function(ps->s->k->syms, addr, &fn, NULL, NULL) ? fn->addr != addr : true;
	snprintf(v->why, sizeof(v->why), "%s", why.msg);
	return 0;
}

static int member(struct parser *ps, struct cval *v, bool arrow)
{
	struct kmember m;
	char name[256];

	if (ident(ps, name, sizeof(name)))
		return syntax(ps, "a member's name expected");
	if (!v->typed)
		return perr(ps, "%s has no type, so no member '%s'", ps->text, name);
	if (v->typed)
		v->type = ktypes_resolve(ps->t, &v->type);
	if (arrow) {
		if (!v->type.ptr)
			return perr(ps, "'->%s' needs a pointer; this is no pointer (use '.')", name);
		if (rvalue(ps, v))
			return -1;
		v->type = ktypes_element(ps->t, &v->type);
		v->addr = v->v;
		v->lvalue = true;
	} else if (v->type.ptr && !v->type.array) {
		return perr(ps, "'.%s' on a pointer (use '->')", name);
	}
	if (!v->lvalue)
		return perr(ps, "'.%s' needs a value in memory", name);
	if (ktypes_member(ps->t, &v->type, name, &m, ps->e))
		return -1;
	v->type = m.type;
	v->addr += m.offset;
	if (m.bits && ps->fv)
		return perr(ps, "'%s' is a bit-field, which fetch does not read", name);
	if (m.bits) {	/* a bitfield: read and cut out now */
		uint64_t w = 0;

		if (session_read(ps->s, v->addr, &w, (m.bit + m.bits + 7) / 8, ps->e))
			return -1;
		v->v = (w >> m.bit) & (m.bits == 64 ? ~0ull : (1ull << m.bits) - 1);
		v->lvalue = false;
	}
	return 0;
}

static int postfix(struct parser *ps, struct cval *v)
{
	if (primary(ps, v))
		return -1;
	for (;;) {
		if (eat(ps, "->")) {
			if (member(ps, v, true))
				return -1;
		} else if (eat(ps, ".")) {
			if (member(ps, v, false))
				return -1;
		} else if (eat(ps, "[")) {
			struct cval i;
			int64_t es;
			struct ktype el;

			if (expr(ps, &i) || rvalue(ps, &i))
				return -1;
			if (i.sym)
				return perr(ps, "a subscript read at the hit; only a constant one is fetched");
			if (!eat(ps, "]"))
				return syntax(ps, "']' expected");
			if (!v->typed || (!v->type.array && !ktypes_resolve(ps->t, &v->type).ptr &&
					  !ktypes_resolve(ps->t, &v->type).array))
				return perr(ps, "a subscript needs an array or a pointer");
			el = ktypes_element(ps->t, &v->type);
			es = ktypes_size(ps->t, &el);
			if (es <= 0)
				return perr(ps, "its elements have no size");
			if (ktypes_resolve(ps->t, &v->type).ptr && !ktypes_resolve(ps->t, &v->type).array) {
				if (rvalue(ps, v))
					return -1;
				v->addr = v->v;
			}
			v->type = el;
			v->addr += i.v * (uint64_t)es;
			v->lvalue = true;
		} else {
			return 0;
		}
	}
}

static int unary(struct parser *ps, struct cval *v)
{
	struct ktype cast;
	bool is_cast;

	if (eat(ps, "-")) {
		if (unary(ps, v) || (v->typed && rvalue(ps, v)))
			return -1;
		if (v->sym)
			return perr(ps, "'-' of a value read at the hit is not fetched");
		v->v = -v->v;
		return 0;
	}
	if (eat(ps, "*")) {
		if (unary(ps, v))
			return -1;
		if (!v->typed || !ktypes_resolve(ps->t, &v->type).ptr)
			return perr(ps, "'*' needs a pointer (cast an address: *(struct file *)0x...)");
		if (rvalue(ps, v))
			return -1;
		v->type = ktypes_element(ps->t, &v->type);
		v->addr = v->v;
		v->lvalue = true;
		return 0;
	}
	if (eat(ps, "&")) {
		if (unary(ps, v))
			return -1;
		if (v->symbol && !v->typed) {	/* a bare symbol's address */
			v->unknown = false;
			return 0;
		}
		if (!v->lvalue)
			return perr(ps, "'&' needs a value in memory");
		v->v = v->addr;
		v->lvalue = false;
		v->type.ptr++;
		if (v->type.array) {	/* &array: a pointer to its first element, as far as print goes */
			v->type.array = false;
		}
		return 0;
	}
	if (try_cast(ps, &cast, &is_cast))
		return -1;
	if (is_cast) {
		if (unary(ps, v))
			return -1;
		if (v->typed && rvalue(ps, v))
			return -1;
		v->typed = true;
		v->symbol = false;
		v->type = cast;
		v->lvalue = false;
		return 0;
	}
	return postfix(ps, v);
}

/*
 * * / %: numbers (a variable's value, a constant), as gdb's print works
 * them out (p 39*8); what a fetch reads at the hit is only added to.
 */
static int term(struct parser *ps, struct cval *v)
{
	if (unary(ps, v))
		return -1;
	for (;;) {
		struct cval r;
		char op;

		blanks(ps);
		op = *ps->p;
		if ((op != '*' && op != '/' && op != '%') || ps->p[1] == '=')
			return 0;
		ps->p++;
		if (unary(ps, &r) || (v->typed && rvalue(ps, v)) || (r.typed && rvalue(ps, &r)))
			return -1;
		if (v->sym || r.sym)
			return perr(ps, "a value read at the hit is only added to: %s", ps->text);
		if ((v->typed && v->type.ptr) || (r.typed && r.type.ptr))
			return perr(ps, "'%c' takes numbers, not pointers: %s", op, ps->text);
		if (op != '*' && !r.v)
			return perr(ps, "a division by 0: %s", ps->text);
		v->v = op == '*' ? v->v * r.v :
		       op == '/' ? (uint64_t)((int64_t)v->v / (int64_t)r.v) :
				   (uint64_t)((int64_t)v->v % (int64_t)r.v);
		/* a number now, of the wider of the two (long where either is typed) */
		if ((v->typed || r.typed) && ktypes_parse(ps->t, "long", &v->type, ps->e))
			return -1;
		v->typed = v->typed || r.typed;
		v->lvalue = false;
		v->symbol = false;
		v->unknown = v->unknown || r.unknown;
	}
}

static int expr(struct parser *ps, struct cval *v)
{
	if (term(ps, v))
		return -1;
	for (;;) {
		bool minus;
		struct cval r;
		uint64_t step = 1;

		if (eat(ps, "+"))
			minus = false;
		else if (eat(ps, "-"))
			minus = true;
		else
			return 0;
		if (term(ps, &r) || (v->typed && rvalue(ps, v)) || (r.typed && rvalue(ps, &r)))
			return -1;
		if (r.sym)	/* (v is constant: one value is read at the hit) */
			return perr(ps, "put the value read at the hit first: %s + N", ps->text);
		if (v->typed && v->type.ptr) {
			struct ktype el = ktypes_element(ps->t, &v->type);
			int64_t es = ktypes_size(ps->t, &el);

			step = es > 0 ? (uint64_t)es : 1;
		}
		if (minus && v->typed && r.typed && v->type.ptr && r.type.ptr) {
			/* a pointer from a pointer: how many elements apart */
			v->v = (uint64_t)((int64_t)(v->v - r.v) / (int64_t)step);
			if (ktypes_parse(ps->t, "long", &v->type, ps->e))
				return -1;
			continue;
		}
		v->unknown = false;
		if (!v->typed && !r.typed)	/* addresses: one symbol more added than taken is one */
			v->symbol = minus ? v->symbol && !r.symbol : v->symbol != r.symbol;
		v->v = minus ? v->v - r.v * step : v->v + r.v * step;
	}
}

int cexpr_eval(struct session *s, const char *text, struct cval *out, struct gerr *e)
{
	struct parser ps = { s, NULL, text, text, e, "print", NULL, NULL, false };

	if (types_get(s, &ps.t, e))
		return -1;
	if (expr(&ps, out))
		return -1;
	blanks(&ps);
	if (*ps.p)
		return syntax(&ps, "an operator (+ - * / %) expected");
	if (out->unknown)
		return gerr_set(e, "%s", out->why);
	return 0;
}

int cexpr_scalar(struct session *s, struct cval *v, struct gerr *e)
{
	struct parser ps = { s, NULL, "", "", e, "print", NULL, NULL, false };

	if (!v->typed)
		return 0;
	if (types_get(s, &ps.t, e))
		return -1;
	return rvalue(&ps, v);
}

static void name_addr(void *ctx, uint64_t addr, char *buf, size_t len)
{
	code_text_addr(ctx, addr, buf, len);
}

int cexpr_print(struct session *s, const struct cval *v, bool hex, struct gerr *e)
{
	struct ktypes *t;
	uint8_t small[8];
	uint8_t *buf = small;
	int64_t size;

	if (types_get(s, &t, e))
		return -1;
	if (!v->typed) {	/* a symbol's address, or a distance between two */
		char where[320];

		if (!v->symbol) {
			if (hex)
				fprintf(s->out, "0x%" PRIx64 "\n", v->v);
			else
				fprintf(s->out, "%" PRId64 "\n", (int64_t)v->v);
			return 0;
		}
		code_text_addr(s, v->v, where, sizeof(where));
		fprintf(s->out, "%s\n", where);
		return 0;
	}
	size = ktypes_size(t, &v->type);
	if (v->lvalue && v->type.array && !v->type.nelem) {
		/* an array whose size is left open (char linux_banner[]): its
		 * first 256 elements, as far as a string goes */
		struct ktype el = ktypes_element(t, &v->type);
		int64_t es = ktypes_size(t, &el);
		struct ktype as = v->type;

		as.nelem = es > 0 ? (uint32_t)(256 / es) : 0;
		size = ktypes_size(t, &as);
		if (size > 0 && !(buf = calloc(1, (size_t)size)))
			return gerr_set(e, "out of memory");
		if (size <= 0 || session_read(s, v->addr, buf, (size_t)size, e)) {
			if (buf != small)
				free(buf);
			return size <= 0 ? gerr_set(e, "print: its elements have no size") : -1;
		}
		ktypes_print_value(t, &as, buf, (size_t)size, hex, name_addr, s, s->out);
		fputc('\n', s->out);
		free(buf);
		return 0;
	}
	if (size <= 0)
		return gerr_set(e, "print: a value of this type has no size");
	if ((uint64_t)size > CEXPR_READ_MAX)
		return gerr_set(e, "print: %" PRId64 " bytes is more than print reads (x reads memory)", size);
	if ((size_t)size > sizeof(small) && !(buf = malloc((size_t)size)))
		return gerr_set(e, "out of memory");
	if (v->lvalue) {
		if (session_read(s, v->addr, buf, (size_t)size, e)) {
			if (buf != small)
				free(buf);
			return -1;
		}
	} else {
		memcpy(buf, &v->v, (size_t)size < 8 ? (size_t)size : 8);
	}
	ktypes_print_value(t, &v->type, buf, (size_t)size, hex, name_addr, s, s->out);
	fputc('\n', s->out);
	if (buf != small)
		free(buf);
	return 0;
}

static bool is_char(const struct ktypes *t, const struct ktype *ty)
{
	return !ty->ptr && !ty->array && ktypes_is_integer(t, ty) && ktypes_size(t, ty) == 1;
}

/* A string fetched through a char pointer: as bpftrace's str() reads. */
#define FETCH_STR_DEFAULT 64

/* The end of a fetched value: a string, or a number read whole. */
static int fetch_last(struct parser *ps, struct cval *v)
{
	struct gilk_fetch_value *fv = ps->fv;
	struct ktype ty = ktypes_resolve(ps->t, &v->type), el;
	int64_t size;

	if (v->lvalue && ty.array) {
		el = ktypes_element(ps->t, &ty);
		el = ktypes_resolve(ps->t, &el);
		if (!is_char(ps->t, &el))
			return perr(ps, "'%s' is an array: fetch one element of it ([N])", ps->text);
		fv->show = GILK_FSHOW_STRING;
		return fetch_step(ps, v, GILK_FSTEP_STRING,
				  ty.nelem && ty.nelem < GILK_FETCH_STR_MAX ? (uint8_t)ty.nelem :
				  GILK_FETCH_STR_MAX, v->addr);
	}
	if (v->lvalue && ktypes_is_struct(ps->t, &ty))
		return perr(ps, "'%s' is a struct or union: fetch one of its members (ptype shows them)",
			    ps->text);
	if (rvalue(ps, v))
		return -1;
	if (!v->sym)
		return perr(ps, "'%s' is known now, not read at the hit: print shows it", ps->text);
	ty = ktypes_resolve(ps->t, &v->type);
	if (ty.ptr == 1) {
		el = ktypes_element(ps->t, &ty);
		el = ktypes_resolve(ps->t, &el);
		if (is_char(ps->t, &el)) {
			fv->show = GILK_FSHOW_STRING;
			return fetch_step(ps, v, GILK_FSTEP_STRING, FETCH_STR_DEFAULT, v->v);
		}
	}
	if (v->v && fetch_step(ps, v, GILK_FSTEP_ADD, 0, v->v))
		return -1;
	size = ktypes_size(ps->t, &ty);
	fv->size = size == 1 || size == 2 || size == 4 ? (uint8_t)size : 8;
	fv->show = ty.ptr ? GILK_FSHOW_HEX : ktypes_is_signed(ps->t, &ty) ? GILK_FSHOW_SIGNED :
		   GILK_FSHOW_UNSIGNED;
	return 0;
}

int cexpr_fetch(struct session *s, const char *text, const struct cexpr_site *site,
		struct gilk_fetch_value *out, struct gerr *e)
{
	struct parser ps = { s, NULL, text, text, e, "fetch", out, site, false };
	struct cval v;

	memset(out, 0, sizeof(*out));
	if (types_get(s, &ps.t, e) || expr(&ps, &v))
		return -1;
	blanks(&ps);
	if (*ps.p)
		return syntax(&ps, "an operator (+ - * / %) expected");
	if (!v.typed)
		return perr(&ps, "'%s' has no type to fetch it by; cast it: (char *)rsi", text);
	return fetch_last(&ps, &v);
}
