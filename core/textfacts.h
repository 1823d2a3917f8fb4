/*
 * textfacts: what the planner must know about kernel text beyond its bytes.
 *  - reserved ranges: bytes that something else rewrites or looks up by address
 *    (jump labels, static calls, ftrace sites), instructions with
 *    an exception-table entry (a fault there is fixed up by address, so they
 *    must not move), and code kprobes may not touch (blacklist, noinstr, entry);
 *  - alternatives sites: bytes the kernel rewrote once at boot, so an offline
 *    plan over them holds only for the image (live plans use live bytes);
 *  - extra branch targets: jump-label targets, exception fixup landings and
 *    the instruction after each WARN() ud2: edges no decoder sees;
 *  - BUG() and WARN() sites: the ud2s __bug_table lists, which the trap
 *    handler looks up by address.
 * Offline they come from the image's tables; live, gilk.ko reports them.
 */
#ifndef GILK_TEXTFACTS_H
#define GILK_TEXTFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "gerr.h"
#include "image.h"
#include "symtab.h"

/* Numbered as gilk.ko's FACTS numbers the kinds it reports (GILK_RES_* in
 * the uapi; lib/ asserts each equal): those first, then the two only the
 * planner reads from the image. */
enum res_kind {
	RES_JUMP_LABEL,
	RES_STATIC_CALL,
	RES_FTRACE,
	RES_EXTABLE,
	RES_BLACKLIST,
	RES_KPROBE,      /* live only: a kprobe is registered there */
	RES_SMP_LOCK,    /* live only: a lock prefix rewritten on CPU hotplug */
	RES_OWN_PATH,    /* live only: gilk's int3 divert or hit path runs it */
	RES_EARLY_CPU,   /* live only: runs before the CPU's per-CPU base is set */
	RES_RCU_IDLE,    /* live only: runs while RCU does not watch the CPU */
	RES_GILK_CODE,   /* live only: gilk.ko's own text */
	RES_ALTERNATIVE,
	RES_IDLE,        /* .cpuidle.text: RCU-tasks does not wait for idle */
	RES_NKINDS
};

struct res_range {
	uint64_t start, end;
	uint8_t kind; /* enum res_kind */
};

struct textfacts;

struct textfacts *textfacts_new(void);
void textfacts_free(struct textfacts *tf);

/* Reads every table the reference kernel has (see textfacts.c for the list).
 * A table whose bounds are not in the symbols is an error naming it. */
int textfacts_load(struct textfacts *tf, struct kimage *img,
		   const struct symtab *st, struct decoder *dec, struct gerr *e);

/* The same from a running kernel's memory: only tables that outlive boot
 * (__mcount_loc, _kprobe_blacklist and .altinstructions are init data, gone
 * after boot; gilk.ko answers for ftrace and the blacklist instead). */
int textfacts_load_live(struct textfacts *tf, struct kimage *img,
			const struct symtab *st, struct decoder *dec,
			struct gerr *e);

int textfacts_add_range(struct textfacts *tf, uint64_t start, uint64_t end,
			enum res_kind kind);
int textfacts_add_target(struct textfacts *tf, uint64_t addr);
/* A BUG() (warn false) or WARN() trap of len bytes at addr (x86's ud2,
 * arm64's brk); a WARN also makes addr + len a target. */
int textfacts_add_bug(struct textfacts *tf, uint64_t addr, unsigned len, bool warn);
/* Sorts what was added in, merged with what was finished before (a few
 * added to the kernel's whole tables cost the few); queries see only what
 * was finished. */
void textfacts_finish(struct textfacts *tf);

/* A range overlapping [start, end) whose kind is not skip (RES_NKINDS skips
 * nothing), or NULL. */
const struct res_range *textfacts_reserved(const struct textfacts *tf,
					   uint64_t start, uint64_t end,
					   enum res_kind skip);
/* Whether a range of kind overlaps [start, end). */
bool textfacts_overlaps(const struct textfacts *tf, uint64_t start,
			uint64_t end, enum res_kind kind);
/* Extra targets in [start, end): returns the count, *first points at them. */
size_t textfacts_targets(const struct textfacts *tf, uint64_t start,
			 uint64_t end, const uint64_t **first);

enum bug_kind { BUG_NONE, BUG_BUG, BUG_WARN };
/* Whether addr is a BUG() or WARN() ud2 site. */
enum bug_kind textfacts_bug(const struct textfacts *tf, uint64_t addr);

#endif
