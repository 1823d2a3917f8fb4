/*
 * filter: a predicate over an event's fields, as ftrace's event filters and
 * bpftrace's predicates read:
 *
 *   pid == 1234 && comm != "sshd"      cpu < 2 || !(arg0 & 0x40)
 *   comm ~ "kworker*"                  context == irq
 *
 * Operands are fields (numbers or strings, as the caller says each name
 * is), integers (decimal, 0x hex, a leading - as two's complement) and
 * strings ("quoted", or a bare word compared with a string field).
 * Numbers compare as unsigned 64-bit values with == != < <= > >=, and &
 * masks them; a number alone is true when not 0. Strings compare with ==,
 * != and ~ (a glob, as fnmatch(3) reads it). && binds tighter than ||, !
 * tighter than both. A comparison with a field the event does not have is
 * false.
 *
 * The parse is checked whole before anything runs: a typo is an error
 * that says where, and no event is consumed for it.
 */
#ifndef GILK_FILTER_H
#define GILK_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gerr.h"

#define FILTER_NODES_MAX 128

enum filter_op {
	FOP_NUM, FOP_STR, FOP_FIELD,		/* leaves */
	FOP_NOT, FOP_AND, FOP_OR,		/* logic */
	FOP_EQ, FOP_NE, FOP_LT, FOP_LE, FOP_GT, FOP_GE, FOP_GLOB,	/* comparisons */
	FOP_MASK,				/* & */
	FOP_TRUTH,				/* a number alone: not 0 */
};

struct filter_node {
	enum filter_op op;
	int a, b;			/* operands: node indices, -1 none */
	uint64_t num;			/* FOP_NUM */
	char *text;			/* FOP_STR: the string; FOP_FIELD: the name */
	bool string;			/* FOP_FIELD and FOP_STR: a string operand */
};

struct filter {
	struct filter_node node[FILTER_NODES_MAX];
	size_t n;
	int root;			/* -1: no filter, everything matches */
};

/* What a name is: FILTER_NONE (no such field), or a number or string field. */
enum filter_kind { FILTER_NONE, FILTER_NUMBER, FILTER_STRING };
typedef enum filter_kind (*filter_kind_fn)(void *priv, const char *name);

/*
 * An event's value of a field: false when it has none. A number in *num,
 * a string in *str.
 */
typedef bool (*filter_value_fn)(void *priv, const char *name, uint64_t *num,
				const char **str);

/* Parses text; on error, -1 with *e saying what and where. */
int filter_parse(struct filter *f, const char *text, filter_kind_fn kind, void *kpriv,
		 struct gerr *e);
bool filter_match(const struct filter *f, filter_value_fn value, void *vpriv);
void filter_free(struct filter *f);

#endif
