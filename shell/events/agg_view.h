/*
 * agg_view: an aggregating splice's maps as gilk.ko's GILK_IOC_AGG_READ
 * copies them (uapi struct gilk_agg_slot), every CPU's slots merged into
 * one entry per key, less what an earlier reading held, and written as
 * text (bpftrace's way of printing a map), CSV, JSON or folded stacks.
 * agg_map.h reads them from gilk.ko for a session.
 */
#ifndef GILK_AGG_VIEW_H
#define GILK_AGG_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output/formats.h"
#include "uapi/gilk.h"

struct agg_entry {
	uint8_t key[GILK_AGG_KEY_LEN];
	uint64_t count, sum, min, max;
	uint64_t *bucket;	/* the view's nbuckets, or NULL for a count */
	uint64_t *frames;	/* a stack key's, innermost first; else NULL */
};

struct agg_view {
	struct gilk_splice_info splice;	/* as listed when read */
	struct agg_entry *e;	/* the most hits first, once finished */
	size_t n, cap;
	uint32_t nbuckets;
	uint32_t nframes;	/* room for a stack key's frames; else 0 */
	uint64_t hits;		/* over every key */
	uint64_t dropped;	/* hits whose key found no room in a CPU's map */
	uint64_t nested;	/* hits inside another of gilk's on their CPU
				 * (an interrupt's): not counted */
	uint32_t cpus;
	int cleared;		/* counted from a clear: min and max unknown */
};

/* Adds one CPU's n slots of slot_len bytes; -1 when out of memory. */
int agg_view_add(struct agg_view *v, const uint8_t *slots, size_t n, uint32_t slot_len);
/* One entry per key, the CPUs' added up; sorted by key. */
void agg_view_merge(struct agg_view *v);
/* Takes base (merged, as read earlier) away: keys with no hit since go. */
void agg_view_subtract(struct agg_view *v, const struct agg_view *base);
/* The hits over every key, and the entries the most hits first. */
void agg_view_finish(struct agg_view *v);
void agg_view_free(struct agg_view *v);
/* The view as text, CSV (a row a key, or a row a key's bucket) or JSON,
 * stacks' frames named by y. */
void agg_view_write(FILE *out, enum format f, const struct agg_view *v,
		    const struct symbolizer *y);
/* Folded stacks, as flame-graph tools read them: a line a key, its frames
 * from the outermost, function names only, ';' between, then its hits
 * (any other key is one frame); -1 when out of memory. */
int agg_view_write_folded(FILE *out, const struct agg_view *v, const struct symbolizer *y);
/* A stack key's frames and whether the walk stopped with more beyond. */
uint32_t agg_stack_depth(const struct agg_entry *a, bool *more);

#endif
