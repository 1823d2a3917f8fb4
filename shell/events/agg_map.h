/*
 * agg_map: an aggregating splice's maps read back from gilk.ko for a
 * session (agg_view.h merges and writes them), counted from the session's
 * last "hist SPLICE clear": gilk.ko's maps only grow, so a clear keeps
 * what they held then, and later reads subtract it.
 */
#ifndef GILK_AGG_MAP_H
#define GILK_AGG_MAP_H

#include <stdint.h>
#include <stdio.h>

#include "events/agg_view.h"
#include "session/session.h"

/* Reads splice id's maps, minus what the session's last clear kept. */
int agg_view_read(struct session *s, uint32_t id, struct agg_view *v, struct gerr *e);
/* v as agg_view_write() writes it, its stacks' frames named by the
 * session's symbols. */
void agg_view_print(struct session *s, FILE *out, enum format f, const struct agg_view *v);
/* From now on, counts start again from 0 for this session's reads. */
int agg_clear(struct session *s, uint32_t id, struct gerr *e);
/* Drops every clear the session holds (it ends). */
void agg_clears_free(struct session *s);

#endif
