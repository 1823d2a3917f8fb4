/*
 * kernel: a kernel as the planner sees it, image bytes + symbols + text facts
 * + a decoder, and the CFGs of its functions on demand. A planning window
 * holds the CFGs of every function within a bounce's reach of a site; it
 * caches them, so a scan in address order builds each CFG about once.
 */
#ifndef GILK_KERNEL_H
#define GILK_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "decode.h"
#include "gerr.h"
#include "image.h"
#include "splice.h"
#include "symtab.h"
#include "textfacts.h"

struct kernel {
	enum arch arch;                 /* the image's instruction set */
	struct kimage *img;
	struct symtab *syms;
	struct textfacts *facts;
	/* The kernel's tables were not read, so its sites are not planned:
	 * an arm64 kernel whose symbols do not bound them (kallsyms without
	 * KALLSYMS_ALL, as Debian builds it) */
	bool no_tables;
	struct decoder *dec;
	uint64_t text_start, text_end;  /* the image's .text */
	uint64_t *scratch;              /* targets from .cold parts */
	size_t nscratch, capscratch;
	/* .rodata, where a core kernel function's computed goto table lies,
	 * the image's end, past which modules' lie (0: not known), and live,
	 * /proc/kcore to read them from (the snapshot holds text) */
	uint64_t rodata_start, rodata_end, image_end;
	struct kimage *kcore;
	/* The branch targets of the core kernel's functions, decoded once for
	 * the CFGs of all their neighbours (kernel.c, neighbour_targets()) */
	struct nb_memo *memo;
};

/* image: vmlinux, bzImage, an arm64 Image or /proc/kcore (then as
 * kernel_open_live()); symbols: kallsyms or System.map. An arm64 kernel's
 * tables are bounded by data symbols, which its System.map has and Debian's
 * kallsyms does not: without them it is read, and its sites are refused
 * (SR_NO_TABLES). */
int kernel_open(struct kernel *k, const char *image, const char *symbols,
		struct gerr *e);
/* Puts back into a fresh snapshot the original bytes of whatever changed
 * the running kernel's text (live: gilk.ko's splices), before anything is
 * read from it: the kernel's tables are checked against its text (the bug
 * table's layout is found from the ud2s its entries point at), and a
 * splice's jmp there must not make gilk unable to start. */
struct kernel_restore {
	int (*fn)(void *ctx, struct kimage *snapshot, struct gerr *e);
	void *ctx;
};

/* A running kernel: symbols from kallsyms, and a snapshot (taken now, through
 * kcore) of its text and of the tables that outlive boot. Plans are made from
 * the snapshot, so splices made later do not change what the planner sees;
 * what other splices own is learnt from gilk.ko by the live library (lib/),
 * which gives restore (or NULL: nothing to put back). */
int kernel_open_live(struct kernel *k, const char *kcore, const char *symbols,
		     const struct kernel_restore *restore, struct gerr *e);
void kernel_close(struct kernel *k);

/* The image's text changed under k (live: the original bytes of splices put
 * back in the snapshot): forget what was decoded of it. */
void kernel_text_changed(struct kernel *k);

/* Builds the CFG of the function that starts at start. */
int kernel_cfg(struct kernel *k, uint64_t start, struct cfg *g, struct gerr *e);

/*
 * How far the CFG looks, as far as gilk.ko's checker does (its GILK_*
 * namesakes in the uapi, held equal by lib/): the branches of the symbols
 * starting within NEIGHBOUR_REACH either side, each decoded NEIGHBOUR_SPAN
 * bytes at most, that land in the function; the words of a jump table up
 * to TABLE_MAX, or TABLE_GAP_MAX zeros in a row (zeroed data).
 */
#define NEIGHBOUR_REACH 4096
#define NEIGHBOUR_SPAN 16384
#define TABLE_MAX 4096
#define TABLE_GAP_MAX 64

#define WINDOW_MAX 24

struct cfg_window {
	struct cfg cfgs[WINDOW_MAX];
	uint64_t used[WINDOW_MAX];      /* last use, for eviction */
	const struct cfg *view[WINDOW_MAX];
	size_t nview;
	uint64_t clock;
};

/* Makes w hold the CFGs of the function containing addr (first in w->view)
 * and of every function overlapping [addr - reach, addr + reach). */
int kernel_window(struct kernel *k, uint64_t addr, uint64_t reach,
		  struct cfg_window *w, struct gerr *e);
/* The same for every address of [lo, hi] (one function's): the function and
 * every function overlapping [lo - reach, hi + reach). Each address's own
 * window is a prefix of its views below and of those above, in the same
 * order, and the others lie out of its reach: planning any site of the
 * function from it plans as from the site's own. */
int kernel_window_over(struct kernel *k, uint64_t lo, uint64_t hi, uint64_t reach,
		       struct cfg_window *w, struct gerr *e);
void window_free(struct cfg_window *w);

/* The planning environment for w: facts from k, nothing occupied. */
void kernel_env(const struct kernel *k, const struct cfg_window *w,
		struct splice_env *env);

/* Where gilk.ko's trampolines will be for this kernel (the module area, as
 * the start of the top 1 GiB holds it on x86-64); for reach checks offline. */
#define MODULE_AREA_HINT 0xffffffffc0000000ull

#endif
