/* Splice planning, the part every instruction set shares (see splice.h):
 * the checks of the kernel's tables and of what other splices own, the
 * site of a block, and the dispatch to the architecture's planner and
 * emitter (splice_x86_64.c, splice_arm64.c). */
#include "splice.h"

#include <string.h>

#include "arch.h"
#include "splice_internal.h"

const struct cfg *splice_cfg_for(const struct splice_env *env, uint64_t addr)
{
	for (size_t i = 0; i < env->ncfg; i++)
		if (addr >= env->cfgs[i]->start && addr < env->cfgs[i]->end)
			return env->cfgs[i];
	return NULL;
}

bool splice_is_occupied(const struct splice_env *env, uint64_t lo, uint64_t len)
{
	for (size_t i = 0; i < env->noccupied; i++)
		if (splice_overlaps(lo, len, env->occupied[i].start,
			     env->occupied[i].end - env->occupied[i].start))
			return true;
	return false;
}

static enum splice_reason reason_of_reservation(enum res_kind k)
{
	switch (k) {
	case RES_JUMP_LABEL: return SR_JUMP_LABEL;
	case RES_STATIC_CALL: return SR_STATIC_CALL;
	case RES_FTRACE: return SR_FTRACE;
	case RES_EXTABLE: return SR_EXTABLE;
	case RES_KPROBE: return SR_KPROBE;
	case RES_SMP_LOCK: return SR_SMP_LOCK;
	case RES_IDLE: return SR_IDLE;
	case RES_OWN_PATH: return SR_OWN_PATH;
	case RES_EARLY_CPU: return SR_EARLY_CPU;
	case RES_RCU_IDLE: return SR_RCU_IDLE;
	case RES_GILK_CODE: return SR_GILK_CODE;
	default: return SR_BLACKLIST;
	}
}

bool splice_is_reserved(const struct splice_env *env, uint64_t lo, uint64_t len,
			enum splice_reason *why)
{
	const struct res_range *r;

	if (!env->facts)
		return false;
	/* Idle text is refused as a whole (its own section), so that is the
	 * reason to give even where a jump label also sits in the bytes. */
	if (textfacts_overlaps(env->facts, lo, lo + len, RES_IDLE)) {
		if (why)
			*why = SR_IDLE;
		return true;
	}
	r = textfacts_reserved(env->facts, lo, lo + len, RES_ALTERNATIVE);
	if (r && why)
		*why = reason_of_reservation((enum res_kind)r->kind);
	return r != NULL;
}

bool splice_touches_alternative(const struct splice_env *env, const struct splice_region *r)
{
	return env->facts && r->len &&
	       textfacts_overlaps(env->facts, r->addr, r->addr + r->len,
				  RES_ALTERNATIVE);
}

enum splice_reason splice_reason_of_reloc(enum reloc_status s)
{
	switch (s) {
	case RELOC_OK: return SPLICE_OK;
	case RELOC_RIP_RANGE: return SR_RIP_RANGE;
	case RELOC_BRANCH_RANGE: return SR_BRANCH_RANGE;
	default: return SR_UNRELOCATABLE;
	}
}

int splice_refuse(struct splice_plan *p, enum splice_reason r, uint64_t at)
{
	p->reason = r;
	p->reason_addr = at;
	return -1;
}

int splice_plan(const struct splice_env *env, uint64_t site,
		struct splice_plan *p)
{
	const struct cfg *g = splice_cfg_for(env, site);
	ssize_t idx;

	memset(p, 0, sizeof(*p));
	p->arch = env->arch;
	p->region.addr = site;
	if (!g)
		return splice_refuse(p, SR_NOT_TEXT, site);
	/* Past bytes that do not decode (for Capstone: rdpkru is one) the
	 * function's branches are unknown, and one may land in any region
	 * before them: gilk.ko's checker, whose decoder may know the bytes,
	 * would refuse such a plan. */
	if (g->bad_addr)
		return splice_refuse(p, SR_UNDECODABLE, g->bad_addr);
	idx = cfg_insn_at(g, site);
	if (idx < 0) {
		for (size_t i = 0; i < g->npadding; i++)
			if (site >= g->padding[i].start && site < g->padding[i].end)
				return splice_refuse(p, SR_PADDING, site);
		return splice_refuse(p, SR_NOT_BOUNDARY, site);
	}
	if (cfg_block_at(g, site) < 0)
		return splice_refuse(p, SR_PADDING, site);
	if (env->no_tables)
		return splice_refuse(p, SR_NO_TABLES, site);
	return arch_info(env->arch)->plan(env, g, (size_t)idx, p);
}

/* addr past the landing pads that stand at it */
static uint64_t past_landing_pads(const struct splice_env *env, const struct cfg *g,
				  uint64_t addr)
{
	ssize_t idx;

	/* (Computed-goto labels may stand together, each with its endbr64.) */
	for (idx = cfg_insn_at(g, addr); idx >= 0 && cfg_insn_at(g, addr + 4) >= 0 &&
	     arch_info(env->arch)->landing_pad(g, &g->insns[idx], addr);
	     idx = cfg_insn_at(g, addr))
		addr += 4;
	return addr;
}

uint64_t splice_site_for_block(const struct splice_env *env, uint64_t addr)
{
	const struct cfg *g = splice_cfg_for(env, addr);
	const struct res_range *r;

	if (!g)
		return addr;
	addr = past_landing_pads(env, g, addr);
	if (!env->facts)
		return addr;
	r = textfacts_reserved(env->facts, addr, addr + 1, RES_ALTERNATIVE);
	if (!r || r->kind != RES_FTRACE || r->start != addr || cfg_insn_at(g, r->end) < 0)
		return addr;
	/* arm64's paciasp comes after ftrace's nops */
	return past_landing_pads(env, g, r->end);
}

static uint64_t map_back(const struct splice_region *r, const uint16_t *offs,
			 size_t len, uint64_t base, uint64_t a)
{
	for (unsigned i = 0; i < r->ninsn; i++) {
		uint64_t lo = base + offs[i];
		uint64_t hi = i + 1 < r->ninsn ? base + offs[i + 1] : base + len;

		if (a >= lo && a < hi)
			return r->insns[i].addr;
	}
	return 0;
}

uint64_t splice_original_addr(const struct splice_plan *p,
			      const struct splice_params *sp,
			      const struct splice_code *code, uint64_t a)
{
	uint64_t o = map_back(&p->region, code->insn_off, code->tramp_len,
			      sp->tramp, a);

	if (!o && code->evict_tramp_len)
		o = map_back(&p->evict, code->evict_insn_off,
			     code->evict_tramp_len, sp->evict_tramp, a);
	return o;
}

void splice_plan_join(struct splice_plan *p, uint64_t site, uint8_t len, const uint8_t *orig,
		      uint64_t join_at, uint64_t join_to)
{
	memset(p, 0, sizeof(*p));
	p->mode = SPLICE_JOIN;
	p->reason = SPLICE_OK;
	p->region.addr = site;
	p->region.len = len < SPLICE_REGION_MAX ? len : SPLICE_REGION_MAX;
	memcpy(p->region.orig, orig, p->region.len);
	p->join_at = join_at;
	p->join_to = join_to;
}

size_t splice_tramp_size(const struct splice_plan *p, size_t header_max)
{
	const struct arch_info *a = arch_info(p->arch);

	return a->tramp_size ? a->tramp_size(p, header_max) : 0;
}

size_t splice_evict_tramp_size(const struct splice_plan *p)
{
	const struct arch_info *a = arch_info(p->arch);

	return a->evict_tramp_size ? a->evict_tramp_size(p) : 0;
}

int splice_emit(const struct splice_plan *p, const struct splice_params *sp,
		struct splice_code *out, enum splice_reason *why)
{
	const struct arch_info *a = arch_info(p->arch);

	memset(out, 0, offsetof(struct splice_code, patches));
	out->npatch = 0;
	/* Only a plan splice_plan() accepted: a refused one has no region (its
	 * jump would be written over nothing). */
	if (p->reason != SPLICE_OK || !p->region.len) {
		*why = p->reason != SPLICE_OK ? p->reason : SR_TOO_SHORT;
		return -1;
	}
	/* (an instruction set without an emitter is planned, never spliced:
	 * no live session reaches here with its plans) */
	if (!a->emit) {
		*why = SR_UNRELOCATABLE;
		return -1;
	}
	*why = (enum splice_reason)a->emit(p, sp, out);
	return *why == SPLICE_OK ? 0 : -1;
}

static const char *const reason_names[SR_NREASONS][2] = {
	[SPLICE_OK] = { "ok", "spliceable" },
	[SR_NOT_TEXT] = { "not-text", "the address is not inside a known kernel function" },
	[SR_NOT_BOUNDARY] = { "mid-instruction", "the address is inside an instruction, not at its start" },
	[SR_PADDING] = { "padding", "the address is dead padding between functions or after a return, not code" },
	[SR_UNDECODABLE] = { "undecodable", "some of the function's bytes do not decode as instructions of its architecture, so its branches are not all known" },
	[SR_MISALIGNED_TARGET] = { "misaligned-target", "the function branches into the middle of an instruction, so its instruction boundaries are not certain" },
	[SR_JUMP_TABLE] = { "jump-table", "the function jumps through a table whose targets cannot be seen, so any byte may be a branch target" },
	[SR_INT3] = { "int3", "the region holds an int3, which belongs to a debugger or to the kernel's own patching" },
	[SR_UD2] = { "bug-site", "the region holds a BUG()/WARN() trap that gilk cannot replay: a ud2 past the region's start, or one that is not a BUG()/WARN() site in __bug_table; on arm64 any brk of __bug_table" },
	[SR_UNRELOCATABLE] = { "unrelocatable", "the region holds an instruction that cannot run at another address (xbegin, far transfer, call through [rsp]; on arm64 an exclusive store, a trap, a pointer-authenticated call, a SIMD&FP literal load)" },
	[SR_RIP_RANGE] = { "rip-range", "a RIP-relative operand would be out of ±2 GiB reach from the trampoline" },
	[SR_BRANCH_RANGE] = { "branch-range", "a branch target would be out of reach from the trampoline (x86's rel32, arm64's b: ±128 MiB)" },
	[SR_JUMP_LABEL] = { "jump-label", "the region holds a jump label (static key) site, which the kernel rewrites at run time" },
	[SR_STATIC_CALL] = { "static-call", "the region holds a static call site or trampoline, which the kernel rewrites at run time" },
	[SR_FTRACE] = { "ftrace", "the region holds an ftrace call site (splice after it)" },
	[SR_ENDBR] = { "endbr", "the region holds an endbr64, the landing pad of indirect calls under IBT (splice after it)" },
	[SR_EXTABLE] = { "extable", "the region holds an instruction with an exception-table entry: a fault there is fixed up by its address" },
	[SR_BLACKLIST] = { "blacklist", "the code is kprobe-blacklisted, noinstr or entry code: instrumenting it can recurse or run without a valid context" },
	[SR_KPROBE] = { "kprobe", "a kprobe is registered in the region" },
	[SR_SMP_LOCK] = { "smp-lock", "the region holds a lock prefix the kernel rewrites when CPUs come and go" },
	[SR_OCCUPIED] = { "occupied", "another splice already owns some of these bytes" },
	[SR_TOO_SHORT] = { "too-short", "not even a 2-byte jmp fits before the next branch target or the end of the function" },
	[SR_NO_BOUNCE_SLOT] = { "no-bounce-slot", "the block is shorter than a 5-byte jmp and no 5 free bytes lie within a 2-byte jmp's reach" },
	[SR_EMULATE_PREFIX] = { "emulate-prefix", "the region holds an instruction behind a hypervisor's emulation prefix (ud2; .ascii \"xen\"), which the hypervisor finds by its address" },
	[SR_OWN_PATH] = { "gilk-path", "gilk's own path runs this function (its int3 divert, through the kernel's die notifier chain, or its hit path): a splice here would be met again while gilk handles it" },
	[SR_EARLY_CPU] = { "early-cpu", "the code runs before the CPU's %gs holds its per-CPU base (a CPU coming on line, the resume from suspend), where every trampoline's per-CPU access faults: found from the code by gilk.ko, from the CPU's entry and each load of %gs to the write of its base" },
	[SR_RCU_IDLE] = { "rcu-idle", "the code runs while RCU does not watch the CPU (between ct_idle_enter() and ct_idle_exit(), and the idle states' enter functions), so no grace period waits for a CPU in its trampoline: found from the code by gilk.ko" },
	[SR_GILK_CODE] = { "gilk-code", "the code is gilk.ko's own: a splice there would run gilk inside itself, and gilk.ko refuses it" },
	[SR_NO_TABLES] = { "no-tables", "the kernel's tables (jump labels, ftrace sites, exception fixups, the kprobe blacklist) are not known, so no site is known to be safe: an arm64 kernel's kallsyms does not bound them, its System.map does" },
	[SR_EXCLUSIVE] = { "exclusive", "the site lies between a load-exclusive and its store-exclusive: the trampoline's stores would clear the exclusive monitor, and the loop around them would never end" },
	[SR_LANDING_PAD] = { "landing-pad", "the site is a landing pad of indirect branches (arm64's bti, or the paciasp a function starts with): a branch written there would fault under BTI (splice after it)" },
	[SR_IDLE] = { "idle", "idle code (.cpuidle.text, hlt, mwait, arm64's wfi and wfe): RCU-tasks does not wait for a CPU idling there, so its trampoline could be freed under it" },
};

const char *splice_reason_name(enum splice_reason r)
{
	return (unsigned)r < SR_NREASONS ? reason_names[r][0] : "?";
}

const char *splice_reason_str(enum splice_reason r)
{
	return (unsigned)r < SR_NREASONS ? reason_names[r][1] : "?";
}

const char *splice_limit_str(const struct splice_plan *p)
{
	if ((p->reason != SR_TOO_SHORT && p->reason != SR_NO_BOUNCE_SLOT) ||
	    p->limit == SPLICE_OK || p->limit == SR_TOO_SHORT)
		return NULL;
	return splice_reason_str(p->limit);
}

const char *splice_mode_name(enum splice_mode m)
{
	switch (m) {
	case SPLICE_JMP: return "jmp";
	case SPLICE_BOUNCE: return "bounce";
	case SPLICE_TRAP: return "trap";
	case SPLICE_JOIN: return "join";
	}
	return "?";
}
