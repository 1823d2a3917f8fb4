/*
 * Kernel text facts (see textfacts.h). Table layouts are those of x86-64 Linux
 * 5.15+: every table entry stores addresses as 32-bit offsets relative to the
 * field itself, except __mcount_loc and _kprobe_blacklist, which hold absolute
 * 64-bit addresses.
 */
#include "textfacts.h"

#include <stdlib.h>
#include <string.h>

#include "u64set.h"

/*
 * Each array is sorted up to its *_sorted count; what was added since
 * waits for textfacts_finish(). Live planning adds a function's facts at a
 * time to the kernel's whole tables, so finishing merges the few in
 * instead of sorting the whole again.
 */
struct textfacts {
	struct res_range *res;
	size_t nres, capres, nres_sorted;
	uint64_t *maxend;  /* maxend[i]: greatest end among res[0..i] */
	size_t capmaxend;
	uint64_t *targets;
	size_t ntargets, captargets, ntargets_sorted;
	uint64_t *bugs, *warns;      /* BUG()/WARN() ud2 sites (warns: WARN) */
	size_t nbugs, capbugs, nbugs_sorted, nwarns, capwarns, nwarns_sorted;
};

struct textfacts *textfacts_new(void)
{
	return calloc(1, sizeof(struct textfacts));
}

void textfacts_free(struct textfacts *tf)
{
	if (!tf)
		return;
	free(tf->res);
	free(tf->maxend);
	free(tf->targets);
	free(tf->bugs);
	free(tf->warns);
	free(tf);
}

int textfacts_add_range(struct textfacts *tf, uint64_t start, uint64_t end,
			enum res_kind kind)
{
	if (tf->nres == tf->capres) {
		size_t cap = tf->capres ? tf->capres * 2 : 4096;
		struct res_range *r = realloc(tf->res, cap * sizeof(*r));

		if (!r)
			return -1;
		tf->res = r;
		tf->capres = cap;
	}
	tf->res[tf->nres++] = (struct res_range){ start, end, (uint8_t)kind };
	return 0;
}

static int push_u64(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		uint64_t *t = realloc(*a, c * sizeof(*t));

		if (!t)
			return -1;
		*a = t;
		*cap = c;
	}
	(*a)[(*n)++] = v;
	return 0;
}

int textfacts_add_target(struct textfacts *tf, uint64_t addr)
{
	return push_u64(&tf->targets, &tf->ntargets, &tf->captargets, addr);
}

int textfacts_add_bug(struct textfacts *tf, uint64_t addr, unsigned len, bool warn)
{
	if (push_u64(&tf->bugs, &tf->nbugs, &tf->capbugs, addr))
		return -1;
	/* The trap handler resumes after a WARN's trap: its next instruction
	 * is reached, so the bytes there are never dead padding. */
	return warn ? push_u64(&tf->warns, &tf->nwarns, &tf->capwarns, addr) ||
		      textfacts_add_target(tf, addr + len) : 0;
}

static bool in_set(const uint64_t *a, size_t n, uint64_t v)
{
	size_t i = u64_lower_bound(a, n, v);

	return i < n && a[i] == v;
}

enum bug_kind textfacts_bug(const struct textfacts *tf, uint64_t addr)
{
	if (!in_set(tf->bugs, tf->nbugs_sorted, addr))
		return BUG_NONE;
	return in_set(tf->warns, tf->nwarns_sorted, addr) ? BUG_WARN : BUG_BUG;
}

static int cmp_range(const void *a, const void *b)
{
	const struct res_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void textfacts_finish(struct textfacts *tf)
{
	size_t from = sort_tail_in(tf->res, tf->nres_sorted, tf->nres,
				   sizeof(*tf->res), cmp_range);

	tf->nres_sorted = tf->nres;
	tf->ntargets = tf->ntargets_sorted =
		u64_merge_unique(tf->targets, tf->ntargets_sorted, tf->ntargets);
	tf->nbugs = tf->nbugs_sorted = u64_merge_unique(tf->bugs, tf->nbugs_sorted, tf->nbugs);
	tf->nwarns = tf->nwarns_sorted =
		u64_merge_unique(tf->warns, tf->nwarns_sorted, tf->nwarns);
	if (!tf->maxend || tf->capmaxend < tf->nres) {
		/* no queries without it (find_overlap), so all of it again */
		free(tf->maxend);
		tf->capmaxend = tf->capres ? tf->capres : 1;
		tf->maxend = malloc(tf->capmaxend * sizeof(*tf->maxend));
		from = 0;
		if (!tf->maxend)
			return;
	}
	for (size_t i = from; i < tf->nres; i++) {
		uint64_t prev = i ? tf->maxend[i - 1] : 0;

		tf->maxend[i] = tf->res[i].end > prev ? tf->res[i].end : prev;
	}
}

struct res_key {
	const struct textfacts *tf;
	uint64_t end;
};

static bool starts_below(const void *ctx, size_t i)
{
	const struct res_key *k = ctx;

	return k->tf->res[i].start < k->end;
}

/* Walks the ranges that may overlap [start, end): the last one starting
 * below end, then back while an earlier one may still reach past start. */
static const struct res_range *find_overlap(const struct textfacts *tf,
					    uint64_t start, uint64_t end,
					    int want, int skip)
{
	struct res_key k = { tf, end };
	size_t lo;

	if (!tf->maxend)
		return NULL;
	lo = u64_partition(tf->nres_sorted, starts_below, &k);
	for (size_t i = lo; i-- > 0;) {
		const struct res_range *r = &tf->res[i];

		if (tf->maxend[i] <= start)
			break;
		if (r->end > start && r->kind != skip && (want < 0 || r->kind == want))
			return r;
	}
	return NULL;
}

const struct res_range *textfacts_reserved(const struct textfacts *tf,
					   uint64_t start, uint64_t end,
					   enum res_kind skip)
{
	return find_overlap(tf, start, end, -1, (int)skip);
}

bool textfacts_overlaps(const struct textfacts *tf, uint64_t start,
			uint64_t end, enum res_kind kind)
{
	return find_overlap(tf, start, end, (int)kind, -1) != NULL;
}

size_t textfacts_targets(const struct textfacts *tf, uint64_t start,
			 uint64_t end, const uint64_t **first)
{
	size_t lo = u64_lower_bound(tf->targets, tf->ntargets_sorted, start), i;

	for (i = lo; i < tf->ntargets_sorted && tf->targets[i] < end; i++)
		;
	*first = tf->targets + lo;
	return i - lo;
}

/* ---- loading from an image ---- */

struct table {
	const uint8_t *p;
	uint64_t addr;
	size_t len;
};

static int find_table(struct kimage *img, const struct symtab *st,
		      const char *start_sym, const char *stop_sym,
		      struct table *t, struct gerr *e)
{
	const struct ksym *a, *b;

	if (symtab_by_name(st, start_sym, &a, 1) != 1)
		return gerr_set(e, "symbol %s not found: cannot read that table", start_sym);
	if (symtab_by_name(st, stop_sym, &b, 1) != 1)
		return gerr_set(e, "symbol %s not found: cannot read that table", stop_sym);
	if (b->addr < a->addr)
		return gerr_set(e, "%s lies below %s", stop_sym, start_sym);
	t->addr = a->addr;
	t->len = (size_t)(b->addr - a->addr);
	t->p = t->len ? kimage_ptr(img, a->addr, t->len) : (const uint8_t *)"";
	if (!t->p)
		return gerr_set(e, "the image holds no bytes for %s..%s", start_sym, stop_sym);
	return 0;
}

static int32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (int32_t)v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* A table of entries of stride bytes, each starting with an s32 offset
 * (relative to itself) to a site: each site's len bytes are of that kind. */
static int add_rel32_sites(struct textfacts *tf, const struct table *t, size_t stride,
			   unsigned len, enum res_kind kind, struct gerr *e)
{
	for (size_t o = 0; o + stride <= t->len; o += stride) {
		uint64_t site = t->addr + o + (uint64_t)(int64_t)rd32(t->p + o);

		if (textfacts_add_range(tf, site, site + len, kind))
			return gerr_set(e, "out of memory");
	}
	return 0;
}

/* Length of the instruction at addr (1 when it does not decode, so a range is
 * still reserved). */
static unsigned insn_len_at(struct kimage *img, struct decoder *dec,
			    uint64_t addr)
{
	const uint8_t *p = kimage_ptr(img, addr, INSN_MAX);
	struct insn in;

	if (!p || decode_one(dec, p, INSN_MAX, addr, &in))
		return 1;
	return in.len;
}

static int load_jump_table(struct textfacts *tf, struct kimage *img,
			   const struct symtab *st, struct decoder *dec,
			   struct gerr *e)
{
	struct table t;

	/* struct jump_entry { s32 code; s32 target; long key; } */
	if (find_table(img, st, "__start___jump_table", "__stop___jump_table", &t, e))
		return -1;
	for (size_t o = 0; o + 16 <= t.len; o += 16) {
		uint64_t code = t.addr + o + (uint64_t)(int64_t)rd32(t.p + o);
		uint64_t target = t.addr + o + 4 + (uint64_t)(int64_t)rd32(t.p + o + 4);

		if (textfacts_add_range(tf, code, code + insn_len_at(img, dec, code),
					RES_JUMP_LABEL) ||
		    textfacts_add_target(tf, target))
			return gerr_set(e, "out of memory");
	}
	return 0;
}

static int add_section_range(struct textfacts *tf, const struct symtab *st,
			     const char *start_sym, const char *end_sym,
			     enum res_kind kind, struct gerr *e);

/* Every __SCT__ symbol's extent: modules' trampolines too, which no section
 * bounds (live, the symbols include the loaded modules'). */
static int add_trampoline_symbols(struct textfacts *tf, const struct symtab *st,
				  struct gerr *e)
{
	size_t n = symtab_complete(st, "__SCT__", NULL, 0);
	const char **names = calloc(n ? n : 1, sizeof(*names));
	int rc = 0;

	if (!names)
		return gerr_set(e, "out of memory");
	n = symtab_complete(st, "__SCT__", names, n);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct ksym *s[8];
		size_t k = symtab_by_name(st, names[i], s, 8);

		for (size_t j = 0; j < k && j < 8 && !rc; j++) {
			uint64_t start, end;

			if (ksym_is_text(s[j]) &&
			    !symtab_function(st, s[j]->addr, NULL, &start, &end) &&
			    textfacts_add_range(tf, start, end, RES_STATIC_CALL))
				rc = gerr_set(e, "out of memory");
		}
	}
	free(names);
	return rc;
}

static int load_static_calls(struct textfacts *tf, struct kimage *img,
			     const struct symtab *st, struct gerr *e)
{
	struct table t;

	/* The trampolines (__SCT__*): static_call_update() rewrites their jmp,
	 * and BUG()s unless the signature after it is intact. */
	if (add_section_range(tf, st, "__static_call_text_start", "__static_call_text_end",
			      RES_STATIC_CALL, e))
		return -1;

	if (add_trampoline_symbols(tf, st, e))
		return -1;
	/* struct static_call_site { s32 addr; s32 key; }: a call/jmp rel32 */
	if (find_table(img, st, "__start_static_call_sites", "__stop_static_call_sites", &t, e))
		return -1;
	return add_rel32_sites(tf, &t, 8, 5, RES_STATIC_CALL, e);
}

/* x86's ftrace site is the call's nop5 at a function's entry; arm64's are
 * the two nops -fpatchable-function-entry=2 puts there (ftrace makes the
 * first "mov x9, x30" at boot and the second a bl when tracing), and the
 * table holds the first one's address. */
static int load_mcount(struct textfacts *tf, struct kimage *img,
		       const struct symtab *st, enum arch arch, struct gerr *e)
{
	unsigned len = arch_info(arch)->ftrace_len;
	struct table t;

	if (find_table(img, st, "__start_mcount_loc", "__stop_mcount_loc", &t, e))
		return -1;
	for (size_t o = 0; o + 8 <= t.len; o += 8) {
		uint64_t site = rd64(t.p + o);

		if (site && textfacts_add_range(tf, site, site + len, RES_FTRACE))
			return gerr_set(e, "out of memory");
	}
	return 0;
}

static int load_extable(struct textfacts *tf, struct kimage *img,
			const struct symtab *st, struct decoder *dec,
			struct gerr *e)
{
	struct table t;

	/* struct exception_table_entry { int insn, fixup, data; } */
	if (find_table(img, st, "__start___ex_table", "__stop___ex_table", &t, e))
		return -1;
	for (size_t o = 0; o + 12 <= t.len; o += 12) {
		uint64_t insn = t.addr + o + (uint64_t)(int64_t)rd32(t.p + o);
		uint64_t fixup = t.addr + o + 4 + (uint64_t)(int64_t)rd32(t.p + o + 4);

		if (textfacts_add_range(tf, insn, insn + insn_len_at(img, dec, insn),
					RES_EXTABLE) ||
		    textfacts_add_target(tf, fixup))
			return gerr_set(e, "out of memory");
	}
	return 0;
}

/* Whether the alternatives table reads as entries of sz bytes: every entry
 * (up to the first 256) has its site and its replacement in the image. At
 * the wrong size the offsets are read from the wrong bytes within a few
 * entries and point nowhere. */
static bool alt_entries_fit(struct kimage *img, const struct table *t, size_t sz)
{
	if (t->len % sz)
		return false;
	for (size_t o = 0; o + sz <= t->len && o < 256 * sz; o += sz) {
		uint64_t site = t->addr + o + (uint64_t)(int64_t)rd32(t->p + o);
		uint64_t repl = t->addr + o + 4 + (uint64_t)(int64_t)rd32(t->p + o + 4);
		if (!kimage_ptr(img, site, 1) || !kimage_ptr(img, repl, 1))
			return false;
	}
	return true;
}

static int load_alternatives(struct textfacts *tf, struct kimage *img,
			     const struct symtab *st, struct gerr *e)
{
	struct table t;
	size_t sz = 0;

	/* struct alt_instr { s32 instr_offset; s32 repl_offset; FEATURE;
	 *                    u8 instrlen; u8 replacementlen; } __packed
	 * FEATURE is a u16 cpuid up to 6.2 (12 bytes), a u32 of cpuid and
	 * flags since (14 bytes, as in 6.12). */
	if (find_table(img, st, "__alt_instructions", "__alt_instructions_end", &t, e))
		return -1;
	if (alt_entries_fit(img, &t, 14))
		sz = 14;
	else if (alt_entries_fit(img, &t, 12))
		sz = 12;
	else
		return gerr_set(e, "__alt_instructions holds entries of neither 12 nor 14 bytes");
	for (size_t o = 0; o + sz <= t.len; o += sz) {
		uint64_t site = t.addr + o + (uint64_t)(int64_t)rd32(t.p + o);
		unsigned len = t.p[o + sz - 2];

		if (len && textfacts_add_range(tf, site, site + len, RES_ALTERNATIVE))
			return gerr_set(e, "out of memory");
	}
	return 0;
}

/* With IBT (6.12), __ibt_endbr_seal lists the endbr64s of functions never
 * called indirectly; at boot the kernel turns each into a 4-byte nop (even on
 * a CPU without IBT). Rewritten at boot, like an alternative: planned from
 * live bytes. A kernel without IBT has no such table. */
static int load_ibt_seal(struct textfacts *tf, struct kimage *img,
			 const struct symtab *st, struct gerr *e)
{
	const struct ksym *a;
	struct table t;

	if (symtab_by_name(st, "__ibt_endbr_seal", &a, 1) != 1)
		return 0;
	if (find_table(img, st, "__ibt_endbr_seal", "__ibt_endbr_seal_end", &t, e))
		return -1;
	return add_rel32_sites(tf, &t, 4, 4, RES_ALTERNATIVE, e);
}

/* Whether the bytes at b are the trap BUG() and WARN() compile to: x86's
 * ud2, arm64's brk #0x800 (BUG_BRK_IMM). */
static bool is_bug_trap(enum arch arch, const uint8_t *b)
{
	const struct arch_info *ai = arch_info(arch);

	return !memcmp(b, ai->bug_trap, ai->bug_trap_len);
}

/* Every BUG() and WARN() site: a trap the trap handler finds by address. */
static int load_bug_table(struct textfacts *tf, struct kimage *img,
			  const struct symtab *st, enum arch arch, struct gerr *e)
{
	unsigned trap_len = arch_info(arch)->bug_trap_len;
	struct table t;
	size_t esz = 0;

	/* struct bug_entry { s32 bug_addr_disp; [s32 file_disp; u16 line;]
	 *                    u16 flags; }: 12 bytes with BUGVERBOSE, else 8
	 * (the same on arm64). Take the size whose entries point at the trap:
	 * three in four of those sampled, not all, since a live snapshot may
	 * hold a splice's jmp over a trap (one removed while gilk started),
	 * and gilk must still start to list and remove it. An entry read with
	 * the wrong size points anywhere but at a trap. */
	if (find_table(img, st, "__start___bug_table", "__stop___bug_table", &t, e))
		return -1;
	for (size_t sz = 12; sz >= 8 && !esz; sz -= 4) {
		size_t ok = 0, n = 0;

		if (t.len % sz)
			continue;
		/* Entries into text that is not here (init text, freed after
		 * boot, in a live snapshot) say nothing either way. */
		for (size_t o = 0; o + sz <= t.len && n < 64; o += sz) {
			uint64_t a = t.addr + o + (uint64_t)(int64_t)rd32(t.p + o);
			const uint8_t *b = kimage_ptr(img, a, trap_len);

			if (!b)
				continue;
			n++;
			ok += is_bug_trap(arch, b);
		}
		if (n && 4 * ok >= 3 * n)
			esz = sz;
	}
	if (!esz)
		return t.len ? gerr_set(e, "__bug_table entries do not point at %s: unknown layout",
					arch_info(arch)->bug_trap_name) : 0;
	for (size_t o = 0; o + esz <= t.len; o += esz) {
		uint64_t a = t.addr + o + (uint64_t)(int64_t)rd32(t.p + o);
		uint16_t flags;

		memcpy(&flags, t.p + o + esz - 2 - (esz == 8 ? 2 : 0), 2);
		if (textfacts_add_bug(tf, a, trap_len, flags & 1)) /* BUGFLAG_WARNING */
			return gerr_set(e, "out of memory");
	}
	return 0;
}

static int add_section_range(struct textfacts *tf, const struct symtab *st,
			     const char *start_sym, const char *end_sym,
			     enum res_kind kind, struct gerr *e)
{
	const struct ksym *a, *b;

	if (symtab_by_name(st, start_sym, &a, 1) != 1 ||
	    symtab_by_name(st, end_sym, &b, 1) != 1)
		return gerr_set(e, "symbols %s/%s not found", start_sym, end_sym);
	if (b->addr > a->addr && textfacts_add_range(tf, a->addr, b->addr, kind))
		return gerr_set(e, "out of memory");
	return 0;
}

/* The retpoline and return thunks: every indirect call and return in the
 * kernel runs through them, and alternatives rewrite them at boot. Up to 6.1
 * the linker script brackets them with __indirect_thunk_start/_end; later
 * kernels (6.12) dropped the markers, so the range runs from the first
 * indirect thunk to the end of __x86_return_thunk, which ends their section
 * (srso, retbleed, ITS and call depth thunks lie between). */
static int load_thunks(struct textfacts *tf, const struct symtab *st, struct gerr *e)
{
	const struct ksym *a, *b;
	uint64_t start, end;

	if (symtab_by_name(st, "__indirect_thunk_start", &a, 1) == 1)
		return add_section_range(tf, st, "__indirect_thunk_start", "__indirect_thunk_end",
					 RES_BLACKLIST, e);
	if (symtab_by_name(st, "__x86_indirect_thunk_array", &a, 1) != 1 ||
	    symtab_by_name(st, "__x86_return_thunk", &b, 1) != 1)
		return 0;	/* a kernel built without retpolines */
	if (symtab_function(st, b->addr, NULL, &start, &end) || end <= a->addr)
		end = b->addr + 1;
	if (textfacts_add_range(tf, a->addr, end, RES_BLACKLIST))
		return gerr_set(e, "out of memory");
	return 0;
}

/* What arch_populate_kprobe_blacklist() and the generic kprobes code refuse
 * as a whole: text sections, bounded by symbols that outlive boot. */
static int load_blacklist_sections(struct textfacts *tf, const struct symtab *st,
				   enum arch arch, struct gerr *e)
{
	static const char *const sections[][2] = {
		{ "__noinstr_text_start", "__noinstr_text_end" },
		{ "__entry_text_start", "__entry_text_end" },
		{ "__kprobes_text_start", "__kprobes_text_end" },
		{ "__irqentry_text_start", "__irqentry_text_end" },
		{ "__softirqentry_text_start", "__softirqentry_text_end" },
	};

	const struct arch_info *ai = arch_info(arch);
	const struct ksym *a, *b;

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (add_section_range(tf, st, sections[i][0], sections[i][1], RES_BLACKLIST, e))
			return -1;
	/* the architecture's own, where the kernel has them */
	for (size_t i = 0; i < ai->nnoprobe_sections; i++)
		if (symtab_by_name(st, ai->noprobe_sections[i][0], &a, 1) == 1 &&
		    add_section_range(tf, st, ai->noprobe_sections[i][0],
				      ai->noprobe_sections[i][1], RES_BLACKLIST, e))
			return -1;
	/* Idle code: the idle tasks are not waited for by RCU-tasks, so a
	 * trampoline could be freed under a CPU idling in it. Kernels
	 * without the section have nothing to refuse here. */
	if (symtab_by_name(st, "__cpuidle_text_start", &a, 1) == 1 &&
	    symtab_by_name(st, "__cpuidle_text_end", &b, 1) == 1 && b->addr > a->addr &&
	    textfacts_add_range(tf, a->addr, b->addr, RES_IDLE))
		return gerr_set(e, "out of memory");
	return ai->thunks ? load_thunks(tf, st, e) : 0;
}

static int load_blacklist(struct textfacts *tf, struct kimage *img,
			  const struct symtab *st, enum arch arch, struct gerr *e)
{
	struct table t;

	if (load_blacklist_sections(tf, st, arch, e))
		return -1;
	/* NOKPROBE_SYMBOL(fn) records fn's address in _kprobe_blacklist. */
	if (find_table(img, st, "__start_kprobe_blacklist", "__stop_kprobe_blacklist", &t, e))
		return -1;
	for (size_t o = 0; o + 8 <= t.len; o += 8) {
		uint64_t fn = rd64(t.p + o), start, end;

		if (symtab_function(st, fn, NULL, &start, &end) || start != fn)
			continue;
		if (textfacts_add_range(tf, start, end, RES_BLACKLIST))
			return gerr_set(e, "out of memory");
	}
	return 0;
}

int textfacts_load_live(struct textfacts *tf, struct kimage *img,
			const struct symtab *st, struct decoder *dec, struct gerr *e)
{
	enum arch arch = decoder_arch(dec);

	if (load_jump_table(tf, img, st, dec, e) ||
	    (arch_info(arch)->static_calls && load_static_calls(tf, img, st, e)) ||
	    load_extable(tf, img, st, dec, e) || load_bug_table(tf, img, st, arch, e) ||
	    load_blacklist_sections(tf, st, arch, e))
		return -1;
	textfacts_finish(tf);
	return 0;
}

/* arm64 has no static calls (no HAVE_STATIC_CALL) and no IBT seal; its
 * alternatives, exception table and jump labels have x86's layouts. */
int textfacts_load(struct textfacts *tf, struct kimage *img,
		   const struct symtab *st, struct decoder *dec, struct gerr *e)
{
	enum arch arch = decoder_arch(dec);

	if (load_jump_table(tf, img, st, dec, e) ||
	    (arch_info(arch)->static_calls && load_static_calls(tf, img, st, e)) ||
	    load_mcount(tf, img, st, arch, e) ||
	    load_extable(tf, img, st, dec, e) ||
	    load_alternatives(tf, img, st, e) || load_ibt_seal(tf, img, st, e) ||
	    load_blacklist(tf, img, st, arch, e) || load_bug_table(tf, img, st, arch, e))
		return -1;
	textfacts_finish(tf);
	return 0;
}
