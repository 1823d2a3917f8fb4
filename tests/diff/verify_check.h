/*
 * verify_check: every plan the differential tests run is also handed, as the
 * SPLICE request live splicing would send, to gilk.ko's code checker
 * (kmod/arch/x86/verify.c, built for user space with the kernel's own decoder). It
 * must accept the plan, and refuse every mutation of it: a changed byte, an
 * instruction added, removed or swapped, a changed target or displacement, a
 * slot over live code, a divert elsewhere, a changed header, trailing bytes.
 */
#ifndef GILK_TEST_VERIFY_CHECK_H
#define GILK_TEST_VERIFY_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "kverify.h"
#include "splice.h"
#include "symtab.h"
#include "template.h"
#include "textfacts.h"

/* Where the code the checker reads comes from: the image as the kernel has it. */
struct vc_text {
	const uint8_t *(*byte)(void *ctx, uint64_t addr);
	void *ctx;
	const struct symtab *syms;      /* NULL: every address is in one function */
	uint64_t func_start, func_end;  /* used when syms is NULL */
	uint64_t split;                 /* and if not 0, a second function
					 * starts here */
	const struct textfacts *facts;  /* may be NULL */
	const struct cfg *cfg;          /* the site's function */
	/* bytes read at flip_at instead of the image's (a jump label
	 * flipped since): flip_len of them, 0 for none */
	uint64_t flip_at;
	uint8_t flip[5];
	size_t flip_len;
};

struct vc_tally {
	uint64_t rng;                   /* the mutations' own, so the runs
					 * see the same states with or
					 * without the checker */
	size_t accepted, refused_plans, mutations, mutations_refused;
	size_t by_kind[16], escaped_by_kind[16];
	size_t by_template[GILK_TRAMP_NKINDS]; /* templates of accepted plans */
	/* count plans with flags live, proposed without saving them: how
	 * many, refused, and accepted because the checker found them dead */
	size_t unsaved, unsaved_refused, unsaved_checker_dead;
	/* tsc plans checked as if no ring had been reserved: all refused */
	size_t ringless, ringless_refused;
	/* every verdict again with the walk memory a batch keeps
	 * (vc_memo_reset() per text): how many, and how many came out
	 * otherwise */
	void *memo;
	size_t memo_checks, memo_differ;
	/* and with a jump label before the site flipped since the memory's
	 * marks were made: how many, and how many the memory let pass where
	 * a walk from the start refuses (it may refuse more, never less) */
	void *memo_scratch;
	size_t flip_checks, flip_refused, flip_looser;
	/* each accepted plan's site joined by a second splice
	 * (GILK_SPLICE_JOIN): accepted or not, and its mutations refused */
	size_t join_accepted, join_refused, join_mutations, join_mutations_refused;
};

/* Checks one plan emitted with sp, whose header is tpl's (its request
 * carrying filter, or none), and count mutations of it; failures go to
 * stderr. */
void vc_check_plan(const struct splice_plan *p, const struct splice_params *sp,
		   const struct template *tpl, const struct splice_code *code,
		   const struct gilk_filter *filter, const struct vc_text *text,
		   unsigned mutations, struct vc_tally *t);

/* The text the next plans are read from is not the last ones': the walk
 * memory starts empty (made on the first call). */
void vc_memo_reset(struct vc_tally *t);
void vc_memo_free(struct vc_tally *t);

const char *vc_mutation_name(unsigned kind);
/* VEX instructions that look like branches are copied, and a jmp for one
 * refused; false with why when not. */
bool vc_vex_copied(char *why, size_t len);
/* Branches and hidden edges into what a splice overwrites past a region's
 * start, or into a bounce slot, make the checker refuse it. */
bool vc_edges_refused(char *why, size_t len);
/* A computed goto's table, read by the checker: a label in a region refused. */
bool vc_table_labels_refused(char *why, size_t len);
/* A neighbour's emulation prefix is no branch to the checker, as to the
 * planner; the same bytes one letter off are. */
bool vc_emulate_prefix_no_edge(char *why, size_t len);
/* A region stays inside its symbol; an endbr64 is never displaced. */
bool vc_region_in_symbol(char *why, size_t len);
bool vc_endbr_refused(char *why, size_t len);
/* A bounce slot never starts at a call's return address. */
bool vc_slot_not_return_address(char *why, size_t len);
/* A cs-prefixed jmp relocated as a plain one is taken. */
bool vc_cs_jmp_relocated(char *why, size_t len);
unsigned vc_mutation_kinds(void);

#endif
