/*
 * emu: runs kernel code under Unicorn for the differential tests. One emu is
 * one engine with the code window of a function mapped from real bytes, a
 * stack, a module-area page for trampolines and a stub instrument, and data
 * pages mapped on demand with content derived from a seed, so two engines
 * given the same seed see the same memory.
 */
#ifndef GILK_TEST_EMU_H
#define GILK_TEST_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flag_defs.h"
#include <unicorn/unicorn.h>

#include "splice.h"
#include "uapi/gilk.h"

/* Offsets in the struct pt_regs a full template builds (x86-64 layout). */
enum ptregs_slot {
	PT_R15, PT_R14, PT_R13, PT_R12, PT_RBP, PT_RBX, PT_R11, PT_R10,
	PT_R9, PT_R8, PT_RAX, PT_RCX, PT_RDX, PT_RSI, PT_RDI, PT_ORIG_AX,
	PT_IP, PT_CS, PT_FLAGS, PT_SP, PT_SS, PT_NSLOTS
};

#define EMU_NREGS 17          /* rax..r15 (16) + rflags */
#define EMU_MAX_DATA_PAGES 64
#define EMU_MAX_EXTRA 4

#define TRAMP_AREA   0xffffffffc0000000ull  /* module area */
#define STUB_ADDR    (TRAMP_AREA)
#define TRAMP_ADDR   (TRAMP_AREA + 0x1000)
#define EVICT_ADDR   (TRAMP_AREA + 0x2000)
#define TRAMP_AREA_SIZE 0x4000
#define STACK_BASE   0xffffc90000100000ull
#define STACK_SIZE   0x10000
#define DATA_BASE    0xffff888000000000ull
#define INSTR_CTX    0x1234567887654321ull
#define GS_BASE      (DATA_BASE + 0x100000)
/* Per-CPU counters for the count template: one whose %gs-relative address
 * fits a disp32, one that needs a register. */
#define COUNTER_NEAR 0x200000ull
#define COUNTER_FAR  (TRAMP_AREA + 0x3000 - GS_BASE)
/* The tsc template's ring (uapi struct gilk_tsc_ring), in the module area,
 * and, %gs-relative, the per-CPU number of the CPU it runs on (3), its
 * preempt count (in a hard interrupt over a softirq) and current task (one
 * whose pid is 1234, at TASK_PID_OFF in a task of the per-CPU page). */
#define TSC_RING_ADDR (TRAMP_AREA + 0x100000)
#define TSC_RING_SLOTS GILK_TSC_SLOTS
#define TSC_RING_SLOT0 offsetof(struct gilk_tsc_ring, slot)
#define TSC_RING_SIZE ((sizeof(struct gilk_tsc_ring) + 4095) & ~4095ull)
#define CPU_NUMBER_OFF (COUNTER_NEAR + 0x800)
#define CPU_NUMBER 3u
#define PREEMPT_COUNT_OFF (COUNTER_NEAR + 0x808)
#define PREEMPT_COUNT 0x80010101u	/* need-resched clear, 1 hardirq, serving a softirq */
#define CURRENT_TASK_OFF (COUNTER_NEAR + 0x810)
#define FAKE_TASK (GS_BASE + COUNTER_NEAR + 0x900)
#define TASK_PID_OFF 0x40
#define TASK_PID 1234u
/* For count_task: the task's tgid and name (comm, NUL-padded as the
 * kernel keeps it); the filtered counter is the u64 after the hit counter. */
#define TASK_TGID_OFF 0x48
#define TASK_TGID 1200u
#define TASK_COMM_OFF 0x60
#define TASK_COMM "diff-task"
/* The same task under shorter names, each where one compare reads it (4
 * and 8 of comm's bytes): the checker and the template take comm's offset
 * from the request, so a test reads the name at the offset it is given. */
#define TASK_COMM8_OFF 0x70
#define TASK_COMM8 "dt-7chr"
#define TASK_COMM4_OFF 0x80
#define TASK_COMM4 "dt3"
/* What the template must write as who: CPU, interrupt bits, pid. */
#define TSC_WHO ((uint64_t)TASK_PID << 32 | \
		 (uint64_t)((PREEMPT_COUNT & GILK_WHO_PREEMPT_MASK) << GILK_WHO_PREEMPT_SHIFT) | \
		 CPU_NUMBER)
#define TSC_SLOTS_KEPT 8

struct emu_state {
	uint64_t regs[EMU_NREGS];     /* rax rcx rdx rbx rsp rbp rsi rdi r8..r15 flags */
};

struct range64 {
	uint64_t lo, hi;
};

struct emu_result {
	uc_err err;
	uint64_t exit_addr;
	bool step_limit;
	struct emu_state end;
	bool instrumented;            /* the stub ran */
	uint64_t seen[PT_NSLOTS];     /* the pt_regs it saw */
	uint64_t seen_ctx, seen_rsi;
	unsigned instrument_calls;
	unsigned site_hits;           /* how often control reached count_site */
	uint64_t counted;             /* the counter at counter_addr, after */
	uint64_t filtered;            /* and at filtered_addr */
	/* the ring at tsc_ring after: its head, and its first slots
	 * (begin, tsc, cpu, end) */
	uint64_t tsc_head;
	uint64_t tsc_slots[TSC_SLOTS_KEPT][4];
	/* The kernel's trap handler at a BUG()/WARN() ud2, as modelled:
	 * reports, the registers of the first, and whether a BUG ended the
	 * run (then end holds the registers the report saw). */
	unsigned bug_reports;
	struct emu_state bug_state;
	bool died;
	/* Flags the last instruction to write them left undefined (only
	 * where the emu tracks them: its flag_defs is set). */
	uint16_t undef_flags;
};

struct emu {
	uc_engine *uc;
	uc_context *clean;            /* CPU state before any run */
	uint64_t code_lo, code_hi;    /* mapped code window */
	struct range64 allowed[1 + EMU_MAX_EXTRA];
	size_t nallowed;
	uint64_t data_pages[EMU_MAX_DATA_PAGES];
	size_t ndata;
	uint64_t seed;
	uint64_t steps, max_steps;
	uint64_t writes;              /* code writes, for emu_write()'s flushes */
	uint64_t tramp_entry;         /* trampoline start: stack snapshot */
	uint64_t reloc_entry;         /* tramp + reloc_off: snapshot restored */
	uint64_t rsp0;
	/* A BUG()/WARN() site the kernel's trap handler would report: in the
	 * original, where its ud2 runs; patched, replayed by the stub after
	 * the instrument, as gilk.ko's entry does. 0: none. */
	uint64_t bug_site;
	bool bug_warn;
	uint64_t count_site;          /* where site_hits counts, 0: nowhere */
	uint64_t counter_addr;        /* GS_BASE + the counter, 0: none */
	uint64_t filtered_addr;       /* GS_BASE + the filtered counter, 0: none */
	uint64_t tsc_ring;            /* TSC_RING_ADDR, 0: none */
	uint64_t tsc;                 /* what the trampoline's rdtsc reads */
	uint64_t snap_sp;
	uint8_t snap[512];
	struct emu_result *res;
	struct flag_defs *flag_defs;  /* NULL: undefined flags not tracked */
};

int emu_open(struct emu *m);
void emu_close(struct emu *m);
/* Maps [lo, hi) (page-rounded) with bytes from code (or zero where NULL). */
int emu_map_code(struct emu *m, uint64_t lo, uint64_t hi,
		 const uint8_t *(*bytes)(void *ctx, uint64_t addr), void *ctx);
void emu_write(struct emu *m, uint64_t addr, const void *p, size_t n);
void emu_allow(struct emu *m, uint64_t lo, uint64_t hi);
void emu_reset_allowed(struct emu *m);
/* Runs from pc with state s until control leaves the allowed ranges. */
void emu_run(struct emu *m, uint64_t pc, const struct emu_state *s,
	     uint64_t seed, struct emu_result *r);
/* Compares two results: registers, exit, error and memory. Writes a
 * description of the first difference into why. */
bool emu_same(struct emu *a, const struct emu_result *ra, struct emu *b,
	      const struct emu_result *rb, char *why, size_t len);

/* Checks what a full template's instrument saw: ctx, and pt_regs as the
 * machine was at the site. */
bool emu_instrument_ok(const struct emu_state *s, uint64_t site,
		       const struct emu_result *r, char *why, size_t len);
/* The scratch template's: ctx, and no pt_regs. */
bool emu_scratch_ok(const struct emu_result *r, char *why, size_t len);
/* The tsc template's: no call, and one complete slot per pass through the
 * site, in order, with the CPU's number and a check that holds. */
bool emu_tsc_ok(const struct emu_result *r, unsigned site_hits, char *why, size_t len);

void emu_random_state(uint64_t *rng, struct emu_state *s);
uint64_t rng_next(uint64_t *s);

#endif
