/* C expressions over kernel memory (see cexpr.h): a recursive descent over
 * gdb's print grammar, the part a kernel's data needs. */
#include "cexpr.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"
#include "types.h"

/* Values larger than this are not read whole (a task_struct is ~10 KiB). */
#define CEXPR_READ_MAX (1u << 20)

struct parser {
	struct session *s;
	struct ktypes *t;
	const char *p, *text;
	struct gerr *e;
};

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
		return gerr_set(ps->e, "print: %s at the end", what);
	return gerr_set(ps->e, "print: %s at '%s'", what, ps->p);
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
		return gerr_set(ps->e, "print: a value of %" PRId64 " bytes is no number", size);
	v->v = 0;
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

			return gerr_set(ps->e, "print: '%.*s' is not a number (decimal or 0x-hex)", (int)n, ps->p);
		}
		ps->p = end;
		v->typed = true;
		v->type = long_type;
		return ktypes_parse(ps->t, "long", &v->type, ps->e);
	}
	if (ident(ps, name, sizeof(name)))
		return syntax(ps, "a variable, a number or '(' expected");
	if (!strcmp(name, "current")) {
		if (types_current(ps->s, &v->addr, ps->e) ||
		    ktypes_parse(ps->t, "struct task_struct", &v->type, ps->e))
			return -1;
		v->v = v->addr;
		v->type.ptr = 1;
		v->typed = true;
		return 0;
	}
	if (session_resolve(ps->s, name, &addr, ps->e))
		return -1;
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
		return gerr_set(ps->e, "print: %s has no type, so no member '%s'", ps->text, name);
	if (v->typed)
		v->type = ktypes_resolve(ps->t, &v->type);
	if (arrow) {
		if (!v->type.ptr)
			return gerr_set(ps->e, "print: '->%s' needs a pointer; this is no pointer (use '.')", name);
		if (rvalue(ps, v))
			return -1;
		v->type = ktypes_element(ps->t, &v->type);
		v->addr = v->v;
		v->lvalue = true;
	} else if (v->type.ptr && !v->type.array) {
		return gerr_set(ps->e, "print: '.%s' on a pointer (use '->')", name);
	}
	if (!v->lvalue)
		return gerr_set(ps->e, "print: '.%s' needs a value in memory", name);
	if (ktypes_member(ps->t, &v->type, name, &m, ps->e))
		return -1;
	v->type = m.type;
	v->addr += m.offset;
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
			if (!eat(ps, "]"))
				return syntax(ps, "']' expected");
			if (!v->typed || (!v->type.array && !ktypes_resolve(ps->t, &v->type).ptr &&
					  !ktypes_resolve(ps->t, &v->type).array))
				return gerr_set(ps->e, "print: a subscript needs an array or a pointer");
			el = ktypes_element(ps->t, &v->type);
			es = ktypes_size(ps->t, &el);
			if (es <= 0)
				return gerr_set(ps->e, "print: its elements have no size");
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
		v->v = -v->v;
		return 0;
	}
	if (eat(ps, "*")) {
		if (unary(ps, v))
			return -1;
		if (!v->typed || !ktypes_resolve(ps->t, &v->type).ptr)
			return gerr_set(ps->e, "print: '*' needs a pointer (cast an address: *(struct file *)0x...)");
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
			return gerr_set(ps->e, "print: '&' needs a value in memory");
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

static int expr(struct parser *ps, struct cval *v)
{
	if (unary(ps, v))
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
		if (unary(ps, &r) || (v->typed && rvalue(ps, v)) || (r.typed && rvalue(ps, &r)))
			return -1;
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
	struct parser ps = { s, NULL, text, text, e };

	if (types_get(s, &ps.t, e))
		return -1;
	if (expr(&ps, out))
		return -1;
	blanks(&ps);
	if (*ps.p)
		return syntax(&ps, "'+' or '-' expected");
	if (out->unknown)
		return gerr_set(e, "%s", out->why);
	return 0;
}

int cexpr_scalar(struct session *s, struct cval *v, struct gerr *e)
{
	struct parser ps = { s, NULL, "", "", e };

	if (!v->typed)
		return 0;
	if (types_get(s, &ps.t, e))
		return -1;
	return rvalue(&ps, v);
}

static void name_addr(void *ctx, uint64_t addr, char *buf, size_t len)
{
	symbolize_addr(ctx, addr, buf, len);
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
		symbolize_addr(s, v->v, where, sizeof(where));
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
