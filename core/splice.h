/*
 * splice: plans a splice at an address and emits its bytes.
 *
 * Planning (splice_plan) needs only what core/ knows: the CFGs of the site's
 * function and its neighbours, the kernel's text facts, and what other splices
 * already own. Emitting (splice_emit) needs the trampoline addresses, which
 * only exist once gilk.ko has reserved memory, so it is a second step.
 *
 * A splice displaces a region: whole instructions from the site, never
 * crossing a branch target, a reserved range or an instruction that cannot
 * move. A call may only end a region (its callee returns past the region).
 * A BUG()/WARN() ud2 may start one: gilk.ko replays it (see bug below).
 * After an instruction that does not fall through, the region may run on over
 * dead padding bytes, which are overwritten but not relocated.
 *  - region >= 5 bytes: `jmp rel32` to the trampoline (SPLICE_JMP);
 *  - 2..4 bytes: local bounce allocation (GILK): `jmp rel8` to a 5-byte
 *    `jmp rel32` slot within reach, found in dead padding, in the unused tail
 *    of another splice's region, or made by evicting a neighbouring run of
 *    >= 10 relocatable bytes into a plain trampoline of its own and using its
 *    dead tail (SPLICE_BOUNCE);
 *  - otherwise a named refusal, or, when asked for, trap mode: the int3 the
 *    patch protocol uses stays at the site and diverts each hit (SPLICE_TRAP).
 */
#ifndef GILK_SPLICE_H
#define GILK_SPLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "decode.h"
#include "textfacts.h"

#define SPLICE_REGION_MAX 32
#define SPLICE_INSN_MAX 16
#define SPLICE_TRAMP_MAX 512
/* The longest header a trampoline may start with (gilk.ko's templates) */
#define SPLICE_HEADER_MAX 320

enum splice_reason {
	SPLICE_OK,
	SR_NOT_TEXT,          /* not inside a known function */
	SR_NOT_BOUNDARY,      /* inside an instruction */
	SR_PADDING,           /* dead padding, not code */
	SR_UNDECODABLE,       /* bytes that do not decode */
	SR_MISALIGNED_TARGET, /* the function branches into an instruction */
	SR_JUMP_TABLE,        /* the function jumps through a table */
	SR_INT3,
	SR_UD2,
	SR_UNRELOCATABLE,
	SR_RIP_RANGE,
	SR_BRANCH_RANGE,
	SR_JUMP_LABEL,
	SR_STATIC_CALL,
	SR_FTRACE,
	SR_EXTABLE,
	SR_BLACKLIST,
	SR_KPROBE,
	SR_SMP_LOCK,
	SR_OCCUPIED,          /* another splice owns these bytes */
	SR_TOO_SHORT,         /* not even a 2-byte jmp fits before the limit */
	SR_NO_BOUNCE_SLOT,    /* 2..4 bytes, and no slot within rel8 reach */
	SR_IDLE,              /* idle code, or hlt/mwait in the region */
	SR_ENDBR,             /* an endbr64: IBT's landing pad, kept in place */
	SR_EMULATE_PREFIX,    /* behind Xen's or KVM's emulation prefix */
	SR_OWN_PATH,          /* gilk's own int3 divert or hit path runs it */
	SR_EARLY_CPU,         /* runs before the CPU's %gs is its per-CPU base */
	SR_RCU_IDLE,          /* runs while RCU does not watch the CPU */
	SR_GILK_CODE,         /* gilk.ko's own code */
	SR_NO_TABLES,         /* the kernel's tables are not known (arm64) */
	SR_EXCLUSIVE,         /* between an exclusive load and its store */
	SR_LANDING_PAD,       /* arm64's bti, or paciasp at a function's entry */
	SR_NREASONS
};

/* SPLICE_JOIN: a site already spliced, joined (splice_plan_join()). */
enum splice_mode { SPLICE_JMP, SPLICE_BOUNCE, SPLICE_TRAP, SPLICE_JOIN };

/* A displaced run of code: the site's region or an evicted neighbour. */
struct splice_region {
	uint64_t addr;
	uint8_t len;                 /* bytes overwritten */
	uint8_t live;                /* of which instructions to relocate */
	uint8_t ninsn;
	uint8_t orig[SPLICE_REGION_MAX];
	struct insn insns[SPLICE_INSN_MAX];
};

enum bounce_kind { BOUNCE_NONE, BOUNCE_PADDING, BOUNCE_TAIL, BOUNCE_EVICT };

struct splice_plan {
	enum arch arch;              /* the instruction set planned for, whose
				      * emitter splice_emit() runs */
	enum splice_mode mode;
	enum splice_reason reason;   /* SPLICE_OK, or why not */
	uint64_t reason_addr;        /* the instruction or byte behind reason */
	enum splice_reason limit;    /* why the region stopped short of 5 bytes */
	struct splice_region region;
	enum bounce_kind bounce_kind;
	uint64_t slot;               /* 5-byte jmp rel32 slot (bounce) */
	uint8_t slot_orig[5];
	struct splice_region evict;  /* BOUNCE_EVICT: the neighbour moved away */
	bool image_only;             /* covers alternatives: the bytes differ
				      * in a running kernel; plan live there */
	/* The region starts with a BUG() or WARN() ud2. The trap handler finds
	 * those by address, so the ud2 is not relocated: gilk.ko replays it
	 * after the instrument, as the kernel's handle_bug() would (report_bug()
	 * at the original address; a WARN resumes after the ud2, anything else
	 * dies). The splice must be requested with GILK_SPLICE_BUG. */
	enum bug_kind bug;
	/* The arithmetic flags are dead at the site (flags.h): the count
	 * template need not save them. */
	bool flags_dead;
	/* SPLICE_JOIN: the jmp at join_at leads into the site's splices'
	 * trampolines, to join_to now; the trampoline is the header and a jmp
	 * to join_to, and the jmp at join_at is rewritten to lead to it. */
	uint64_t join_at, join_to;
};

#define SPLICE_ALLOW_TRAP  1u    /* plan trap mode rather than refuse */
#define SPLICE_NO_BOUNCE   2u
#define SPLICE_NO_EVICT    4u

struct splice_env {
	const struct cfg *const *cfgs;  /* site's function and neighbours, by address */
	size_t ncfg;
	const struct textfacts *facts;  /* may be NULL */
	const struct range *occupied;   /* bytes other splices own */
	size_t noccupied;
	const struct range *tails;      /* dead tails of other splices' regions */
	size_t ntails;
	uint64_t tramp_hint;            /* where trampolines will live, for reach
					 * checks while planning; 0 to skip */
	unsigned flags;
	enum arch arch;                 /* arm64: one instruction a site */
	bool no_tables;                 /* the kernel's tables are not known:
					 * nothing is planned (SR_NO_TABLES) */
};


/* Plans a splice at site. Returns 0 (p->reason == SPLICE_OK) or -1. */
int splice_plan(const struct splice_env *env, uint64_t site,
		struct splice_plan *p);

/* A plan that joins the splices at site (on x86-64, the one instruction
 * set spliced live), whose region (len bytes, orig)
 * they displaced and whose jmp at join_at leads to join_to now
 * (GILK_SPLICE_JOIN): nothing of the kernel's changes but that jmp. */
void splice_plan_join(struct splice_plan *p, uint64_t site, uint8_t len, const uint8_t *orig,
		      uint64_t join_at, uint64_t join_to);

/* Where to splice to instrument the block starting at addr: past an endbr64
 * (IBT's landing pad for indirect calls, which must stay where it is) and
 * past an ftrace call site, whose nop5 belongs to ftrace; on arm64 past a
 * bti, past the paciasp a function starts with (both land indirect calls
 * under BTI) and past ftrace's two nops; otherwise addr. */
uint64_t splice_site_for_block(const struct splice_env *env, uint64_t addr);

/*
 * What runs before the relocated instructions: the header of one of
 * gilk.ko's templates (include/gilk_tramp.h), chosen by what the
 * instrument needs. core/ writes no header itself: the template code is
 * gilk.ko's own (kmod/arch/x86/tramp.c), which lib/ links and reaches through
 * write(), so the bytes gilk.ko's checker compares with have one producer.
 * core/ writes the relocated instructions after it and the jumps to it.
 */
struct splice_header {
	/* Writes the header of a trampoline at tramp, for a site whose
	 * pt_regs->ip is site, into out (SPLICE_HEADER_MAX bytes): full, a
	 * struct pt_regs whatever the instrument needs (the plan replays a
	 * BUG()/WARN(), which reads it); flags_dead, the plan found the flags
	 * dead at the site. Returns its length, or 0 when the template
	 * cannot reach what it addresses. */
	size_t (*write)(const struct splice_header *h, uint64_t tramp, uint64_t site,
			bool full, bool flags_dead, uint8_t *out);
	const void *arg;	/* the template and its parameters, write()'s */
};

struct splice_params {
	uint64_t tramp;        /* trampoline address (reserved by gilk.ko) */
	uint64_t evict_tramp;  /* the evicted neighbour's trampoline, if any */
	const struct splice_header *header;
};

struct splice_patch {
	uint64_t addr;
	uint8_t len;
	uint8_t bytes[SPLICE_REGION_MAX];
	uint8_t orig[SPLICE_REGION_MAX];
};

struct splice_code {
	uint8_t tramp[SPLICE_TRAMP_MAX];
	size_t tramp_len;
	size_t reloc_off;        /* where the relocated instructions start */
	/* Where each relocated instruction landed in its trampoline, so a fault
	 * there can be reported at the address it came from. */
	uint16_t insn_off[SPLICE_INSN_MAX];
	uint8_t evict_tramp[SPLICE_TRAMP_MAX];
	size_t evict_tramp_len;
	uint16_t evict_insn_off[SPLICE_INSN_MAX];
	/* In the order they must be written: slot or evicted neighbour first,
	 * the site last, so nothing ever jumps to bytes not yet there. Trap
	 * mode has no patch: gilk.ko keeps its int3 at the site. */
	struct splice_patch patches[2];
	size_t npatch;
};

/* The original address of trampoline address a, for a plan emitted at sp
 * into code (a relocated instruction maps to where it came from); 0 when a
 * is not one of the relocated instructions. */
uint64_t splice_original_addr(const struct splice_plan *p,
			      const struct splice_params *sp,
			      const struct splice_code *code, uint64_t a);

/* The most trampoline bytes a plan can need behind a header of at most
 * header_max bytes (what to reserve). */
size_t splice_tramp_size(const struct splice_plan *p, size_t header_max);
size_t splice_evict_tramp_size(const struct splice_plan *p);

/* Emits trampolines, sp's header first, and patches. Returns 0, or -1 with
 * *why set (the trampoline turned out out of reach of a RIP-relative
 * operand or target, or the header of what it addresses). */
int splice_emit(const struct splice_plan *p, const struct splice_params *sp,
		struct splice_code *out, enum splice_reason *why);

const char *splice_reason_name(enum splice_reason r); /* short, for tables */
const char *splice_reason_str(enum splice_reason r);  /* a sentence */
/* For a block refused as too short: why its region could not grow past
 * reason_addr (a reserved site, an instruction that cannot move), as a
 * sentence; NULL where nothing but a branch target or the function's end
 * stopped it. */
const char *splice_limit_str(const struct splice_plan *p);
const char *splice_mode_name(enum splice_mode m);

#endif
