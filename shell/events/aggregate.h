/*
 * aggregate: what a count splice adds up in gilk.ko instead of recording
 * events (uapi struct gilk_agg), as bpftrace's maps do: "count by KEY",
 * "hist FIELD [by KEY]" and "lhist FIELD MIN MAX STEP [by KEY]", taken
 * from a splice's words and compiled for its site. agg_map.h reads the
 * maps back.
 */
#ifndef GILK_AGGREGATE_H
#define GILK_AGGREGATE_H

#include <stdbool.h>

#include "session/location.h"
#include "session/session.h"

struct agg_words {
	const char *kind;	/* "hist", "lhist"; NULL: count, or nothing */
	const char *value;	/* hist, lhist: the field */
	const char *lmin, *lmax, *lstep;	/* lhist */
	const char *key;	/* "by KEY"; NULL: none */
	const char *keys;	/* "keys N": slots of each CPU's map */
};

/*
 * Takes the aggregation out of a splice's words, past the location's
 * first word at argv[1]: "by KEY" and "keys N" wherever they are, and
 * "hist FIELD" or "lhist FIELD MIN MAX STEP". Whether there is one:
 * w->kind or w->key.
 */
void agg_take(int *argc, char **argv, struct agg_words *w);
static inline bool agg_given(const struct agg_words *w)
{
	return w->kind || w->key || w->keys;
}

/*
 * Compiles w for a splice at loc (NULL: many sites, where only the fields
 * every site has are named: pid, comm, arg2, rbx...; at one site also the
 * parameters' and register locals' names, and everywhere the names of the
 * splice's fetched values, fetch (NULL: none), by which a key is read as
 * the fetch read it). ins is the instrument the splice was asked with:
 * only count aggregates.
 */
int agg_compile(struct session *s, const struct location *loc, const struct agg_words *w,
		const char *ins, const struct gilk_fetch *fetch, struct gilk_agg *out,
		struct gerr *e);

#endif
