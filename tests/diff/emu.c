/* Unicorn harness for the differential tests (see emu.h). */
#include "emu.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const int uc_regs[EMU_NREGS] = {
	UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX,
	UC_X86_REG_RSP, UC_X86_REG_RBP, UC_X86_REG_RSI, UC_X86_REG_RDI,
	UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
	UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
	UC_X86_REG_EFLAGS,
};
static const char *const reg_names[EMU_NREGS] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "rflags",
};
/* pt_regs slot of each of the 16 registers above (rsp: PT_SP). */
static const int pt_slot[16] = {
	PT_RAX, PT_RCX, PT_RDX, PT_RBX, PT_SP, PT_RBP, PT_RSI, PT_RDI,
	PT_R8, PT_R9, PT_R10, PT_R11, PT_R12, PT_R13, PT_R14, PT_R15,
};

/* The arithmetic flags plus DF; what code can observe. */
#define FLAGS_MASK 0xcd5ull

uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s += 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void emu_random_state(uint64_t *rng, struct emu_state *s)
{
	for (int i = 0; i < 16; i++) {
		uint64_t r = rng_next(rng);

		switch (r % 5) {
		case 0: s->regs[i] = r >> 56; break;                  /* small */
		case 1: s->regs[i] = DATA_BASE + ((r >> 8) & 0xfff8); break; /* pointer */
		case 2: s->regs[i] = DATA_BASE + ((r >> 8) & 0xffff8); break;
		case 3: s->regs[i] = (uint64_t)-(int64_t)(r >> 60); break; /* -1, -2.. */
		default: s->regs[i] = rng_next(rng); break;
		}
	}
	s->regs[4] = STACK_BASE + STACK_SIZE / 2 - (rng_next(rng) & 0x3f8);
	/* IF set, DF clear (the kernel's invariant), arithmetic flags random. */
	s->regs[16] = 0x202 | (rng_next(rng) & 0x8d5);
}

static void fill_page(uint64_t seed, uint64_t page, uint8_t *buf)
{
	uint64_t s = seed ^ page;

	for (size_t i = 0; i < 4096; i += 8) {
		uint64_t v = rng_next(&s);

		/* Some words look like pointers into data, as kernel memory does. */
		if ((v & 7) == 0)
			v = DATA_BASE + ((v >> 8) & 0xfff8);
		memcpy(buf + i, &v, 8);
	}
}

static bool on_unmapped(uc_engine *uc, uc_mem_type type, uint64_t addr,
			int size, int64_t value, void *user)
{
	struct emu *m = user;
	uint64_t page = addr & ~0xfffull;
	uint8_t buf[4096];

	(void)size;
	(void)value;
	if (type == UC_MEM_FETCH_UNMAPPED || m->ndata >= EMU_MAX_DATA_PAGES)
		return false;
	/* Canonical kernel-half addresses only: anything else faults, alike in
	 * both runs. */
	if ((int64_t)addr >= 0 || addr < 0xffff800000000000ull)
		return false;
	if (uc_mem_map(uc, page, 4096, UC_PROT_READ | UC_PROT_WRITE) != UC_ERR_OK)
		return false;
	fill_page(m->seed, page, buf);
	uc_mem_write(uc, page, buf, sizeof(buf));
	m->data_pages[m->ndata++] = page;
	/* An access may straddle two pages: the retry maps the next one. */
	return true;
}

static bool is_allowed(const struct emu *m, uint64_t a)
{
	for (size_t i = 0; i < m->nallowed; i++)
		if (a >= m->allowed[i].lo && a < m->allowed[i].hi)
			return true;
	return false;
}

static void stack_pattern(uint64_t seed, uint8_t *buf)
{
	fill_page(seed, STACK_BASE, buf); /* 4 KiB pattern, repeated */
}

static void write_stack(struct emu *m)
{
	uint8_t pat[4096];

	stack_pattern(m->seed, pat);
	for (uint64_t a = STACK_BASE; a < STACK_BASE + STACK_SIZE; a += sizeof(pat))
		uc_mem_write(m->uc, a, pat, sizeof(pat));
}

static bool is_nondeterministic(uc_engine *uc, uint64_t addr)
{
	uint8_t b[4];
	unsigned i = 0;

	if (uc_mem_read(uc, addr, b, sizeof(b)))
		return false;
	if ((b[0] & 0xf0) == 0x40)
		i = 1; /* REX */
	if (b[i] != 0x0f)
		return false;
	return b[i + 1] == 0x31 ||                              /* rdtsc */
	       b[i + 1] == 0x22 ||  /* mov crN: the address space changes */
	       (b[i + 1] == 0x01 && b[i + 2] == 0xf9) ||        /* rdtscp */
	       (b[i + 1] == 0xc7 && (b[i + 2] & 0xf0) == 0xf0); /* rdrand, rdseed */
}

/* rdtsc at addr: edx:eax from m's clock, which ticks on every read. */
static bool fake_rdtsc(uc_engine *uc, struct emu *m, uint64_t addr)
{
	uint8_t b[2];
	uint64_t lo, hi, next = addr + 2;

	if (uc_mem_read(uc, addr, b, sizeof(b)) || b[0] != 0x0f || b[1] != 0x31)
		return false;
	m->tsc += 0x1234;
	lo = (uint32_t)m->tsc;
	hi = m->tsc >> 32;
	uc_reg_write(uc, UC_X86_REG_RAX, &lo);
	uc_reg_write(uc, UC_X86_REG_RDX, &hi);
	uc_reg_write(uc, UC_X86_REG_RIP, &next);
	return true;
}

/* report_bug() with state s; a BUG then dies, a WARN goes on at resume. */
static void bug_report(uc_engine *uc, struct emu *m, const struct emu_state *s,
		       uint64_t resume)
{
	struct emu_result *r = m->res;

	if (!r->bug_reports++)
		r->bug_state = *s;
	if (m->bug_warn) {
		if (resume)
			uc_reg_write(uc, UC_X86_REG_RIP, &resume);
		return;
	}
	r->died = true;
	r->end = *s;
	r->exit_addr = m->bug_site;
	uc_emu_stop(uc);
}

static void on_code(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct emu *m = user;
	struct emu_result *r = m->res;

	if (m->flag_defs && size <= 15) {
		uint8_t b[15];
		uint16_t written, undef;

		if (!uc_mem_read(uc, addr, b, size)) {
			flag_defs_of(m->flag_defs, addr, b, size, &written, &undef);
			r->undef_flags = (uint16_t)((r->undef_flags & ~written) | undef);
		}
	}
	if (addr == m->bug_site && m->bug_site) {
		uint8_t ud2[2];
		struct emu_state s;

		/* Only where the ud2 itself runs (the original). */
		if (!uc_mem_read(uc, addr, ud2, 2) && ud2[0] == 0x0f && ud2[1] == 0x0b) {
			for (int i = 0; i < EMU_NREGS; i++)
				uc_reg_read(uc, uc_regs[i], &s.regs[i]);
			bug_report(uc, m, &s, addr + 2);
			return;
		}
	}
	if (addr == STUB_ADDR) {
		/* The instrument: record pt_regs, then clobber what a C function
		 * may clobber (caller-saved registers and flags). */
		uint64_t rsi, rdi, junk = 0xdeadbeefcafef00dull;
		static const int clobber[] = {
			UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX,
			UC_X86_REG_RSI, UC_X86_REG_RDI, UC_X86_REG_R8,
			UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
		};
		uint64_t fl = 0x246 ^ 0x8d5; /* every arithmetic flag flipped */

		uc_reg_read(uc, UC_X86_REG_RSI, &rsi);
		uc_reg_read(uc, UC_X86_REG_RDI, &rdi);
		/* The first call sees the state at entry to the site; a loop
		 * back to it calls again with later state. */
		if (!r->instrument_calls++) {
			if (rsi && uc_mem_read(uc, rsi, r->seen, sizeof(r->seen)) == UC_ERR_OK)
				r->instrumented = true;
			r->seen_ctx = rdi;
			r->seen_rsi = rsi;
		}
		for (size_t i = 0; i < sizeof(clobber) / sizeof(clobber[0]); i++)
			uc_reg_write(uc, clobber[i], &junk);
		uc_reg_write(uc, UC_X86_REG_EFLAGS, &fl);
		if (m->bug_site) {
			/* gilk.ko replays the ud2 with the pt_regs it was given;
			 * a WARN returns into the trampoline. */
			uint64_t pt[PT_NSLOTS];
			struct emu_state s;

			if (uc_mem_read(uc, rsi, pt, sizeof(pt)) == UC_ERR_OK) {
				for (int i = 0; i < 16; i++)
					s.regs[i] = pt[pt_slot[i]];
				s.regs[16] = pt[PT_FLAGS];
				bug_report(uc, m, &s, 0);
			}
		}
		return;
	}
	if (addr == m->count_site && m->count_site)
		r->site_hits++;
	if (addr == m->tramp_entry) {
		/* The trampoline's own stack use must not show: keep what lies
		 * below rsp now, put it back once the trampoline is done. */
		uc_reg_read(uc, UC_X86_REG_RSP, &m->snap_sp);
		uc_mem_read(uc, m->snap_sp - sizeof(m->snap), m->snap, sizeof(m->snap));
	}
	if (addr == m->reloc_entry && m->snap_sp) {
		uc_mem_write(uc, m->snap_sp - sizeof(m->snap), m->snap, sizeof(m->snap));
		m->snap_sp = 0;
	}
	/* the tsc template's own rdtsc reads the run's own clock, the same
	 * in every run: what depends on it (the flags of a mutant that
	 * claims them dead) is then the same on every machine */
	if (addr >= m->tramp_entry && addr < m->reloc_entry) {
		if (fake_rdtsc(uc, m, addr))
			return;
	} else if (is_nondeterministic(uc, addr)) {
		/* rdtsc and friends differ between any two runs, and after a
		 * write to cr0, cr3 or cr4 memory is not what either run
		 * mapped: stop there, which both runs do at the same
		 * instruction. */
		r->exit_addr = addr;
		uc_emu_stop(uc);
		return;
	}
	if (!is_allowed(m, addr)) {
		r->exit_addr = addr;
		uc_emu_stop(uc);
		return;
	}
	if (++m->steps > m->max_steps) {
		r->step_limit = true;
		r->exit_addr = addr;
		uc_emu_stop(uc);
	}
}

static void on_intr(uc_engine *uc, uint32_t intno, void *user)
{
	struct emu *m = user;
	uint64_t rip;

	uc_reg_read(uc, UC_X86_REG_RIP, &rip);
	m->res->err = UC_ERR_EXCEPTION;
	m->res->exit_addr = rip ^ ((uint64_t)intno << 56);
	uc_emu_stop(uc);
}

/* head 0 and the first n slots never written (begin = end = ~0), as
 * gilk.ko hands a ring out */
static int tsc_ring_clear(struct emu *m, uint64_t n)
{
	static const uint64_t empty[4] = { ~0ull, 0, 0, ~0ull };
	uint64_t zero = 0;

	if (n > TSC_RING_SLOTS)
		n = TSC_RING_SLOTS;
	for (uint64_t i = 0; i < n; i++)
		if (uc_mem_write(m->uc, TSC_RING_ADDR + TSC_RING_SLOT0 +
				 (i * sizeof(struct gilk_tsc_slot)), empty, sizeof(empty)))
			return -1;
	return uc_mem_write(m->uc, TSC_RING_ADDR, &zero, sizeof(zero)) ? -1 : 0;
}

int emu_open(struct emu *m)
{
	uc_hook h;
	uint8_t stub = 0xc3; /* ret */

	memset(m, 0, sizeof(*m));
	if (uc_open(UC_ARCH_X86, UC_MODE_64, &m->uc) != UC_ERR_OK)
		return -1;
	if (uc_mem_map(m->uc, STACK_BASE, STACK_SIZE, UC_PROT_READ | UC_PROT_WRITE) ||
	    uc_mem_map(m->uc, TRAMP_AREA, TRAMP_AREA_SIZE, UC_PROT_ALL) ||
	    uc_mem_map(m->uc, GS_BASE + COUNTER_NEAR, 4096, UC_PROT_READ | UC_PROT_WRITE) ||
	    uc_mem_map(m->uc, TSC_RING_ADDR, TSC_RING_SIZE, UC_PROT_READ | UC_PROT_WRITE))
		return -1;
	if (tsc_ring_clear(m, TSC_RING_SLOTS))
		return -1;
	uint32_t cpu = CPU_NUMBER, pc = PREEMPT_COUNT, pid = TASK_PID;
	uint64_t task = FAKE_TASK;
	if (uc_mem_write(m->uc, GS_BASE + CPU_NUMBER_OFF, &cpu, sizeof(cpu)) ||
	    uc_mem_write(m->uc, GS_BASE + PREEMPT_COUNT_OFF, &pc, sizeof(pc)) ||
	    uc_mem_write(m->uc, GS_BASE + CURRENT_TASK_OFF, &task, sizeof(task)) ||
	    uc_mem_write(m->uc, FAKE_TASK + TASK_PID_OFF, &pid, sizeof(pid)))
		return -1;
	uint32_t tgid = TASK_TGID;
	char comm[16] = TASK_COMM, comm8[16] = TASK_COMM8, comm4[16] = TASK_COMM4;
	if (uc_mem_write(m->uc, FAKE_TASK + TASK_TGID_OFF, &tgid, sizeof(tgid)) ||
	    uc_mem_write(m->uc, FAKE_TASK + TASK_COMM_OFF, comm, sizeof(comm)) ||
	    uc_mem_write(m->uc, FAKE_TASK + TASK_COMM8_OFF, comm8, sizeof(comm8)) ||
	    uc_mem_write(m->uc, FAKE_TASK + TASK_COMM4_OFF, comm4, sizeof(comm4)))
		return -1;
	uc_mem_write(m->uc, STUB_ADDR, &stub, 1);
	uc_hook_add(m->uc, &h, UC_HOOK_CODE, (void *)on_code, m, 1, 0);
	uc_hook_add(m->uc, &h, UC_HOOK_MEM_UNMAPPED, (void *)on_unmapped, m, 1, 0);
	uc_hook_add(m->uc, &h, UC_HOOK_INTR, (void *)on_intr, m, 1, 0);
	m->max_steps = 4000;
	/* A run that ends in an exception leaves the CPU mid-delivery; every
	 * run starts from this snapshot instead. */
	if (uc_context_alloc(m->uc, &m->clean) || uc_context_save(m->uc, m->clean))
		return -1;
	return 0;
}

void emu_close(struct emu *m)
{
	if (m->clean)
		uc_context_free(m->clean);
	m->clean = NULL;
	if (m->uc)
		uc_close(m->uc);
	m->uc = NULL;
}

int emu_map_code(struct emu *m, uint64_t lo, uint64_t hi,
		 const uint8_t *(*bytes)(void *ctx, uint64_t addr), void *ctx)
{
	uint64_t plo = lo & ~0xfffull, phi = (hi + 0xfff) & ~0xfffull;
	uint8_t page[4096];

	/* the old code's translations go while it is still mapped */
	if (m->code_hi) {
		uc_ctl_remove_cache(m->uc, m->code_lo, m->code_hi);
		uc_mem_unmap(m->uc, m->code_lo, m->code_hi - m->code_lo);
	}
	m->code_lo = plo;
	m->code_hi = phi;
	if (uc_mem_map(m->uc, plo, phi - plo, UC_PROT_ALL) != UC_ERR_OK)
		return -1;
	for (uint64_t a = plo; a < phi; a += 4096) {
		for (size_t i = 0; i < 4096; i++) {
			const uint8_t *b = bytes(ctx, a + i);

			page[i] = b ? *b : 0;
		}
		uc_mem_write(m->uc, a, page, sizeof(page));
	}
	return 0;
}

/*
 * Code written over code Unicorn may have translated: its translations go.
 * Unicorn 2.0.1 crashed now and then in that removal, in
 * page_collection_lock() under tb_invalidate_phys_range(), late in a long
 * run on one emulator (the generated sequences; CI's crash, and here about
 * one run in three), walking a page's list of translations into one that
 * is no more: most likely the translation buffer fills, and what Unicorn does then
 * leaves such lists behind (an explicit flush is the workaround Unicorn's
 * users report for the same crash). The buffer is flushed outright
 * every WRITES_PER_FLUSH writes, long before it fills.
 */
#define WRITES_PER_FLUSH 2048

void emu_write(struct emu *m, uint64_t addr, const void *p, size_t n)
{
	uc_mem_write(m->uc, addr, p, n);
	if (++m->writes % WRITES_PER_FLUSH == 0)
		uc_ctl_flush_tlb(m->uc);	/* UC_CTL_TB_FLUSH: translations, not the TLB */
	else
		uc_ctl_remove_cache(m->uc, addr, addr + n);
}

void emu_allow(struct emu *m, uint64_t lo, uint64_t hi)
{
	if (m->nallowed < sizeof(m->allowed) / sizeof(m->allowed[0]))
		m->allowed[m->nallowed++] = (struct range64){ lo, hi };
}

void emu_reset_allowed(struct emu *m)
{
	m->nallowed = 0;
}

void emu_run(struct emu *m, uint64_t pc, const struct emu_state *s,
	     uint64_t seed, struct emu_result *r)
{
	uint64_t gs = GS_BASE, zero = 0;

	memset(r, 0, sizeof(*r));
	m->res = r;
	m->steps = 0;
	for (size_t i = 0; i < m->ndata; i++)
		uc_mem_unmap(m->uc, m->data_pages[i], 4096);
	m->ndata = 0;
	m->seed = seed;
	/* somewhere in the 33-bit range, so edx is sometimes 0, sometimes not */
	m->tsc = 0xfffff000ull + (seed & 0xfffff);
	m->rsp0 = s->regs[4];
	m->snap_sp = 0;
	write_stack(m);
	uc_context_restore(m->uc, m->clean);
	for (int i = 0; i < EMU_NREGS; i++)
		uc_reg_write(m->uc, uc_regs[i], &s->regs[i]);
	uc_reg_write(m->uc, UC_X86_REG_GS_BASE, &gs);
	if (m->counter_addr)
		uc_mem_write(m->uc, m->counter_addr, &zero, sizeof(zero));
	if (m->filtered_addr)
		uc_mem_write(m->uc, m->filtered_addr, &zero, sizeof(zero));
	r->err = uc_emu_start(m->uc, pc, 0, 0, 0);
	if (m->counter_addr)
		uc_mem_read(m->uc, m->counter_addr, &r->counted, sizeof(r->counted));
	if (m->filtered_addr)
		uc_mem_read(m->uc, m->filtered_addr, &r->filtered, sizeof(r->filtered));
	if (m->tsc_ring) {
		uc_mem_read(m->uc, m->tsc_ring, &r->tsc_head, sizeof(r->tsc_head));
		uc_mem_read(m->uc, m->tsc_ring + TSC_RING_SLOT0, r->tsc_slots,
			    sizeof(r->tsc_slots));
		tsc_ring_clear(m, r->tsc_head);
	}
	if (r->err == UC_ERR_OK && !r->exit_addr && !r->step_limit) {
		/* Stopped by hlt or similar. */
		uc_reg_read(m->uc, UC_X86_REG_RIP, &r->exit_addr);
	}
	if (r->err != UC_ERR_OK && r->err != UC_ERR_EXCEPTION)
		uc_reg_read(m->uc, UC_X86_REG_RIP, &r->exit_addr);
	for (int i = 0; i < EMU_NREGS && !r->died; i++)
		uc_reg_read(m->uc, uc_regs[i], &r->end.regs[i]);
	m->res = NULL;
}

static bool same_pages(struct emu *a, struct emu *b, uint64_t lo, uint64_t hi,
		       char *why, size_t len)
{
	uint8_t x[4096], y[4096];

	for (uint64_t p = lo; p < hi; p += 4096) {
		size_t n = hi - p < 4096 ? (size_t)(hi - p) : 4096;

		if (uc_mem_read(a->uc, p, x, n) || uc_mem_read(b->uc, p, y, n)) {
			snprintf(why, len, "page 0x%" PRIx64 " mapped in one run only", p);
			return false;
		}
		for (size_t i = 0; i < n; i++)
			if (x[i] != y[i]) {
				snprintf(why, len, "memory at 0x%" PRIx64 ": %02x vs %02x",
					 p + i, x[i], y[i]);
				return false;
			}
	}
	return true;
}

/* Registers and the flags code can observe; what names the first that
 * differs. */
static bool same_state(const struct emu_state *x, const struct emu_state *y,
		       uint64_t flags_mask, const char *what, char *why, size_t len)
{
	for (int i = 0; i < EMU_NREGS; i++) {
		uint64_t mask = i == 16 ? flags_mask : ~0ull;

		if ((x->regs[i] & mask) != (y->regs[i] & mask)) {
			snprintf(why, len, "%s%s: original 0x%" PRIx64 ", patched 0x%" PRIx64,
				 what, reg_names[i], x->regs[i] & mask, y->regs[i] & mask);
			return false;
		}
	}
	return true;
}

bool emu_same(struct emu *a, const struct emu_result *ra, struct emu *b,
	      const struct emu_result *rb, char *why, size_t len)
{
	uint64_t sp;

	if (ra->bug_reports != rb->bug_reports || ra->died != rb->died) {
		snprintf(why, len, "BUG/WARN reports: original %u%s, patched %u%s",
			 ra->bug_reports, ra->died ? " (died)" : "",
			 rb->bug_reports, rb->died ? " (died)" : "");
		return false;
	}
	if (ra->bug_reports &&
	    !same_state(&ra->bug_state, &rb->bug_state, FLAGS_MASK, "BUG/WARN report ", why, len))
		return false;
	if (ra->err != rb->err || ra->exit_addr != rb->exit_addr) {
		snprintf(why, len, "exit: original at 0x%" PRIx64 " (%s), patched at 0x%" PRIx64 " (%s)",
			 ra->exit_addr, uc_strerror(ra->err), rb->exit_addr, uc_strerror(rb->err));
		return false;
	}
	/* What the original's last writers left undefined may differ. */
	if (!same_state(&ra->end, &rb->end, FLAGS_MASK & ~(uint64_t)ra->undef_flags, "", why, len))
		return false;
	if (a->ndata != b->ndata) {
		snprintf(why, len, "original touched %zu data pages, patched %zu", a->ndata, b->ndata);
		return false;
	}
	for (size_t i = 0; i < a->ndata; i++)
		if (!same_pages(a, b, a->data_pages[i], a->data_pages[i] + 4096, why, len))
			return false;
	/* The stack from the lower of the two stack pointers that matter. */
	sp = ra->end.regs[4] < a->rsp0 ? ra->end.regs[4] : a->rsp0;
	if (sp >= STACK_BASE && sp < STACK_BASE + STACK_SIZE &&
	    !same_pages(a, b, sp, STACK_BASE + STACK_SIZE, why, len))
		return false;
	return true;
}

bool emu_scratch_ok(const struct emu_result *r, char *why, size_t len)
{
	if (!r->instrument_calls || r->seen_ctx != INSTR_CTX || r->seen_rsi) {
		snprintf(why, len, "instrument calls %u, ctx 0x%" PRIx64 ", regs 0x%" PRIx64 " (want NULL)",
			 r->instrument_calls, r->seen_ctx, r->seen_rsi);
		return false;
	}
	return true;
}

bool emu_tsc_ok(const struct emu_result *r, unsigned site_hits, char *why, size_t len)
{
	if (r->instrument_calls || r->tsc_head != site_hits) {
		snprintf(why, len, "ring head %" PRIu64 " after %u passes through the site, %u calls",
			 r->tsc_head, site_hits, r->instrument_calls);
		return false;
	}
	for (uint64_t i = 0; i < r->tsc_head && i < TSC_SLOTS_KEPT; i++) {
		const uint64_t *s = r->tsc_slots[i];

		if (s[0] != i || s[2] != TSC_WHO || s[3] != (i ^ s[1] ^ TSC_WHO) || !s[1] ||
		    (i && s[1] < r->tsc_slots[i - 1][1])) {
			snprintf(why, len, "ring slot %" PRIu64 ": begin 0x%" PRIx64 ", tsc 0x%" PRIx64
				 ", who 0x%" PRIx64 ", end 0x%" PRIx64, i, s[0], s[1], s[2], s[3]);
			return false;
		}
	}
	return true;
}

bool emu_instrument_ok(const struct emu_state *s, uint64_t site,
		       const struct emu_result *r, char *why, size_t len)
{
	if (!r->instrumented) {
		snprintf(why, len, "the instrument never ran");
		return false;
	}
	if (r->seen_ctx != INSTR_CTX) {
		snprintf(why, len, "instrument got ctx 0x%" PRIx64, r->seen_ctx);
		return false;
	}
	for (int i = 0; i < 16; i++)
		if (r->seen[pt_slot[i]] != s->regs[i]) {
			snprintf(why, len, "pt_regs %s: 0x%" PRIx64 ", site had 0x%" PRIx64,
				 reg_names[i], r->seen[pt_slot[i]], s->regs[i]);
			return false;
		}
	if ((r->seen[PT_FLAGS] & FLAGS_MASK) != (s->regs[16] & FLAGS_MASK)) {
		snprintf(why, len, "pt_regs flags 0x%" PRIx64 ", site had 0x%" PRIx64,
			 r->seen[PT_FLAGS], s->regs[16]);
		return false;
	}
	if (r->seen[PT_IP] != site) {
		snprintf(why, len, "pt_regs ip 0x%" PRIx64 ", site 0x%" PRIx64, r->seen[PT_IP], site);
		return false;
	}
	return true;
}
