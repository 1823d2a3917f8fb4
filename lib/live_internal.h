/*
 * What the three parts of live splicing share: live.c (the ioctl client and
 * the snapshot of other splices), live_facts.c (gilk.ko's facts, asked once
 * per range, and module text) and live_plan.c (planning and splicing).
 * Not for users of live.h.
 */
#ifndef GILK_LIVE_INTERNAL_H
#define GILK_LIVE_INTERNAL_H

#include "live.h"

/* How far a bounce reaches from its site, either way: what a plan around a
 * site must know of its neighbours. */
#define REACH 160

/* Appends [lo, hi) to a range list that grows by doubling; -1: no memory. */
int lv_push_range(struct range **arr, size_t *n, uint64_t lo, uint64_t hi);
/* live_owner_text() from the splices last learnt, asking gilk.ko nothing. */
void lv_known_owner_text(const struct live *lv, uint64_t addr, size_t len, char *buf, size_t n);
/* A splice as the planner learns it (live.c): where its bytes are and
 * what they were, and how a newcomer joins it. */
struct lv_splice {
	uint64_t site, join_at, join_top;
	uint64_t patch_addr[GILK_MAX_PATCHES];
	uint32_t id;
	uint32_t orig;		/* at lv->orig + orig: the region's original
				 * bytes, each patch's, and its label (its
				 * instrument or aggregation) */
	uint8_t region_len, npatch, join_depth;
	uint8_t patch_len[GILK_MAX_PATCHES];
};

/* One of the splices last learnt whose site is site, or NULL. */
const struct lv_splice *lv_splice_at(const struct live *lv, uint64_t site);
/* Its patch k's original bytes, and its label. */
const uint8_t *lv_splice_patch_orig(const struct live *lv, const struct lv_splice *s,
				    unsigned k);
const char *lv_splice_label(const struct live *lv, const struct lv_splice *s);
/* Learns what other splices own and changed (once per change of the set). */
int lv_learn_splices(struct live *lv, struct gerr *e);
/* Puts the original bytes of the splices learnt back where they fall in
 * [lo, hi) of the snapshot. */
void lv_unsplice_snapshot(struct live *lv, uint64_t lo, uint64_t hi);

/* The bytes a plan around [lo, hi) must leave alone, into lv->near. */
int lv_near_ranges(struct live *lv, uint64_t lo, uint64_t hi);
/* Asks FACTS about the parts of [lo, hi) not answered before. */
int lv_learn_facts(struct live *lv, uint64_t lo, uint64_t hi, struct gerr *e);
/* Sorts the facts learnt since the last sort. */
void lv_ensure_sorted(struct live *lv);
/* Reads a module function's text into the snapshot. */
int lv_snapshot_module_text(struct live *lv, uint64_t fs, uint64_t fe, struct gerr *e);
/* The range FACTS is asked about for a site of the function [fs, fe). */
void lv_facts_range(const struct live *lv, uint64_t fs, uint64_t fe, uint64_t *lo,
		    uint64_t *hi);
/* FACTS for the functions of n addresses (ascending, or in order[]). */
void lv_learn_batch_facts(struct live *lv, const uint64_t *addrs, const size_t *order,
			  size_t n);

#endif
