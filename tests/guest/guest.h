/*
 * What every guest test file shares: PASS/FAIL lines and their counts, and
 * small lookups in the running kernel. The suites are subcommands of one
 * binary, build/bin/test-live (live_test.c holds main()).
 */
#ifndef GILK_GUEST_H
#define GILK_GUEST_H

#include <stdint.h>

#include "live.h"

void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "N passed, N failed"; returns the exit status. */
int check_summary(void);

uint64_t sym(struct live *lv, const char *name);
uint64_t rng_next(uint64_t *s);
/* Releases every reservation of lv's file, whatever its id (ids count up
 * and are not given again while gilk.ko is loaded). */
void release_all(struct live *lv);
/* How many splices and reservations gilk.ko holds, of every file; -1 when
 * it does not say. */
long gilk_holds(struct live *lv);
/* A splice's hits, UINT64_MAX when it is gone. */
uint64_t hits(struct live *lv, uint32_t id);
/* Plans and splices at site; 0, or -1 with a note printed. */
int splice_at(struct live *lv, uint64_t site, unsigned flags,
	      const char *ins, const char *arg, uint32_t *id,
	      struct splice_plan *p);
/* Whether p's region holds its original bytes again. */
int restored(struct live *lv, const struct splice_plan *p);
/* A 5-byte jmp splice at site over orig, sent unplanned (what the planner
 * would refuse, for gilk.ko's own checks): 0, or -1 with *err its errno and
 * reason gilk.ko's. */
int force_splice(struct live *lv, uint64_t site, const uint8_t *orig,
		 enum bug_kind bug, int *err, char *reason, size_t rlen);
/* A check that gilk.ko refuses a forced splice at site with errno want and
 * a reason holding words. */
void expect_refusal(struct live *lv, const char *what, uint64_t site,
		    int want, const char *words);

/* Plans every block of fn (the first max), noting each that does not
 * plan; plans[] holds those that do, in order: their count. *nblocks: the
 * blocks planned. */
size_t plan_blocks(struct live *lv, const char *fn, struct splice_plan *plans, size_t max,
		   size_t *nblocks);
/* The path-walk functions' workload: a fixed path opened and closed n times. */
void open_n(int n);
/* Writes s to path opened O_WRONLY | flags: 0 or -errno. */
int write_file(const char *path, const char *s, int flags);
/* The last result /proc/gilk_target gives (LONG_MIN when unreadable). */
long target_result(void);

/* n sleeps of ms each, begun on CPU 0 and ended on CPU 1 (sleep_migrate.c);
 * the exit status. */
int sleep_migrate(int n, int ms);

/* The suites in other files. */
void test_verifier(struct live *lv);
void test_defects(struct live *lv);
void test_blacklist_race(struct live *lv, int rounds);
int trap_hold(struct live *lv);
void test_badreq(struct live *lv, int count);
void test_ibt(struct live *lv);
void test_rangefacts(struct live *lv);
void test_scale(struct live *lv, const char *glob);
void test_templates(struct live *lv);
void test_uniproc(struct live *lv);
void test_filters(struct live *lv);
void test_fetch(struct live *lv);
void test_agg(struct live *lv);
void test_page_runs(struct live *lv);
/* bugtable.c: the functions of the first n BUG()/WARN() sites, one a line;
 * how many of their traps a jmp covers now ("C of N"). */
int bug_functions(struct live *lv, size_t n);
int bug_traps_covered(struct live *lv, size_t n);

#endif
