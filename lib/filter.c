/* Event filters (see filter.h): a recursive-descent parser into a tree of
 * at most FILTER_NODES_MAX nodes, typed as it is built. */
#include "filter.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok { T_END, T_NUM, T_STR, T_WORD, T_OP, T_LP, T_RP, T_BAD };

/* What a subtree yields. */
enum type { TY_BOOL, TY_NUM, TY_STR, TY_BARE };	/* bare: a word no field has */

struct parser {
	struct filter *f;
	const char *text, *p;
	filter_kind_fn kind;
	void *kpriv;
	struct gerr *e;
	/* the current token */
	enum tok t;
	const char *at;			/* where it starts */
	size_t len;
	char op[3];
	int depth;
};

static const char *const two_char_ops[] = { "==", "!=", "<=", ">=", "&&", "||" };

static void next(struct parser *ps)
{
	const char *p = ps->p + strspn(ps->p, " \t\r\n");

	ps->at = p;
	ps->op[0] = '\0';
	if (!*p) {
		ps->t = T_END;
		ps->len = 0;
	} else if (*p == '"' || *p == '\'') {
		const char *end = strchr(p + 1, *p);

		ps->t = end ? T_STR : T_BAD;
		ps->len = end ? (size_t)(end - p) + 1 : strlen(p);
	} else if (isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))) {
		ps->t = T_NUM;
		ps->len = 1 + strspn(p + 1, "0123456789abcdefABCDEFxX");
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		ps->t = T_WORD;
		ps->len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-./*?[]:");
	} else if (*p == '(' || *p == ')') {
		ps->t = *p == '(' ? T_LP : T_RP;
		ps->len = 1;
	} else {
		ps->t = T_BAD;
		ps->len = 1;
		for (size_t i = 0; i < sizeof(two_char_ops) / sizeof(two_char_ops[0]); i++)
			if (!strncmp(p, two_char_ops[i], 2))
				ps->len = 2;
		if (ps->len == 2 || strchr("<>!&~", *p)) {
			ps->t = T_OP;
			memcpy(ps->op, p, ps->len);
			ps->op[ps->len] = '\0';
		}
	}
	ps->p = p + ps->len;
}

static int fail(struct parser *ps, const char *what)
{
	if (ps->t == T_END)
		return gerr_set(ps->e, "filter: %s at the end of '%s'", what, ps->text);
	return gerr_set(ps->e, "filter: %s at column %zu, '%.*s'", what,
			(size_t)(ps->at - ps->text) + 1, (int)ps->len, ps->at);
}

static int node(struct parser *ps, enum filter_op op, int a, int b)
{
	struct filter_node *n;

	if (ps->f->n == FILTER_NODES_MAX)
		return fail(ps, "too long a filter");
	n = &ps->f->node[ps->f->n];
	*n = (struct filter_node){ .op = op, .a = a, .b = b };
	return (int)ps->f->n++;
}

static int text_node(struct parser *ps, enum filter_op op, const char *s, size_t len,
		     bool string)
{
	int i = node(ps, op, -1, -1);

	if (i < 0)
		return -1;
	ps->f->node[i].text = strndup(s, len);
	ps->f->node[i].string = string;
	if (!ps->f->node[i].text)
		return gerr_set(ps->e, "out of memory");
	return i;
}

static int or_expr(struct parser *ps, enum type *ty);

/* A number alone where a truth is wanted: not 0. */
static int truth(struct parser *ps, int i, enum type *ty)
{
	if (*ty == TY_BOOL)
		return i;
	if (*ty == TY_NUM) {
		*ty = TY_BOOL;
		return node(ps, FOP_TRUTH, i, -1);
	}
	if (*ty == TY_BARE)
		return gerr_set(ps->e, "filter: no field '%s'", ps->f->node[i].text);
	return gerr_set(ps->e, "filter: a string is not true or false: compare it with ==, != "
			"or ~");
}

static int primary(struct parser *ps, enum type *ty)
{
	int i;

	switch (ps->t) {
	case T_NUM: {
		char *end;
		bool neg = *ps->at == '-';
		unsigned long long v;

		errno = 0;
		v = strtoull(ps->at + neg, &end, 0);
		if (errno || end != ps->at + ps->len)
			return fail(ps, "not a number");
		i = node(ps, FOP_NUM, -1, -1);
		if (i < 0)
			return -1;
		ps->f->node[i].num = neg ? (uint64_t)-(int64_t)v : (uint64_t)v;
		*ty = TY_NUM;
		next(ps);
		return i;
	}
	case T_STR:
		i = text_node(ps, FOP_STR, ps->at + 1, ps->len - 2, true);
		*ty = TY_STR;
		next(ps);
		return i;
	case T_WORD: {
		char name[64];
		enum filter_kind k;

		snprintf(name, sizeof(name), "%.*s", (int)ps->len, ps->at);
		k = ps->len < sizeof(name) ? ps->kind(ps->kpriv, name) : FILTER_NONE;
		if (k == FILTER_NONE) {
			i = text_node(ps, FOP_STR, ps->at, ps->len, true);
			*ty = TY_BARE;
		} else {
			i = text_node(ps, FOP_FIELD, ps->at, ps->len, k == FILTER_STRING);
			*ty = k == FILTER_STRING ? TY_STR : TY_NUM;
		}
		next(ps);
		return i;
	}
	case T_LP:
		if (++ps->depth > 32)
			return fail(ps, "too deep a nesting");
		next(ps);
		i = or_expr(ps, ty);
		if (i < 0)
			return -1;
		if (ps->t != T_RP)
			return fail(ps, "expected ')'");
		ps->depth--;
		next(ps);
		return i;
	case T_BAD:
		return fail(ps, ps->at[0] == '"' || ps->at[0] == '\'' ? "an unterminated string" :
			    "an unknown character");
	default:
		return fail(ps, "expected a field, a number or a string");
	}
}

static int mask(struct parser *ps, enum type *ty)
{
	int i = primary(ps, ty);

	while (i >= 0 && ps->t == T_OP && !strcmp(ps->op, "&")) {
		enum type rt;
		int r;

		if (*ty != TY_NUM)
			return fail(ps, "& masks numbers only");
		next(ps);
		r = primary(ps, &rt);
		if (r < 0)
			return -1;
		if (rt != TY_NUM)
			return fail(ps, "& masks numbers only");
		i = node(ps, FOP_MASK, i, r);
	}
	return i;
}

static const struct {
	const char *op;
	enum filter_op fop;
} cmps[] = {
	{ "==", FOP_EQ }, { "!=", FOP_NE }, { "<", FOP_LT }, { "<=", FOP_LE },
	{ ">", FOP_GT }, { ">=", FOP_GE }, { "~", FOP_GLOB },
};

/* Both sides strings: a string field and a literal (or a bare word). */
static int string_cmp(struct parser *ps, enum filter_op op, int l, int r, const char *opname)
{
	struct filter_node *ln = &ps->f->node[l], *rn = &ps->f->node[r];

	if (op != FOP_EQ && op != FOP_NE && op != FOP_GLOB)
		return gerr_set(ps->e, "filter: strings compare with ==, != or ~, not %s", opname);
	if ((ln->op == FOP_FIELD) == (rn->op == FOP_FIELD))
		return gerr_set(ps->e, "filter: compare a string field with a \"string\" "
				"(%s %s %s)", ln->text, opname, rn->text);
	/* the field on the left, as the evaluator reads it */
	return ln->op == FOP_FIELD ? node(ps, op, l, r) : node(ps, op, r, l);
}

static int cmp(struct parser *ps, enum type *ty)
{
	enum filter_op op = FOP_EQ;
	enum type rt;
	char opname[3];
	int l = mask(ps, ty), r;
	size_t k, ncmps = sizeof(cmps) / sizeof(cmps[0]);

	if (l < 0 || ps->t != T_OP)
		return l;
	for (k = 0; k < ncmps && strcmp(ps->op, cmps[k].op); k++)
		;
	if (k == ncmps)
		return l;	/* &&, || or a misplaced ! */
	op = cmps[k].fop;
	snprintf(opname, sizeof(opname), "%s", ps->op);
	next(ps);
	r = mask(ps, &rt);
	if (r < 0)
		return -1;
	if ((*ty == TY_STR || *ty == TY_BARE) && (rt == TY_STR || rt == TY_BARE) &&
	    (*ty == TY_STR || rt == TY_STR)) {
		*ty = TY_BOOL;
		return string_cmp(ps, op, l, r, opname);
	}
	if (*ty == TY_BARE || rt == TY_BARE)
		return gerr_set(ps->e, "filter: no field '%s'",
				ps->f->node[*ty == TY_BARE ? l : r].text);
	if (*ty != TY_NUM || rt != TY_NUM)
		return gerr_set(ps->e, "filter: a string compares with a string, a number with "
				"a number (%s %s %s)", *ty == TY_STR ? "string" : "number", opname,
				rt == TY_STR ? "string" : "number");
	if (op == FOP_GLOB)
		return gerr_set(ps->e, "filter: ~ matches strings, not numbers");
	*ty = TY_BOOL;
	return node(ps, op, l, r);
}

static int unary(struct parser *ps, enum type *ty)
{
	int i;

	if (ps->t == T_OP && !strcmp(ps->op, "!")) {
		next(ps);
		i = unary(ps, ty);
		if (i < 0 || (i = truth(ps, i, ty)) < 0)
			return -1;
		return node(ps, FOP_NOT, i, -1);
	}
	return cmp(ps, ty);
}

/* sub (op sub)*, each side a truth: && over unary, || over &&. */
static int logic(struct parser *ps, enum type *ty, const char *op, enum filter_op fop,
		 int (*sub)(struct parser *, enum type *))
{
	int i = sub(ps, ty);

	while (i >= 0 && ps->t == T_OP && !strcmp(ps->op, op)) {
		enum type rt;
		int r;

		if ((i = truth(ps, i, ty)) < 0)
			return -1;
		next(ps);
		r = sub(ps, &rt);
		if (r < 0 || (r = truth(ps, r, &rt)) < 0)
			return -1;
		*ty = TY_BOOL;
		i = node(ps, fop, i, r);
	}
	return i;
}

static int and_expr(struct parser *ps, enum type *ty)
{
	return logic(ps, ty, "&&", FOP_AND, unary);
}

static int or_expr(struct parser *ps, enum type *ty)
{
	return logic(ps, ty, "||", FOP_OR, and_expr);
}

int filter_parse(struct filter *f, const char *text, filter_kind_fn kind, void *kpriv,
		 struct gerr *e)
{
	struct parser ps = { .f = f, .text = text, .p = text, .kind = kind, .kpriv = kpriv,
			     .e = e };
	enum type ty;
	int root;

	f->n = 0;
	f->root = -1;
	next(&ps);
	if (ps.t == T_END) {
		gerr_set(e, "filter: an empty filter (if EXPR: a field, an operator, a value)");
		goto bad;
	}
	root = or_expr(&ps, &ty);
	if (root < 0 || (root = truth(&ps, root, &ty)) < 0)
		goto bad;
	if (ps.t != T_END) {
		fail(&ps, ps.t == T_RP ? "an unmatched ')'" : ps.t == T_BAD ? "an unknown character" :
			  "expected && or || or the end");
		goto bad;
	}
	f->root = root;
	return 0;
bad:
	filter_free(f);
	return -1;
}

struct value {
	bool have;
	uint64_t num;
	const char *str;
};

static struct value eval_value(const struct filter *f, int i, filter_value_fn value, void *vp)
{
	const struct filter_node *n = &f->node[i];
	struct value v = { true, 0, NULL };

	switch (n->op) {
	case FOP_NUM:
		v.num = n->num;
		break;
	case FOP_STR:
		v.str = n->text;
		break;
	case FOP_FIELD:
		v.have = value(vp, n->text, &v.num, &v.str) && (!n->string || v.str);
		break;
	default: {	/* FOP_MASK */
		struct value a = eval_value(f, n->a, value, vp), b = eval_value(f, n->b, value, vp);

		v.have = a.have && b.have;
		v.num = a.num & b.num;
		break;
	}
	}
	return v;
}

static bool eval(const struct filter *f, int i, filter_value_fn value, void *vp)
{
	const struct filter_node *n = &f->node[i];
	struct value a, b;

	switch (n->op) {
	case FOP_NOT:
		return !eval(f, n->a, value, vp);
	case FOP_AND:
		return eval(f, n->a, value, vp) && eval(f, n->b, value, vp);
	case FOP_OR:
		return eval(f, n->a, value, vp) || eval(f, n->b, value, vp);
	case FOP_TRUTH:
		a = eval_value(f, n->a, value, vp);
		return a.have && a.num;
	default:
		break;
	}
	a = eval_value(f, n->a, value, vp);
	b = eval_value(f, n->b, value, vp);
	if (!a.have || !b.have)
		return false;
	if (f->node[n->a].string) {
		bool eq = n->op == FOP_GLOB ? !fnmatch(b.str, a.str, 0) : !strcmp(a.str, b.str);

		return n->op == FOP_NE ? !eq : eq;
	}
	switch (n->op) {
	case FOP_EQ: return a.num == b.num;
	case FOP_NE: return a.num != b.num;
	case FOP_LT: return a.num < b.num;
	case FOP_LE: return a.num <= b.num;
	case FOP_GT: return a.num > b.num;
	default: return a.num >= b.num;	/* FOP_GE */
	}
}

bool filter_match(const struct filter *f, filter_value_fn value, void *vpriv)
{
	return f->root < 0 || eval(f, f->root, value, vpriv);
}

void filter_free(struct filter *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->node[i].text);
	f->n = 0;
	f->root = -1;
}
