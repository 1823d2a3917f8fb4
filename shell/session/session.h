/*
 * session: everything one gilk shell holds: the kernel it looks at (offline:
 * an image and its symbols; live: the running kernel through gilk.ko), how
 * commands come in, and where output goes. The only mutable state of the
 * shell lives here.
 */
#ifndef GILK_SESSION_H
#define GILK_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel.h"
#include "live.h"
#include "session/settings.h"
#include "output/symbolizer.h"

struct pager;
struct coverage;
struct session_lines;
struct ktypes;
struct event_log;
struct agg_clear;
struct event_regs;

struct session {
	bool live;
	struct live lv;            /* live mode */
	struct kernel offline;     /* offline mode */
	struct kernel *k;          /* whichever of the two */
	struct cfg_window w;       /* offline planning window */
	struct cfg cfg;            /* the last function decoded */
	FILE *out;
	bool quit;
	bool asks;                 /* a person answers questions (a terminal,
				    * not -batch, -c, -x or a pipe) */
	struct settings set;       /* "set" and "show" */
	uint64_t *lost_seen;       /* lost events already reported, by splice id */
	size_t nlost_seen;         /* grown to the highest id seen */
	struct made_splice *made;  /* splices made in this session, for quit */
	size_t nmade, made_room;
	uint32_t last_made;        /* the last splice made ("hist last"); 0: none */
	char repeat[256];          /* what Enter on an empty line runs */
	struct recording *rec;     /* "record FILE" running (script/record.c) */
	struct pager *pager;       /* the terminal's pager, when paging */
	struct coverage *cov;      /* "coverage": its blocks and splices */
	struct event_log *held;    /* events drained and not yet shown
				    * ("events N"): the next drain's first */
	struct splice_mark *marks; /* live splices, as last read, in id order */
	size_t nmarks;
	struct gilk_splice_info *spliced; /* of those, the ones that record
				    * (events, maps), in full */
	size_t nspliced;
	struct completion *tab;    /* Tab's last candidates (complete.c) */
	char *image;               /* offline: the image's path */
	struct session_lines *lines; /* source lines (lines.c), on first use */
	struct ktypes *types;      /* C types (types.c), on first use */
	struct agg_clear *agg_clears; /* "hist SPLICE clear": what the maps
				    * held then (agg_map.c) */
	size_t nagg_clears;
	struct event_regs *regs;   /* the last event shown with registers,
				    * for $rax, $rip... (NULL: none yet) */
};

int session_open_live(struct session *s, struct gerr *e);
int session_open_offline(struct session *s, const char *image,
			 const char *symbols, struct gerr *e);
void session_close(struct session *s);

/* 0 when live, else -1: "WHAT needs live mode", as every command says it. */
int session_need_live(const struct session *s, const char *what, struct gerr *e);
/* Whether a function a pattern matched can be spliced at all: core kernel
 * text, or (live) a module's; not init text, freed after boot. */
bool session_is_text(struct session *s, uint64_t addr);
/* A splice this session made: gilk.ko reuses an id once its splice is
 * gone, and the same site and trampoline tell the splice from a later one
 * with its id (this session's or another's). */
struct made_splice {
	uint32_t id;
	uint64_t site, tramp;
};

/* Remembers splices this session made (ids just spliced from plans, with
 * the trampolines live_splice_batch_made() gave them), so that quit can
 * offer to remove them. */
void session_made(struct session *s, const uint32_t *ids, const struct splice_plan *plans,
		  const uint64_t *tramps, size_t n);
/* Of the live splices (as session_splices_refresh() last read them), the
 * ones this session made, their ids in ids[] (room for s->nmarks). */
size_t session_made_live(const struct session *s, uint32_t *ids);
/* Whether the user asked to stop the command (Ctrl-C, "q" at the pager). */
bool session_interrupted(const struct session *s);

/* An address from "sym", "sym+off" or "0xaddr". */
int session_resolve(struct session *s, const char *expr, uint64_t *addr,
		    struct gerr *e);
/* The function containing addr, decoded into s->cfg. */
int session_cfg(struct session *s, uint64_t addr, const struct ksym **sym,
		struct gerr *e);
/* Where to splice to instrument the block at addr (past an ftrace nop). */
uint64_t session_block_site(struct session *s, uint64_t addr);
/* The block of g where a WARN() ending bl resumes (its ud2 ends the block,
 * and the trap handler goes on after it: an edge no decoder sees), or -1
 * when bl does not end in a WARN(). */
ssize_t session_warn_resume(struct session *s, const struct cfg *g,
			    const struct block *bl);
/* Plans a splice at site: -1 with p->reason set when refused. */
int session_plan(struct session *s, uint64_t site, unsigned flags,
		 struct splice_plan *p, struct gerr *e);
/* Live: the id of the splice at addr (0 when none, or offline). The list is
 * read once per command by session_splices_refresh(). */
void session_splices_refresh(struct session *s);
/* Splices about to be removed (those of infos whose id is in ids) join
 * the session's list of splices, so that the events they left are still
 * read as theirs (their instrument's fields, their site). */
void session_splices_removing(struct session *s, const struct gilk_splice_info *infos, size_t n,
			      const uint32_t *ids, size_t nids);
uint32_t session_splice_at(const struct session *s, uint64_t addr);
/* Its hits, as that list read them. */
uint64_t session_splice_hits(const struct session *s, uint32_t id);

/* Reads kernel bytes: live through gilk.ko, offline from the image. */
int session_read(struct session *s, uint64_t addr, void *buf, size_t len,
		 struct gerr *e);
/* What names addresses for this session (symbolizer.h): its kernel's
 * symbols and, live, the splices as session_splices_refresh() last read
 * them; valid until the next refresh. */
struct symbolizer session_symbolizer(const struct session *s);
/* "sym+0x1f (0xffffffff81...)" */
void session_where(struct session *s, uint64_t addr, char *buf, size_t len);
/* The same, but relative to the symbol named in expr when it is the start of
 * addr's function: several names share an address, and the user's is best. */
void session_where_as(struct session *s, uint64_t addr, const char *expr,
		      char *buf, size_t len);

#endif
