/* Integer constants in C's notation (see intexpr.h): recursive descent,
 * one function a precedence level. */
#include "intexpr.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct in {
	const char *p;
	int depth;
};

static int or_(struct in *in, uint64_t *v);

static void blanks(struct in *in)
{
	while (*in->p == ' ' || *in->p == '\t')
		in->p++;
}

/* The operator op next (and not the start of a longer one): eaten. */
static bool eat(struct in *in, const char *op)
{
	size_t n = strlen(op);

	blanks(in);
	if (strncmp(in->p, op, n))
		return false;
	if (n == 1 && (op[0] == '<' || op[0] == '>') && in->p[1] == op[0])
		return false;
	in->p += n;
	return true;
}

static int primary(struct in *in, uint64_t *v)
{
	char *end;

	blanks(in);
	if (eat(in, "(")) {
		/* a nesting bound: the text is a user's, and the stack is ours */
		if (++in->depth > 64 || or_(in, v) || !eat(in, ")"))
			return -1;
		in->depth--;
		return 0;
	}
	if (eat(in, "-")) {
		if (primary(in, v))
			return -1;
		*v = 0 - *v;
		return 0;
	}
	if (eat(in, "~")) {
		if (primary(in, v))
			return -1;
		*v = ~*v;
		return 0;
	}
	if (eat(in, "+"))
		return primary(in, v);
	if (!isdigit((unsigned char)*in->p))
		return -1;
	errno = 0;
	*v = strtoull(in->p, &end, 0);
	if (errno || isalnum((unsigned char)*end) || *end == '_')
		return -1;
	in->p = end;
	return 0;
}

static int product(struct in *in, uint64_t *v)
{
	uint64_t r;

	if (primary(in, v))
		return -1;
	for (;;) {
		if (eat(in, "*")) {
			if (primary(in, &r))
				return -1;
			*v *= r;
		} else if (eat(in, "/") || eat(in, "%")) {
			bool div = in->p[-1] == '/';

			if (primary(in, &r) || !r)
				return -1;
			*v = div ? (uint64_t)((int64_t)*v / (int64_t)r) :
				   (uint64_t)((int64_t)*v % (int64_t)r);
		} else {
			return 0;
		}
	}
}

static int sum(struct in *in, uint64_t *v)
{
	uint64_t r;

	if (product(in, v))
		return -1;
	for (;;) {
		bool minus;

		if (eat(in, "+"))
			minus = false;
		else if (eat(in, "-"))
			minus = true;
		else
			return 0;
		if (product(in, &r))
			return -1;
		*v = minus ? *v - r : *v + r;
	}
}

static int shift(struct in *in, uint64_t *v)
{
	uint64_t r;

	if (sum(in, v))
		return -1;
	for (;;) {
		bool left;

		if (eat(in, "<<"))
			left = true;
		else if (eat(in, ">>"))
			left = false;
		else
			return 0;
		if (sum(in, &r))
			return -1;
		*v = r > 63 ? 0 : left ? *v << r : *v >> r;
	}
}

/* & ^ | each its own level, as C's */
static int and_(struct in *in, uint64_t *v)
{
	uint64_t r;

	if (shift(in, v))
		return -1;
	while (eat(in, "&")) {
		if (shift(in, &r))
			return -1;
		*v &= r;
	}
	return 0;
}

static int xor_(struct in *in, uint64_t *v)
{
	uint64_t r;

	if (and_(in, v))
		return -1;
	while (eat(in, "^")) {
		if (and_(in, &r))
			return -1;
		*v ^= r;
	}
	return 0;
}

static int or_(struct in *in, uint64_t *v)
{
	uint64_t r;

	if (xor_(in, v))
		return -1;
	while (eat(in, "|")) {
		if (xor_(in, &r))
			return -1;
		*v |= r;
	}
	return 0;
}

int intexpr_eval(const char *text, uint64_t *v)
{
	struct in in = { text, 0 };

	if (or_(&in, v))
		return -1;
	blanks(&in);
	return *in.p ? -1 : 0;
}
