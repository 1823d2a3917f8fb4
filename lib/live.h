/*
 * live: the user-space half of live splicing. It plans with core/ from a
 * snapshot of the running kernel (kernel_open_live), applies plans through
 * /dev/gilk (reserve, emit for the reserved addresses, splice), unsplices,
 * and reads counters and events. The shell and the guest tests are built on
 * it. Like core/, it returns errors and never prints.
 */
#ifndef GILK_LIVE_H
#define GILK_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gerr.h"
#include "kernel.h"
#include "splice.h"
#include "uapi/gilk.h"

/*
 * What planning learns from gilk.ko is kept: FACTS is asked once per range
 * (a function and what a bounce can reach), and plans are made from that
 * cache; what gilk.ko reserves later is caught by its own checks at splice
 * time. The splices are asked for again before each plan, except inside
 * live_plan_many(), which asks once for the whole batch.
 */
struct lv_splice;

struct live {
	int fd;
	struct kernel k;
	struct kimage *kcore;       /* for module text, read when planned */
	struct cfg_window w;
	uint64_t gen, window_gen;   /* the snapshot's and the window's */
	uint64_t window_fn;         /* the function w was made for (0: none):
				     * its every site plans from it */
	bool smap;                  /* the CPU has SMAP: trampolines clac */
	bool batch;                 /* in a batch: splices known */
	bool facts_unsorted;        /* facts added since the last sort */
	uint64_t splices_sig;       /* of the splices last learnt */
	struct lv_splice *splices;  /* and the splices themselves */
	size_t nsplices;
	uint8_t *orig;              /* their original bytes (lv_splice) */
	size_t *by_site;            /* indexes of splices, by site (NULL: no
				     * memory; then no site is joined) */
	struct range *occupied;     /* gilk.ko's splices' bytes, sorted */
	size_t noccupied;
	struct range *pending;      /* bytes of the batch's plans so far */
	uint64_t *pending_site;     /* the site each belongs to, ascending */
	size_t npending, pending_first;
	struct range *near;         /* what one plan sees of both */
	size_t nnear;
	struct range *learnt;       /* ranges FACTS has answered, merged */
	size_t nlearnt;
	bool full_template;         /* every splice builds a full pt_regs,
				     * whatever its instrument needs (to
				     * compare costs); false: what it needs */
};

struct live_paths {
	const char *dev, *kcore, *kallsyms;  /* NULL: the usual places */
};

int live_open(struct live *lv, const struct live_paths *paths, struct gerr *e);
/* What gilk.ko says of itself: its ABI, the largest batch it takes. */
int live_version(const struct live *lv, struct gilk_version *v, struct gerr *e);
void live_close(struct live *lv);

/* GILK_TEXT_KERNEL, _MODULE or _NONE (init text, freed after boot). */
int live_text_kind(struct live *lv, uint64_t addr);
/* Makes sure the snapshot holds the function containing addr (module text
 * is read when first needed, and again each time: modules come and go). */
int live_load_text(struct live *lv, uint64_t addr, struct gerr *e);

/* Plans a splice at site, knowing what gilk.ko's other splices own. */
int live_plan(struct live *lv, uint64_t site, unsigned flags,
	      struct splice_plan *p, struct gerr *e);
/* The site that instruments the block at addr (past an ftrace nop). */
uint64_t live_block_site(struct live *lv, uint64_t addr);
/* Reserves, emits and splices p; *id is the new splice. On refusal the
 * message is gilk.ko's reason and errno is kept. */
int live_splice(struct live *lv, const struct splice_plan *p,
		const char *instrument, const char *arg, uint32_t *id,
		struct gerr *e);
int live_unsplice(struct live *lv, uint32_t id, struct gerr *e);
/* The SPLICE request for p, with trampoline memory reserved for it (what
 * live_splice sends; tests send it changed), and where its relocated code
 * starts (reloc_off may be NULL). GILK_IOC_RELEASE frees the reservation
 * req->id if the request is not sent. */
int live_request(struct live *lv, const struct splice_plan *p,
		 const char *instrument, const char *arg,
		 struct gilk_splice *req, size_t *reloc_off, struct gerr *e);

/* Work on many functions at once (fns: an address in each, ascending):
 * gilk.ko's splices are learnt once, and FACTS asked about every function
 * now, until live_batch_end(). */
int live_batch_begin(struct live *lv, const uint64_t *fns, size_t n, struct gerr *e);
void live_batch_end(struct live *lv);
/* In a batch: FACTS asked about n more functions (fns ascending) at once,
 * its answers sorted once, as live_batch_begin() does for its own. */
void live_batch_facts(struct live *lv, const uint64_t *fns, size_t n);
/* In a batch that splices in steps: the bytes n plans just spliced are
 * left alone by the plans after them, without gilk.ko's every splice
 * listed again (a list of the whole kernel's would be a gigabyte). */
int live_batch_spliced(struct live *lv, const struct splice_plan *plans, size_t n,
		       struct gerr *e);

/* Plans n sites so that the plans leave each other's bytes alone (each
 * sees what the earlier ones will own), in address order, with one look at
 * gilk.ko's splices and FACTS asked for each function once. ok[i] says
 * which succeeded; why[i] holds the refusal of the others. Returns how many
 * succeeded. */
size_t live_plan_many(struct live *lv, const uint64_t *sites, size_t n,
		      unsigned flags, struct splice_plan *plans, bool *ok,
		      enum splice_reason *why);
/* Splices n plans (up to GILK_BATCH_MAX) with one grace period, all or
 * none; ids[i] for plan i. */
int live_splice_batch(struct live *lv, const struct splice_plan *plans,
		      size_t n, const char *instrument, const char *arg,
		      uint32_t *ids, struct gerr *e);
/* The same with an instrument, argument and filter per plan (nuses == n),
 * or one for all (nuses == 1): an entry and its exits in one grace period.
 * filter NULL: every hit runs the instrument. */
struct live_use {
	const char *instrument, *arg;
	const struct gilk_filter *filter;
	const struct gilk_fetch *fetch;	/* NULL: none */
	const struct gilk_agg *agg;	/* NULL: none */
};
int live_splice_batch_uses(struct live *lv, const struct splice_plan *plans,
			   size_t n, const struct live_use *uses, size_t nuses,
			   uint32_t *ids, struct gerr *e);
/* The same, with each splice's trampoline address in tramps[i] (what
 * tells it from a later splice given its id), without listing them all. */
int live_splice_batch_made(struct live *lv, const struct splice_plan *plans,
			   size_t n, const struct live_use *uses, size_t nuses,
			   uint32_t *ids, uint64_t *tramps, struct gerr *e);
/* Calls fn with each splice in brief, in id order, a page of them asked of
 * gilk.ko at a time: memory for a page, however many there are. fn's
 * non-zero return stops it and is returned. */
int live_each_brief(struct live *lv, int (*fn)(void *ctx, const struct gilk_brief *b),
		    void *ctx, struct gerr *e);
/* Any number, in one request (GILK_BATCH_MAX at a time), all or none. */
int live_unsplice_batch(struct live *lv, const uint32_t *ids, size_t n,
			struct gerr *e);

/* How many splices and reservations gilk.ko holds, and its trampoline
 * memory. */
int live_stats(struct live *lv, struct gilk_stats *st, struct gerr *e);
/* Calls fn with each active splice, in id order, a page of them
 * (GILK_LIST_MAX) asked of gilk.ko at a time: memory for a page, however
 * many there are. fn's non-zero return stops it and is returned. */
int live_each_splice(struct live *lv, int (*fn)(void *ctx, const struct gilk_splice_info *in),
		     void *ctx, struct gerr *e);
/* Active splices: *out is malloc'd, *n of them, each in full (1.5 KiB:
 * for lists a user asked to see, not for the whole kernel's coverage). */
int live_list(struct live *lv, struct gilk_splice_info **out, size_t *n,
	      struct gerr *e);
/* Whether a splice records anything to read later (events, or a map): a
 * plain count, as coverage's are, only counts. */
bool live_splice_records(const struct gilk_splice_info *in);
/* live_list() of the splices that record. */
int live_list_recording(struct live *lv, struct gilk_splice_info **out, size_t *n,
			struct gerr *e);
/*
 * One CPU's map of an aggregating splice: *slots malloc'd, *n of them of
 * *slot_len bytes each, with the hits whose key found no room; *cpus is
 * the CPU numbers there can be (read each of 0..*cpus - 1).
 */
int live_agg_read(struct live *lv, uint32_t id, uint32_t cpu, uint8_t **slots, size_t *n,
		  uint32_t *slot_len, uint64_t *dropped, uint32_t *cpus, struct gerr *e);
/* The splice that owns bytes in [addr, addr + len) (its region, or a
 * byte it patched): 0 with its info, -1 when none does. */
int live_owner(struct live *lv, uint64_t addr, size_t len, struct gilk_splice_info *out);
/* " (splice N, INSTRUMENT, at WHERE)" for the owner of bytes in [addr, addr
 * + len), or "" when none is found: what an "occupied" refusal says. */
void live_owner_text(struct live *lv, uint64_t addr, size_t len, char *buf, size_t n);
int live_info(struct live *lv, uint32_t id, struct gilk_splice_info *out,
	      struct gerr *e);
int live_instruments(struct live *lv, struct gilk_instrument_info **out,
		     size_t *n, struct gerr *e);
/* Reads kernel memory through gilk.ko (faults are errors, not oopses). */
int live_read_mem(struct live *lv, uint64_t addr, void *buf, size_t len,
		  struct gerr *e);
/* Drains events (struct gilk_event + payload, back to back) into buf. */
ssize_t live_read_events(struct live *lv, void *buf, size_t len,
			 struct gerr *e);

#endif
