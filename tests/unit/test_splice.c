/* Unit tests: every refusal reason and every mode of the splice planner
 * (core/splice.c, core/splice_x86_64.c), on hand-assembled functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cfg.h"
#include "splice.h"
#include "template.h"
#include "textfacts.h"
#include "unit.h"

#define F 0xffffffff81001000ull
#define TRAMP 0xffffffffc0001000ull
#define EVICT 0xffffffffc0002000ull

/* A splice's parameters as live splicing gets them: gilk.ko's template
 * kind, with a reservation's handler and per-CPU counter (the filtered
 * counter right after it). */
static struct splice_params params_for(struct template *t, enum gilk_tramp_kind kind,
				       bool clac, uint64_t counter)
{
	const struct gilk_reserve r = {
		.tramp = TRAMP, .evict_tramp = EVICT, .handler = 0xffffffffc0000000ull,
		.counter = counter, .filtered = counter + 8, .cpu_number = 0x1000,
		.preempt_count = 0x1008, .current_task = 0x1010, .task_pid = 0x500,
		.tsc_ring = 0xffffffffc0100000ull,
	};

	assert_true(template_init(t, kind, &r, clac, NULL));
	return (struct splice_params){ .tramp = r.tramp, .evict_tramp = r.evict_tramp,
				       .header = &t->header };
}

struct fixture {
	struct decoder *d;
	struct cfg g;
	const struct cfg *view[1];
	struct textfacts *tf;
	struct splice_env env;
	uint8_t code[512];
};

static struct fixture *fn(const uint8_t *b, size_t n, const uint64_t *ext, size_t next)
{
	static struct fixture fx;
	struct gerr e;

	if (fx.d) {
		cfg_free(&fx.g);
		textfacts_free(fx.tf);
	} else {
		assert_int_equal(decoder_open(&fx.d, &e), 0);
	}
	memset(&fx.g, 0, sizeof(fx.g));
	memcpy(fx.code, b, n);
	assert_int_equal(cfg_build(&fx.g, fx.d, fx.code, F, F + n, ext, next, &e), 0);
	fx.view[0] = &fx.g;
	fx.tf = textfacts_new();
	memset(&fx.env, 0, sizeof(fx.env));
	fx.env.cfgs = fx.view;
	fx.env.ncfg = 1;
	fx.env.facts = fx.tf;
	fx.env.tramp_hint = 0xffffffffc0000000ull;
	return &fx;
}

static void reserve(struct fixture *fx, uint64_t lo, uint64_t hi, enum res_kind k)
{
	textfacts_add_range(fx->tf, lo, hi, k);
	textfacts_finish(fx->tf);
}

static enum splice_reason refusal(struct fixture *fx, uint64_t site)
{
	struct splice_plan p;

	assert_int_equal(splice_plan(&fx->env, site, &p), -1);
	return p.reason;
}

/* mov eax, 1 ; mov ecx, 2 ; ret ; int3 x 3 */
static const uint8_t simple[] = {
	0xb8, 1, 0, 0, 0, 0xb9, 2, 0, 0, 0, 0xc3, 0xcc, 0xcc, 0xcc,
};

static void plain_jmp(void **st)
{
	struct fixture *fx = fn(simple, sizeof(simple), NULL, 0);
	struct splice_plan p;
	struct splice_code c;
	struct template t;
	struct splice_params sp = params_for(&t, GILK_TRAMP_FULL, false, 0);
	enum splice_reason why;

	(void)st;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_int_equal(p.mode, SPLICE_JMP);
	assert_int_equal(p.region.len, 5);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_int_equal(c.npatch, 1);
	assert_int_equal(c.patches[0].bytes[0], 0xe9);
	assert_memory_equal(c.patches[0].orig, simple, 5);
	/* no clac unless asked for */
	assert_null(memmem(c.tramp, c.reloc_off, "\x0f\x01\xca", 3));
	sp = params_for(&t, GILK_TRAMP_FULL, true, 0);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_non_null(memmem(c.tramp, c.reloc_off, "\x0f\x01\xca", 3));
}

static void region_absorbs_padding_after_ret(void **st)
{
	/* xor eax,eax ; ret ; int3 x 4: 3 live bytes, 2 dead ones overwritten */
	static const uint8_t b[] = { 0x31, 0xc0, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc };
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;

	(void)st;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_int_equal(p.mode, SPLICE_JMP);
	assert_int_equal(p.region.len, 5);
	assert_int_equal(p.region.live, 3);
	assert_memory_equal(p.region.orig, b, 5);
}

static void call_ends_region(void **st)
{
	/* xor eax,eax ; call rax ; (target) mov eax,1 ; ret */
	static const uint8_t b[] = { 0x31, 0xc0, 0xff, 0xd0, 0x90, 0x90, 0x90, 0x90, 0xc3 };
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;

	(void)st;
	fx->env.flags = SPLICE_NO_BOUNCE | SPLICE_ALLOW_TRAP;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	/* The call cannot be followed by more of the region: no 5-byte jmp
	 * fits, so (bounces off) trap mode with the first instruction only. */
	assert_int_equal(p.mode, SPLICE_TRAP);
	assert_int_equal(p.limit, SR_TOO_SHORT);
	assert_true(p.reason_addr == F + 4);
}

static void bounce_via_padding(void **st)
{
	/* 0: xor eax,eax  2: jne 0  4: ret  5: int3 x 8 -- block at 0 is 4
	 * bytes before ret... make the target at 2 to keep block 0 short. */
	static const uint8_t b[] = {
		0x31, 0xc0,             /* 0 xor eax,eax */
		0x75, 0xfc,             /* 2 jne 0 (target 0) */
		0x31, 0xc9,             /* 4 xor ecx,ecx */
		0x74, 0xfc,             /* 6 je 4 (target 4) */
		0xc3,                   /* 8 ret */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	};
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;
	struct splice_code c;
	struct template t;
	struct splice_params sp = params_for(&t, GILK_TRAMP_FULL, false, 0);
	enum splice_reason why;

	(void)st;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_int_equal(p.mode, SPLICE_BOUNCE);
	assert_int_equal(p.bounce_kind, BOUNCE_PADDING);
	assert_int_equal(p.region.len, 2);
	assert_true(p.slot >= F + 9 && p.slot + 5 <= F + sizeof(b));
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_int_equal(c.npatch, 2);
	/* the slot first, the site last */
	assert_true(c.patches[0].addr == p.slot);
	assert_int_equal(c.patches[0].bytes[0], 0xe9);
	assert_true(c.patches[1].addr == F);
	assert_int_equal(c.patches[1].bytes[0], 0xeb);
	assert_int_equal(c.patches[1].bytes[1], (uint8_t)(p.slot - (F + 2)));
}

static void bounce_via_eviction(void **st)
{
	/* A 2-byte block at 0 (2 is a branch target), no padding anywhere;
	 * a run of plain bytes from 2 that can move out. */
	static const uint8_t b[] = {
		0x31, 0xc0,                         /* 0 xor eax,eax */
		0x31, 0xc9,                         /* 2 xor ecx,ecx (target) */
		0x75, 0xfc,                         /* 4 jne 2 */
		0xb8, 1, 0, 0, 0,                   /* 6 mov eax,1 */
		0xb9, 2, 0, 0, 0,                   /* 11 mov ecx,2 */
		0xba, 3, 0, 0, 0,                   /* 16 mov edx,3 */
		0xc3,                               /* 21 ret */
	};
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;
	struct splice_code c;
	struct template t;
	struct splice_params sp = params_for(&t, GILK_TRAMP_FULL, false, 0);
	enum splice_reason why;

	(void)st;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_int_equal(p.mode, SPLICE_BOUNCE);
	assert_int_equal(p.bounce_kind, BOUNCE_EVICT);
	assert_int_equal(p.region.len, 2);
	assert_true(p.evict.addr == F + 2);
	assert_int_equal(p.evict.len, 14);
	assert_true(p.slot == F + 7);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_true(c.evict_tramp_len > 0);
	assert_true(c.patches[0].addr == F + 2);
	assert_int_equal(c.patches[0].bytes[0], 0xe9);
	assert_int_equal(c.patches[0].bytes[5], 0xe9);
	assert_true(c.patches[1].addr == F);
	fx->env.flags = SPLICE_NO_EVICT;
	assert_int_equal(refusal(fx, F), SR_NO_BOUNCE_SLOT);
}

static void bounce_via_existing_tail(void **st)
{
	static const uint8_t b[] = { 0x31, 0xc0, 0x31, 0xc9, 0x75, 0xfc, 0xc3 };
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct range tail = { F + 0x40, F + 0x48 }; /* outside: another splice's */
	struct splice_plan p;

	(void)st;
	fx->env.flags = SPLICE_NO_EVICT;
	fx->env.tails = &tail;
	fx->env.ntails = 1;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_int_equal(p.bounce_kind, BOUNCE_TAIL);
	assert_true(p.slot == F + 0x40);
}

static uint64_t jmp32_target(const uint8_t *b, uint64_t at)
{
	int32_t d;

	memcpy(&d, b + 1, 4);
	return at + 5 + (uint64_t)(int64_t)d;
}

static void bug_and_warn_sites_replayed(void **st)
{
	/* test; jne warn; xor; ret; warn: ud2; jmp back; int3 x 8 */
	static const uint8_t warn[] = {
		0x85, 0xc0, 0x75, 0x03, 0x31, 0xc0, 0xc3,
		0x0f, 0x0b,             /* 7 WARN */
		0xeb, 0xf9,             /* 9 jmp 4 (where the WARN resumes) */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	};
	/* test; jne bug; ret; bug: ud2; int3 x 8 */
	static const uint8_t bug[] = {
		0x85, 0xc0, 0x75, 0x01, 0xc3,
		0x0f, 0x0b,             /* 5 BUG */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	};
	struct template t;
	struct splice_params sp = params_for(&t, GILK_TRAMP_FULL, false, 0);
	struct fixture *fx;
	struct splice_plan p;
	struct splice_code c;
	enum splice_reason why;
	uint64_t ext[] = { F + 9 };

	(void)st;
	/* A WARN: 2 bytes before the place it resumes, so a bounce; the
	 * trampoline holds no ud2, only the jump to where a WARN resumes. */
	fx = fn(warn, sizeof(warn), ext, 1);
	textfacts_add_bug(fx->tf, F + 7, 2, true);
	textfacts_finish(fx->tf);
	assert_int_equal(splice_plan(&fx->env, F + 7, &p), 0);
	assert_int_equal(p.bug, BUG_WARN);
	assert_int_equal(p.mode, SPLICE_BOUNCE);
	assert_int_equal(p.region.len, 2);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_int_equal(c.tramp_len - c.reloc_off, 5);
	assert_int_equal(c.tramp[c.reloc_off], 0xe9);
	assert_true(jmp32_target(c.tramp + c.reloc_off, sp.tramp + c.reloc_off) == F + 9);

	/* A BUG: nothing follows it, so the padding after it completes a
	 * 5-byte jmp. */
	fx = fn(bug, sizeof(bug), NULL, 0);
	textfacts_add_bug(fx->tf, F + 5, 2, false);
	textfacts_finish(fx->tf);
	assert_int_equal(splice_plan(&fx->env, F + 5, &p), 0);
	assert_int_equal(p.bug, BUG_BUG);
	assert_int_equal(p.mode, SPLICE_JMP);
	assert_int_equal(p.region.len, 5);
	assert_int_equal(p.region.live, 2);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_null(memmem(c.tramp + c.reloc_off, c.tramp_len - c.reloc_off, "\x0f\x0b", 2));

	/* A ud2 the bug table does not list is never replayed. */
	fx = fn(bug, sizeof(bug), NULL, 0);
	assert_int_equal(refusal(fx, F + 5), SR_UD2);
}

static void bug_site_only_at_region_start(void **st)
{
	/* test; jne bug; ret; bug: xor eax, eax; ud2; int3 x 8 */
	static const uint8_t b[] = {
		0x85, 0xc0, 0x75, 0x01, 0xc3,
		0x31, 0xc0,             /* 5 */
		0x0f, 0x0b,             /* 7 BUG */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	};
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;

	(void)st;
	textfacts_add_bug(fx->tf, F + 7, 2, false);
	textfacts_finish(fx->tf);
	/* The ud2 stays where the trap handler looks for it: the region
	 * stops before it and bounces. */
	assert_int_equal(splice_plan(&fx->env, F + 5, &p), 0);
	assert_int_equal(p.bug, BUG_NONE);
	assert_int_equal(p.mode, SPLICE_BOUNCE);
	assert_int_equal(p.region.len, 2);
	assert_int_equal(p.limit, SR_UD2);
	/* Blacklisted code stays refused, ud2 or not. */
	reserve(fx, F + 7, F + 9, RES_BLACKLIST);
	assert_int_equal(refusal(fx, F + 7), SR_BLACKLIST);
}

static void trap_mode_only_when_asked(void **st)
{
	/* push rbp (1 byte), then a branch target: not even a jmp rel8 fits */
	static const uint8_t b[] = { 0x55, 0x5d, 0x75, 0xfd, 0xc3 };
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;

	(void)st;
	assert_int_equal(refusal(fx, F), SR_TOO_SHORT);
	fx->env.flags = SPLICE_ALLOW_TRAP;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_int_equal(p.mode, SPLICE_TRAP);
	assert_int_equal(p.region.len, 1);
}

static void refuse_not_text_boundary_padding(void **st)
{
	struct fixture *fx = fn(simple, sizeof(simple), NULL, 0);

	(void)st;
	assert_int_equal(refusal(fx, F - 1), SR_NOT_TEXT);
	assert_int_equal(refusal(fx, F + 1), SR_NOT_BOUNDARY);
	assert_int_equal(refusal(fx, F + 12), SR_PADDING);
}

static void refuse_undecodable_misaligned_table(void **st)
{
	static const uint8_t bad[] = { 0x31, 0xc0, 0x06, 0x06, 0x06, 0x06 };
	/* jmp to F+1, inside the 5-byte mov at F */
	static const uint8_t mis[] = { 0xb8, 1, 0, 0, 0, 0xeb, 0xfa, 0xc3 };
	/* jmp [rax*8 + 0x1000] */
	static const uint8_t tbl[] = { 0xb8, 1, 0, 0, 0, 0xff, 0x24, 0xc5, 0, 0x10, 0, 0 };
	struct fixture *fx;

	(void)st;
	/* bytes no x86-64 decoder takes (push es, gone in 64-bit mode)
	 * before a jmp back to F+3: a site before the bytes that do not
	 * decode is refused too, as the branches past them are unknown */
	static const uint8_t tail[] = {
		0x48, 0x89, 0xc3, 0x48, 0x89, 0xd9, 0xc3,	/* mov; mov (F+3); ret */
		0x06, 0x06, 0x06, 0xeb, 0xf7,			/* (push es) x3; jmp F+3 */
	};

	fx = fn(bad, sizeof(bad), NULL, 0);
	assert_int_equal(refusal(fx, F + 2), SR_UNDECODABLE);
	fx = fn(tail, sizeof(tail), NULL, 0);
	assert_int_equal(refusal(fx, F), SR_UNDECODABLE);
	fx = fn(mis, sizeof(mis), NULL, 0);
	assert_int_equal(refusal(fx, F), SR_MISALIGNED_TARGET);
	fx = fn(tbl, sizeof(tbl), NULL, 0);
	assert_int_equal(refusal(fx, F), SR_JUMP_TABLE);
}

static void refuse_int3_ud2_unrelocatable(void **st)
{
	/* mov; jne to int3 (a target, so a block); int3; ud2 block; call [rsp+8] */
	static const uint8_t b[] = {
		0xb8, 1, 0, 0, 0,       /* 0 */
		0x75, 0x01,             /* 5 jne 8 */
		0xc3,                   /* 7 ret */
		0xcc,                   /* 8 int3 (targeted) */
		0x0f, 0x0b,             /* 9 ud2 */
		0xff, 0x54, 0x24, 0x08, /* 11 call [rsp+8] */
		0xc3,
	};
	uint64_t ext[] = { F + 9, F + 11 };
	struct fixture *fx = fn(b, sizeof(b), ext, 2);

	(void)st;
	assert_int_equal(refusal(fx, F + 8), SR_INT3);
	assert_int_equal(refusal(fx, F + 9), SR_UD2);
	assert_int_equal(refusal(fx, F + 11), SR_UNRELOCATABLE);
}

/* An instruction behind Xen's emulation prefix (xen_cpuid's cpuid) stays
 * where it is, as gilk.ko's checker has it. */
static void refuse_emulation_prefix(void **st)
{
	static const uint8_t b[] = {
		0xb8, 1, 0, 0, 0,                   /* 0 mov eax, 1 */
		0x0f, 0x0b, 0x78, 0x65, 0x6e,       /* 5 ud2; .ascii "xen" */
		0x0f, 0xa2,                         /*     cpuid */
		0xb8, 1, 0, 0, 0,                   /* 12 */
		0xc3,
	};
	uint64_t ext[] = { F + 5 };
	struct fixture *fx = fn(b, sizeof(b), ext, 1);
	struct splice_plan p;

	(void)st;
	assert_int_equal(refusal(fx, F + 5), SR_EMULATE_PREFIX);
	assert_int_equal(refusal(fx, F + 6), SR_NOT_BOUNDARY);
	assert_int_equal(splice_plan(&fx->env, F + 12, &p), 0);
}

/* Idle and trapping instructions stay where they are: a CPU idles in hlt
 * or mwait where RCU-tasks does not wait, and traps are found by address. */
static void refuse_idle_and_traps(void **st)
{
	static const uint8_t b[] = {
		0xf4,                   /* 0 hlt */
		0x0f, 0x01, 0xc9,       /* 1 mwait */
		0xcd, 0x80,             /* 4 int 0x80 */
		0x0f, 0x05,             /* 6 syscall */
		0xb8, 1, 0, 0, 0,       /* 8 */
		0xc3,
	};
	uint64_t ext[] = { F + 1, F + 4, F + 6 };
	struct fixture *fx = fn(b, sizeof(b), ext, 3);

	(void)st;
	assert_int_equal(refusal(fx, F), SR_IDLE);
	assert_int_equal(refusal(fx, F + 1), SR_IDLE);
	assert_int_equal(refusal(fx, F + 4), SR_UNRELOCATABLE);
	assert_int_equal(refusal(fx, F + 6), SR_UNRELOCATABLE);
}

static void refuse_out_of_reach(void **st)
{
	static const uint8_t rip[] = { 0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3 };
	static const uint8_t jmp[] = { 0xe9, 0, 0, 0, 0 };
	struct fixture *fx;

	(void)st;
	fx = fn(rip, sizeof(rip), NULL, 0);
	fx->env.tramp_hint = 0xffff800000000000ull;
	assert_int_equal(refusal(fx, F), SR_RIP_RANGE);
	fx = fn(jmp, sizeof(jmp), NULL, 0);
	fx->env.tramp_hint = 0xffff800000000000ull;
	assert_int_equal(refusal(fx, F), SR_BRANCH_RANGE);
}

static void refuse_reserved_kinds(void **st)
{
	static const struct {
		enum res_kind k;
		enum splice_reason r;
	} cases[] = {
		{ RES_JUMP_LABEL, SR_JUMP_LABEL }, { RES_STATIC_CALL, SR_STATIC_CALL },
		{ RES_FTRACE, SR_FTRACE }, { RES_EXTABLE, SR_EXTABLE },
		{ RES_BLACKLIST, SR_BLACKLIST }, { RES_KPROBE, SR_KPROBE },
		{ RES_SMP_LOCK, SR_SMP_LOCK }, { RES_IDLE, SR_IDLE },
		{ RES_OWN_PATH, SR_OWN_PATH },
		{ RES_GILK_CODE, SR_GILK_CODE },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture *fx = fn(simple, sizeof(simple), NULL, 0);

		reserve(fx, F, F + 5, cases[i].k);
		assert_int_equal(refusal(fx, F), cases[i].r);
	}
}

/* A region stopped short by a reserved byte says so: xor eax, eax; then a
 * lock prefix the kernel rewrites (lock inc dword ptr [rdi]); ret. */
static void too_short_names_its_limit(void **st)
{
	static const uint8_t b[] = { 0x31, 0xc0, 0xf0, 0xff, 0x07, 0xc3 };
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;

	(void)st;
	fx->env.flags = SPLICE_NO_BOUNCE;
	reserve(fx, F + 2, F + 3, RES_SMP_LOCK);
	assert_int_equal(splice_plan(&fx->env, F, &p), -1);
	assert_int_equal(p.reason, SR_NO_BOUNCE_SLOT);
	assert_true(p.reason_addr == F + 2);
	assert_string_equal(splice_limit_str(&p), splice_reason_str(SR_SMP_LOCK));
	/* stopped by the function's end alone: nothing more to say */
	fx = fn(b, 2, NULL, 0);
	fx->env.flags = SPLICE_NO_BOUNCE;
	assert_int_equal(splice_plan(&fx->env, F, &p), -1);
	assert_null(splice_limit_str(&p));
}

/* A jump label inside idle text (default_idle on the debug kernel, right
 * after its ftrace site): the reason given is idle, the section's own. */
static void idle_text_outranks_jump_label(void **st)
{
	struct fixture *fx = fn(simple, sizeof(simple), NULL, 0);

	(void)st;
	reserve(fx, F, F + 5, RES_JUMP_LABEL);
	reserve(fx, F, F + sizeof(simple), RES_IDLE);
	assert_int_equal(refusal(fx, F), SR_IDLE);
}

static void alternatives_flagged_not_refused(void **st)
{
	struct fixture *fx = fn(simple, sizeof(simple), NULL, 0);
	struct splice_plan p;

	(void)st;
	reserve(fx, F + 5, F + 10, RES_ALTERNATIVE);
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_false(p.image_only);
	assert_int_equal(splice_plan(&fx->env, F + 5, &p), 0);
	assert_true(p.image_only);
}

static void refuse_occupied(void **st)
{
	struct fixture *fx = fn(simple, sizeof(simple), NULL, 0);
	struct range busy = { F + 3, F + 4 };

	(void)st;
	fx->env.occupied = &busy;
	fx->env.noccupied = 1;
	assert_int_equal(refusal(fx, F), SR_OCCUPIED);
}

static void ftrace_site_skipped_for_block(void **st)
{
	/* nop5 (ftrace) ; mov eax,1 ; ret */
	static const uint8_t b[] = { 0x0f, 0x1f, 0x44, 0, 0, 0xb8, 1, 0, 0, 0, 0xc3 };
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);

	(void)st;
	reserve(fx, F, F + 5, RES_FTRACE);
	assert_int_equal(refusal(fx, F), SR_FTRACE);
	assert_true(splice_site_for_block(&fx->env, F) == F + 5);
	assert_true(splice_site_for_block(&fx->env, F + 5) == F + 5);
}

static void endbr_kept_in_place(void **st)
{
	/* endbr64 ; nop5 (ftrace) ; mov eax,1 ; ret */
	static const uint8_t b[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0, 0,
				     0xb8, 1, 0, 0, 0, 0xc3 };
	/* endbr64 ; mov eax,1 ; ret: a short region, no ftrace */
	static const uint8_t c[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xb8, 1, 0, 0, 0, 0xc3 };
	uint8_t sealed[sizeof(b)];
	struct fixture *fx = fn(b, sizeof(b), NULL, 0);
	struct splice_plan p;

	(void)st;
	reserve(fx, F + 4, F + 9, RES_FTRACE);
	assert_int_equal(refusal(fx, F), SR_ENDBR);
	assert_true(splice_site_for_block(&fx->env, F) == F + 9);
	assert_int_equal(splice_plan(&fx->env, F + 9, &p), 0);
	fx = fn(c, sizeof(c), NULL, 0);
	assert_int_equal(refusal(fx, F), SR_ENDBR);
	assert_true(splice_site_for_block(&fx->env, F) == F + 4);
	assert_int_equal(splice_plan(&fx->env, F + 4, &p), 0);
	assert_true(p.region.addr == F + 4);
	/* live bytes of a sealed function: its endbr64 became nopw (%rax) */
	memcpy(sealed, b, sizeof(b));
	memcpy(sealed, (const uint8_t[]){ 0x66, 0x0f, 0x1f, 0x00 }, 4);
	fx = fn(sealed, sizeof(sealed), NULL, 0);
	reserve(fx, F + 4, F + 9, RES_FTRACE);
	assert_true(splice_site_for_block(&fx->env, F) == F + 9);
}

static void refused_plan_not_emitted(void **st)
{
	struct fixture *fx = fn(simple, sizeof(simple), NULL, 0);
	struct template t;
	struct splice_params sp = params_for(&t, GILK_TRAMP_FULL, false, 0);
	static struct splice_code c;
	struct splice_plan p;
	enum splice_reason why = SPLICE_OK;

	(void)st;
	/* mid-instruction: refused, no region; emitting it used to loop */
	assert_int_equal(splice_plan(&fx->env, F + 1, &p), -1);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), -1);
	assert_int_equal(why, SR_NOT_BOUNDARY);
}

static void reason_texts_complete(void **st)
{
	(void)st;
	for (int r = 0; r < SR_NREASONS; r++) {
		assert_non_null(splice_reason_name((enum splice_reason)r));
		assert_true(strlen(splice_reason_str((enum splice_reason)r)) > 8);
	}
}

/* Whether the planner finds the flags dead at the start of code (a function
 * of its own). */
static bool dead_at_start(const uint8_t *code, size_t n)
{
	struct fixture *fx = fn(code, n, NULL, 0);
	struct splice_plan p;

	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	return p.flags_dead;
}

static void flags_liveness(void **state)
{
	/* mov rax, rdi; cmp rdi, 10: written before any read */
	static const uint8_t cmp_first[] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xff, 0x0a, 0x7c, 0x01, 0xc3, 0xc3 };
	/* mov, lea, then jl reads them */
	static const uint8_t jcc_first[] = { 0x48, 0x89, 0xf8, 0x48, 0x8d, 0x42, 0x05, 0x7c, 0x01, 0xc3, 0xc3 };
	/* inc keeps CF, which jc reads; inc then test writes them all */
	static const uint8_t inc_jc[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc0, 0x72, 0x01, 0xc3, 0xc3 };
	static const uint8_t inc_test[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc0, 0x48, 0x85, 0xc0, 0xc3 };
	/* adc reads CF; a 5-byte nop may become a call (ftrace); a call,
	 * a ret, a VEX instruction: unknown */
	static const uint8_t adc[] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xd0, 0x01, 0x48, 0x85, 0xc0, 0xc3 };
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x48, 0x85, 0xc0, 0xc3 };
	static const uint8_t ret[] = { 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf2, 0xc3 };
	static const uint8_t vex[] = { 0xc5, 0xf1, 0xeb, 0xc2, 0x48, 0x85, 0xc0, 0xc3 };
	/* mov, mov, then cmp: dead, unless the cmp has an exception-table
	 * entry (its fixup runs elsewhere) */
	static const uint8_t fixup[] = { 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf2, 0x48, 0x83, 0xff, 0x0a, 0xc3 };
	struct fixture *fx;
	struct splice_plan p;

	(void)state;
	assert_true(dead_at_start(cmp_first, sizeof(cmp_first)));
	assert_false(dead_at_start(jcc_first, sizeof(jcc_first)));
	assert_false(dead_at_start(inc_jc, sizeof(inc_jc)));
	assert_true(dead_at_start(inc_test, sizeof(inc_test)));
	assert_false(dead_at_start(adc, sizeof(adc)));
	assert_false(dead_at_start(ret, sizeof(ret)));
	assert_false(dead_at_start(vex, sizeof(vex)));
	assert_true(dead_at_start(fixup, sizeof(fixup)));
	fx = fn(fixup, sizeof(fixup), NULL, 0);
	reserve(fx, F + 6, F + 10, RES_EXTABLE);
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_false(p.flags_dead);
	/* a 5-byte nop (an ftrace or static call site) may turn into a call */
	fx = fn(nop5, sizeof(nop5), NULL, 0);
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_false(p.flags_dead);
}

/* The count template: incq %gs:counter inline, pushfq/popfq around it only
 * where the flags are live, through rax when the counter needs 64 bits. */
static void count_template(void **state)
{
	static const uint8_t jcc_first[] = { 0x48, 0x89, 0xf8, 0x48, 0x8d, 0x42, 0x05, 0x7c, 0x01, 0xc3, 0xc3 };
	static const uint8_t cmp_first[] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xff, 0x0a, 0x7c, 0x01, 0xc3, 0xc3 };
	static const uint8_t near[] = { 0x65, 0x48, 0xff, 0x04, 0x25, 0x00, 0x20, 0x00, 0x00 };
	static const uint8_t far[] = { 0x50, 0x48, 0xb8 };
	struct template t;
	struct splice_params sp = params_for(&t, GILK_TRAMP_COUNT, false, 0x2000);
	static struct splice_code c;
	struct splice_plan p;
	enum splice_reason why;
	struct fixture *fx = fn(cmp_first, sizeof(cmp_first), NULL, 0);

	(void)state;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_int_equal(c.reloc_off, sizeof(near));
	assert_memory_equal(c.tramp, near, sizeof(near));
	t.params.counter = 0x0000777f3ff03000ull;
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_memory_equal(c.tramp, far, sizeof(far));
	assert_int_equal(c.reloc_off, 1 + 10 + 4 + 1);
	/* what is reserved is what the template can take, not a full header */
	assert_true(c.tramp_len <= template_tramp_size(&p, GILK_TRAMP_COUNT));
	assert_true(template_tramp_size(&p, GILK_TRAMP_COUNT) < template_tramp_size(&p, GILK_TRAMP_SCRATCH));
	assert_true(template_tramp_size(&p, GILK_TRAMP_SCRATCH) < template_tramp_size(&p, GILK_TRAMP_FULL));
	assert_true(template_tramp_size(&p, GILK_TRAMP_COUNT) <= 64);
	fx = fn(jcc_first, sizeof(jcc_first), NULL, 0);
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	t.params.counter = 0x2000;
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_int_equal(c.tramp[0], 0x9c);
	assert_memory_equal(c.tramp + 1, near, sizeof(near));
	assert_int_equal(c.tramp[1 + sizeof(near)], 0x9d);
	/* scratch: flags, then the nine registers a call clobbers */
	t.params.kind = GILK_TRAMP_SCRATCH;
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	assert_memory_equal(c.tramp, ((const uint8_t[]){ 0x9c, 0x50, 0x51, 0x52, 0x56, 0x57,
							 0x41, 0x50, 0x41, 0x51, 0x41, 0x52,
							 0x41, 0x53, 0xfc }), 15);
}

/* The header is gilk.ko's template, written by its own code (kmod/arch/x86/tramp.c):
 * the flags saved where the plan finds them live, the full template for a
 * BUG()/WARN() replay, nothing where the template cannot reach what it
 * addresses, and count_task only for a filter it can test inline. */
/* The header a plan's trampoline starts with is gilk.ko's for tp, byte for byte. */
static void assert_header_is(const struct splice_code *c, const struct gilk_tramp_params *tp)
{
	uint8_t expect[GILK_TRAMP_HEADER_MAX];

	assert_int_equal(c->reloc_off, gilk_tramp_header(expect, tp));
	assert_memory_equal(c->tramp, expect, c->reloc_off);
}

static void header_is_gilk_template(void **state)
{
	static const uint8_t cmp_first[] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xff, 0x0a, 0x7c, 0x01, 0xc3, 0xc3 };
	struct fixture *fx = fn(cmp_first, sizeof(cmp_first), NULL, 0);
	struct gilk_filter f = { .len = 3 };
	static struct splice_code c;
	struct gilk_reserve r = { .counter = 0x2000, .filtered = 0x2008,
				  .current_task = 0x1010, .task_pid = 0x500,
				  .task_tgid = 0x504, .task_comm = 0x700 };
	struct gilk_tramp_params tp;
	struct template t;
	struct splice_params sp;
	struct splice_plan p;
	enum splice_reason why;

	(void)state;
	assert_int_equal(splice_plan(&fx->env, F, &p), 0);
	assert_true(p.flags_dead);
	/* tsc, the flags dead: gilk.ko's bytes for tsc, not tsc_flags */
	sp = params_for(&t, GILK_TRAMP_TSC, false, 0x2000);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	tp = t.params;
	tp.tramp = TRAMP;
	tp.site = F;
	assert_header_is(&c, &tp);
	/* and a %gs offset beyond a disp32 is out of the template's reach */
	t.params.cpu_number = 1ull << 40;
	assert_int_equal(splice_emit(&p, &sp, &c, &why), -1);
	assert_int_equal(why, SR_BRANCH_RANGE);
	/* flags live: count with pushfq/popfq */
	p.flags_dead = false;
	sp = params_for(&t, GILK_TRAMP_COUNT, false, 0x2000);
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	tp = t.params;
	tp.kind = GILK_TRAMP_COUNT_FLAGS;
	tp.tramp = TRAMP;
	assert_header_is(&c, &tp);
	/* a replayed BUG()/WARN() reads pt_regs: the full template */
	p.bug = BUG_WARN;
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	tp.kind = GILK_TRAMP_FULL;
	tp.site = F;
	assert_header_is(&c, &tp);
	assert_true(template_tramp_size(&p, GILK_TRAMP_COUNT) ==
		    template_tramp_size(&p, GILK_TRAMP_FULL));
	p.bug = BUG_NONE;
	/* count_task: one test of the task (tid == 42), else no template */
	f.test[0] = (struct gilk_filter_test){ .op = GILK_FOP_EQ, .field = GILK_FF_TID,
					       .jt = 0, .jf = 1, .mask = ~0ull, .value = 42 };
	f.test[1] = (struct gilk_filter_test){ .op = GILK_FOP_RET, .value = 1 };
	f.test[2] = (struct gilk_filter_test){ .op = GILK_FOP_RET, .value = 0 };
	assert_int_equal(template_of(GILK_NEEDS_NOTHING, &f, NULL, NULL), GILK_TRAMP_COUNT_TASK);
	assert_int_equal(template_of(GILK_NEEDS_REGS, &f, NULL, NULL), GILK_TRAMP_FULL);
	assert_true(template_init(&t, GILK_TRAMP_COUNT_TASK, &r, false, &f));
	assert_int_equal(t.params.task_field, 0x500);
	assert_int_equal(t.params.task_len, 4);
	sp = (struct splice_params){ .tramp = TRAMP, .header = &t.header };
	assert_int_equal(splice_emit(&p, &sp, &c, &why), 0);
	/* cmp dword [rax + 0x500], 42 */
	assert_non_null(memmem(c.tramp, c.reloc_off,
			       "\x81\xb8\x00\x05\x00\x00\x2a\x00\x00\x00", 10));
	r.filtered = 0x3000;	/* not the counter's neighbour */
	assert_false(template_init(&t, GILK_TRAMP_COUNT_TASK, &r, false, &f));
	r.filtered = 0x2008;
	r.current_task = 1ull << 40;
	assert_false(template_init(&t, GILK_TRAMP_COUNT_TASK, &r, false, &f));
	f.len = 0;
	assert_false(template_init(&t, GILK_TRAMP_COUNT_TASK, &r, false, &f));
	assert_int_equal(template_of(GILK_NEEDS_NOTHING, NULL, NULL, NULL), GILK_TRAMP_COUNT);
	assert_int_equal(template_of(GILK_NEEDS_TSC, NULL, NULL, NULL), GILK_TRAMP_TSC);
	assert_int_equal(template_of(GILK_NEEDS_SCRATCH, NULL, NULL, NULL), GILK_TRAMP_SCRATCH);
	/* a fetch from a register takes the full template; from the task, a
	 * call; and never the inline count_task, which records nothing */
	{
		struct gilk_fetch fx = { .len = 1 };

		fx.value[0].from = GILK_FETCH_FROM_TASK;
		assert_int_equal(template_of(GILK_NEEDS_TSC, NULL, &fx, NULL), GILK_TRAMP_SCRATCH);
		f.len = 3;
		assert_int_equal(template_of(GILK_NEEDS_NOTHING, &f, &fx, NULL), GILK_TRAMP_SCRATCH);
		fx.value[0].from = GILK_FF_ARG0 + 1;
		assert_int_equal(template_of(GILK_NEEDS_SCRATCH, NULL, &fx, NULL), GILK_TRAMP_FULL);
		fx.len = 0;
		assert_int_equal(template_of(GILK_NEEDS_TSC, NULL, &fx, NULL), GILK_TRAMP_TSC);
	}
}

const struct CMUnitTest splice_tests[] = {
	cmocka_unit_test(header_is_gilk_template),
	cmocka_unit_test(flags_liveness),
	cmocka_unit_test(count_template),
	cmocka_unit_test(plain_jmp),
	cmocka_unit_test(endbr_kept_in_place),
	cmocka_unit_test(refused_plan_not_emitted),
	cmocka_unit_test(region_absorbs_padding_after_ret),
	cmocka_unit_test(call_ends_region),
	cmocka_unit_test(bounce_via_padding),
	cmocka_unit_test(bounce_via_eviction),
	cmocka_unit_test(bounce_via_existing_tail),
	cmocka_unit_test(trap_mode_only_when_asked),
	cmocka_unit_test(refuse_not_text_boundary_padding),
	cmocka_unit_test(refuse_undecodable_misaligned_table),
	cmocka_unit_test(refuse_emulation_prefix),
	cmocka_unit_test(refuse_int3_ud2_unrelocatable),
	cmocka_unit_test(refuse_idle_and_traps),
	cmocka_unit_test(bug_and_warn_sites_replayed),
	cmocka_unit_test(bug_site_only_at_region_start),
	cmocka_unit_test(refuse_out_of_reach),
	cmocka_unit_test(refuse_reserved_kinds),
	cmocka_unit_test(too_short_names_its_limit),
	cmocka_unit_test(idle_text_outranks_jump_label),
	cmocka_unit_test(alternatives_flagged_not_refused),
	cmocka_unit_test(refuse_occupied),
	cmocka_unit_test(ftrace_site_skipped_for_block),
	cmocka_unit_test(reason_texts_complete),
};
const size_t splice_ntests = sizeof(splice_tests) / sizeof(splice_tests[0]);
