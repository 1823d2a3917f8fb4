/* Filters compiled for gilk.ko (see site_filter.h). */
#include "site_filter.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "filter.h"
#include "gilk_reg_index.h"

static const struct {
	const char *name;
	uint8_t field;
} fields[] = {
	{ "pid", GILK_FF_PID }, { "tid", GILK_FF_TID }, { "comm", GILK_FF_COMM },
	{ "cpu", GILK_FF_CPU }, { "context", GILK_FF_CONTEXT },
#define GILK_ARG(i, name, member) { "arg" #i, GILK_FF_ARG0 + (i) },
#define GILK_REG(name, member, dwarf) { #name, GILK_FF_RAX + GILK_REG_##name },
#define GILK_STATE(name, member, field) { #name, field },
#include "gilk_regs.h"
	{ "retval", GILK_FF_RAX + GILK_REG_RETVAL },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int field_of(const char *name);

/* context's values, as events show them: GILK_CTX_* by index */
static const char *const contexts[] = { "task", "softirq", "irq", "nmi" };

int site_filter_field(const char *name)
{
	return field_of(name);
}

static int field_of(const char *name)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].name, name))
			return fields[i].field;
	return -1;
}

static enum filter_kind kind_of(void *priv, const char *name)
{
	int f = field_of(name);

	(void)priv;
	return f < 0 ? FILTER_NONE :
	       f == GILK_FF_COMM || f == GILK_FF_CONTEXT ? FILTER_STRING : FILTER_NUMBER;
}

/*
 * The program is emitted with labels for its jumps (all forward: a label
 * is placed after every test that names it), resolved once the two RETs
 * that end it are placed.
 */
#define LABEL_ACCEPT 0
#define LABEL_REJECT 1
#define LABELS_MAX (2 + 2 * FILTER_NODES_MAX)

struct compiler {
	const struct filter *f;
	struct gilk_filter *g;
	enum site_filter_scope scope;
	int jt[GILK_FILTER_MAX], jf[GILK_FILTER_MAX];	/* labels */
	int at[LABELS_MAX];				/* where each is placed */
	int nlabels;
	struct gerr *e;
};

/* A side of a comparison: a constant, or a field under a mask. */
struct operand {
	bool field;
	uint8_t id;
	uint64_t mask, num;
};

static int label(struct compiler *c)
{
	c->at[c->nlabels] = -1;
	return c->nlabels++;
}

static void place(struct compiler *c, int l)
{
	c->at[l] = (int)c->g->len;
}

static int emit(struct compiler *c, uint8_t op, const struct operand *o, uint64_t value,
		int t, int f)
{
	struct gilk_filter_test *x;

	if (c->g->len >= GILK_FILTER_MAX - 2)	/* room for the two RETs */
		return gerr_set(c->e, "filter: too long for gilk.ko (at most %d tests)",
				GILK_FILTER_MAX - 2);
	x = &c->g->test[c->g->len];
	x->op = op;
	x->field = o->id;
	x->mask = o->mask;
	x->value = value;
	c->jt[c->g->len] = t;
	c->jf[c->g->len] = f;
	c->g->len++;
	return 0;
}

/* A jump whatever the hit: a test of nothing (cpu & 0 == 0). */
static int jump(struct compiler *c, int to)
{
	struct operand none = { true, GILK_FF_CPU, 0, 0 };

	return emit(c, GILK_FOP_EQ, &none, 0, to, to);
}

static int operand(struct compiler *c, int i, struct operand *o)
{
	const struct filter_node *n = &c->f->node[i];
	struct operand a, b;

	switch (n->op) {
	case FOP_NUM:
		*o = (struct operand){ false, 0, ~0ull, n->num };
		return 0;
	case FOP_FIELD:
		*o = (struct operand){ true, (uint8_t)field_of(n->text), ~0ull, 0 };
		if (c->scope == SF_TASK && o->id >= GILK_FF_REGS)
			return gerr_set(c->e, "filter: %s differs between a function's entry and its "
					"exits; filter on pid, tid, comm, cpu or context here", n->text);
		return 0;
	case FOP_MASK:
		if (operand(c, n->a, &a) || operand(c, n->b, &b))
			return -1;
		if (a.field && b.field)
			return gerr_set(c->e, "filter: gilk.ko masks a field with a number, "
					"not with another field");
		if (!a.field && !b.field)
			*o = (struct operand){ false, 0, ~0ull, a.num & b.num };
		else
			*o = a.field ? (struct operand){ true, a.id, a.mask & b.num, 0 } :
				       (struct operand){ true, b.id, b.mask & a.num, 0 };
		return 0;
	default:
		return gerr_set(c->e, "filter: internal error: node %d is no operand", i);
	}
}

/* Whether every [ of glob s opens a class its ] closes (a ] first in a
 * class, or after its ! or ^, is itself). */
static bool classes_closed(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p != '[')
			continue;
		p++;
		if (*p == '!' || *p == '^')
			p++;
		if (*p == ']')
			p++;
		while (*p && *p != ']')
			p++;
		if (!*p)
			return false;
	}
	return true;
}

/* The string table's index of s, added if new. */
static int string_slot(struct compiler *c, const char *s, bool glob)
{
	size_t len = strlen(s);
	int k;

	if (!glob && len >= GILK_COMM_LEN)
		return gerr_set(c->e, "filter: comm holds at most %d characters; \"%s\" never "
				"matches (comm ~ \"%.*s*\" matches its start)", GILK_COMM_LEN - 1, s,
				GILK_COMM_LEN - 1, s);
	if (len >= GILK_FILTER_STR_LEN)
		return gerr_set(c->e, "filter: \"%s\" is longer than gilk.ko takes (%d)", s,
				GILK_FILTER_STR_LEN - 1);
	/* gilk.ko's glob is fnmatch's with FNM_NOESCAPE: nothing else to read */
	if (glob && strchr(s, '\\'))
		return gerr_set(c->e, "filter: gilk.ko's globs have no \\ escapes (\"%s\"); "
				"[*] matches a *", s);
	if (glob && !classes_closed(s))
		return gerr_set(c->e, "filter: a [ without its ] in \"%s\"", s);
	for (k = 0; k < GILK_FILTER_STRS && c->g->str[k][0]; k++)
		if (!strcmp(c->g->str[k], s))
			return k;
	if (k == GILK_FILTER_STRS)
		return gerr_set(c->e, "filter: at most %d different strings", GILK_FILTER_STRS);
	memcpy(c->g->str[k], s, len + 1);
	return k;
}

static int strings(struct compiler *c, const struct filter_node *n, int t, int f)
{
	const struct filter_node *fld = &c->f->node[n->a], *lit = &c->f->node[n->b];
	struct operand o = { true, (uint8_t)field_of(fld->text), ~0ull, 0 };
	int k;

	if (n->op == FOP_NE) {
		int x = t;

		t = f;
		f = x;
	}
	if (o.id == GILK_FF_CONTEXT) {
		for (k = 0; k < 4 && strcmp(contexts[k], lit->text); k++)
			;
		if (k == 4 || n->op == FOP_GLOB)
			return gerr_set(c->e, "filter: context is task, softirq, irq or nmi "
					"(compared with == or !=)");
		o.mask = ~0ull;
		return emit(c, GILK_FOP_EQ, &o, (uint64_t)k, t, f);
	}
	k = string_slot(c, lit->text, n->op == FOP_GLOB);
	if (k < 0)
		return -1;
	o.mask = 0;	/* a string test reads no mask */
	return emit(c, n->op == FOP_GLOB ? GILK_FOP_GLOB : GILK_FOP_STR_EQ, &o, (uint64_t)k, t, f);
}

static bool fold(enum filter_op op, uint64_t a, uint64_t b)
{
	switch (op) {
	case FOP_EQ: return a == b;
	case FOP_NE: return a != b;
	case FOP_LT: return a < b;
	case FOP_LE: return a <= b;
	case FOP_GT: return a > b;
	default: return a >= b;
	}
}

static int compare(struct compiler *c, const struct filter_node *n, int t, int f)
{
	static const uint8_t ops[] = {
		[FOP_LT] = GILK_FOP_LT, [FOP_LE] = GILK_FOP_LE,
		[FOP_GT] = GILK_FOP_GT, [FOP_GE] = GILK_FOP_GE,
	};
	enum filter_op op = n->op;
	struct operand l, r;

	if (c->f->node[n->a].string)
		return strings(c, n, t, f);
	if (operand(c, n->a, &l) || operand(c, n->b, &r))
		return -1;
	if (l.field && r.field)
		return gerr_set(c->e, "filter: gilk.ko compares a field with a number, "
				"not two fields");
	if (!l.field && !r.field)
		return jump(c, fold(op, l.num, r.num) ? t : f);
	if (!l.field) {		/* 5 < pid: pid > 5 */
		struct operand x = l;

		l = r;
		r = x;
		op = op == FOP_LT ? FOP_GT : op == FOP_GT ? FOP_LT :
		     op == FOP_LE ? FOP_GE : op == FOP_GE ? FOP_LE : op;
	}
	if (op == FOP_EQ || op == FOP_NE)
		return emit(c, GILK_FOP_EQ, &l, r.num, op == FOP_EQ ? t : f, op == FOP_EQ ? f : t);
	return emit(c, ops[op], &l, r.num, t, f);
}

/* Code for node i that goes to label t when it holds, f when not. */
static int gen(struct compiler *c, int i, int t, int f)
{
	const struct filter_node *n = &c->f->node[i];
	struct operand o;
	int mid;

	switch (n->op) {
	case FOP_NOT:
		return gen(c, n->a, f, t);
	case FOP_AND:
	case FOP_OR:
		mid = label(c);
		if (gen(c, n->a, n->op == FOP_AND ? mid : t, n->op == FOP_AND ? f : mid))
			return -1;
		place(c, mid);
		return gen(c, n->b, t, f);
	case FOP_TRUTH:
		if (operand(c, n->a, &o))
			return -1;
		return o.field ? emit(c, GILK_FOP_EQ, &o, 0, f, t) : jump(c, o.num ? t : f);
	case FOP_EQ: case FOP_NE: case FOP_LT: case FOP_LE: case FOP_GT: case FOP_GE:
	case FOP_GLOB:
		return compare(c, n, t, f);
	default:
		return gerr_set(c->e, "filter: internal error: node %d is no test", i);
	}
}

static int compile(const struct filter *f, enum site_filter_scope scope, bool self,
		   struct gilk_filter *g, struct gerr *e)
{
	struct compiler c = { .f = f, .g = g, .scope = scope, .e = e, .nlabels = 2 };
	struct operand gilk = { true, GILK_FF_SELF, ~0ull, 0 };
	int body;

	memset(g, 0, sizeof(*g));
	if (self) {	/* not in the splicing gilk, then the expression */
		body = f->root >= 0 ? label(&c) : LABEL_ACCEPT;
		if (emit(&c, GILK_FOP_EQ, &gilk, 1, LABEL_REJECT, body))
			return -1;
		if (body != LABEL_ACCEPT)
			place(&c, body);
	}
	if (f->root >= 0 && gen(&c, f->root, LABEL_ACCEPT, LABEL_REJECT))
		return -1;
	place(&c, LABEL_ACCEPT);
	g->test[g->len++] = (struct gilk_filter_test){ .op = GILK_FOP_RET, .value = 1 };
	place(&c, LABEL_REJECT);
	g->test[g->len++] = (struct gilk_filter_test){ .op = GILK_FOP_RET, .value = 0 };
	for (uint32_t i = 0; i + 2 < g->len; i++) {
		int dt = c.at[c.jt[i]] - (int)i - 1, df = c.at[c.jf[i]] - (int)i - 1;

		if (dt < 0 || df < 0 || dt > 255 || df > 255)
			return gerr_set(e, "filter: internal error: a jump from test %u", i);
		g->test[i].jt = (uint8_t)dt;
		g->test[i].jf = (uint8_t)df;
	}
	return 0;
}

/* Names the site gives values (a parameter at a function's entry, a local
 * in a register mid-function), each read as the register field as[i]
 * names ("arg1", "rbx"; as NULL: argI). */
struct named {
	const char *const *names, *const *as;
};

static enum filter_kind kind_of_named(void *priv, const char *name)
{
	const struct named *nm = priv;

	for (int i = 0; nm->names && i < SITE_FILTER_NAMES_MAX && nm->names[i]; i++)
		if (nm->names[i][0] && !strcmp(nm->names[i], name))
			return FILTER_NUMBER;
	return kind_of(NULL, name);
}

static int rename_named(struct filter *f, const struct named *nm, struct gerr *e)
{
	for (size_t n = 0; nm->names && n < f->n; n++) {
		struct filter_node *x = &f->node[n];

		if (x->op != FOP_FIELD || field_of(x->text) >= 0)
			continue;
		for (int i = 0; i < SITE_FILTER_NAMES_MAX && nm->names[i]; i++) {
			char arg[16];

			if (strcmp(nm->names[i], x->text))
				continue;
			if (nm->as)
				snprintf(arg, sizeof(arg), "%s", nm->as[i]);
			else
				snprintf(arg, sizeof(arg), "arg%d", i);
			free(x->text);
			x->text = strdup(arg);
			if (!x->text)
				return gerr_set(e, "out of memory");
			break;
		}
	}
	return 0;
}

static int parse(const char *expr, const struct named *nm, struct filter *f,
		 struct gerr *e)
{
	const char *const *params = nm->names;
	char why[sizeof(e->msg)], names[1024];
	size_t used = 0;

	if (!filter_parse(f, expr, kind_of_named, (void *)nm, e))
		return rename_named(f, nm, e);
	if (!strstr(e->msg, "no field"))
		return -1;
	snprintf(why, sizeof(why), "%s", e->msg);
	for (size_t i = 0; i < NFIELDS; i++)
		used += (size_t)snprintf(names + used, used < sizeof(names) ? sizeof(names) - used : 0,
					 "%s%s", i ? " " : "", fields[i].name);
	for (int i = 0; params && i < SITE_FILTER_NAMES_MAX && params[i]; i++)
		if (params[i][0])
			used += (size_t)snprintf(names + used, used < sizeof(names) ? sizeof(names) - used : 0,
						 " %s", params[i]);
	return gerr_set(e, "%s; a splice's filter reads: %s", why, names);
}

static void set_text(struct gilk_filter *g, const char *expr, bool self)
{
	if (!self)
		snprintf(g->text, sizeof(g->text), "%s", expr);
	else if (expr)
		snprintf(g->text, sizeof(g->text), "(%s) && not gilk", expr);
	else
		snprintf(g->text, sizeof(g->text), "not gilk");
}

int site_filter_compile(const char *expr, enum site_filter_scope scope, bool self,
			struct gilk_filter *out, struct gerr *e)
{
	return site_filter_compile_params(expr, scope, self, NULL, out, e);
}

int site_filter_compile_params(const char *expr, enum site_filter_scope scope, bool self,
			       const char *const *params, struct gilk_filter *out, struct gerr *e)
{
	return site_filter_compile_names(expr, scope, self, params, NULL, out, e);
}

int site_filter_compile_names(const char *expr, enum site_filter_scope scope, bool self,
			      const char *const *names, const char *const *as,
			      struct gilk_filter *out, struct gerr *e)
{
	struct named nm = { names, as };
	struct filter f = { .root = -1 };
	int rc;

	if (expr && parse(expr, &nm, &f, e)) {
		filter_free(&f);
		return -1;
	}
	rc = compile(&f, scope, self, out, e);
	filter_free(&f);
	if (!rc)
		set_text(out, expr, self);
	return rc;
}

const char *site_filter_take(int *argc, char **argv)
{
	if (*argc < 3 || strcmp(argv[*argc - 2], "if"))
		return NULL;
	*argc -= 2;
	return argv[*argc + 1];
}

int site_filter_args(bool filter_self, int *argc, char **argv, enum site_filter_scope scope,
		     bool add_self, struct gilk_filter *out, bool *have, struct gerr *e)
{
	const char *expr = site_filter_take(argc, argv);
	bool self;

	*have = false;
	self = (expr || add_self) && filter_self;
	if (!expr && !self)
		return 0;
	if (site_filter_compile(expr, scope, self, out, e))
		return -1;
	*have = true;
	return 0;
}

bool site_filter_run(const struct gilk_filter *f, const uint64_t *fv, const char *comm)
{
	uint32_t i = 0;

	while (i < f->len) {
		const struct gilk_filter_test *t = &f->test[i];
		uint64_t v;
		bool ok;

		if (t->op == GILK_FOP_RET)
			return t->value;
		if (t->op == GILK_FOP_GLOB || t->op == GILK_FOP_STR_EQ) {
			ok = t->op == GILK_FOP_GLOB ? !fnmatch(f->str[t->value], comm, FNM_NOESCAPE) :
			     !strcmp(f->str[t->value], comm);
		} else {
			v = fv[t->field] & t->mask;
			ok = t->op == GILK_FOP_EQ ? v == t->value : t->op == GILK_FOP_LT ? v < t->value :
			     t->op == GILK_FOP_LE ? v <= t->value : t->op == GILK_FOP_GT ? v > t->value :
			     v >= t->value;
		}
		i += 1u + (ok ? t->jt : t->jf);
	}
	return false;
}
