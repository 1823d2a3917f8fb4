/* An offline kernel for planning (see kernel.h). */
#include "kernel.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "kernel_internal.h"
#include "switch_arm64.h"
#include "u64set.h"

static void find_rodata(struct kernel *k);

/* An arm64 kernel whose tables are not known (kernel.h): no text facts. */
int kernel_no_facts(struct kernel *k, struct gerr *e)
{
	k->no_tables = true;
	k->facts = textfacts_new();
	if (!k->facts)
		return gerr_set(e, "out of memory");
	textfacts_finish(k->facts);
	return 0;
}

int kernel_open(struct kernel *k, const char *image, const char *symbols,
		struct gerr *e)
{
	uint64_t size;

	memset(k, 0, sizeof(*k));
	if (kimage_open(image, &k->img, e))
		goto fail;
	if (kimage_kind(k->img) == KIMAGE_KCORE) {
		/* The running kernel, read-only: as live mode sees it. */
		kimage_close(k->img);
		k->img = NULL;
		return kernel_open_live(k, image, symbols, NULL, e);
	}
	k->arch = kimage_arch(k->img);
	if (symtab_load(symbols, &k->syms, e) || decoder_open_arch(&k->dec, k->arch, e))
		goto fail;
	if (arch_info(k->arch)->open_image) {
		if (arch_info(k->arch)->open_image(k, image, e))
			goto fail;
		find_rodata(k);
		return 0;
	}
	if (kimage_section(k->img, ".text", &k->text_start, &size)) {
		gerr_set(e, "%s has no .text section", image);
		goto fail;
	}
	k->text_end = k->text_start + size;
	if (symtab_function(k->syms, k->text_start, NULL, NULL, NULL)) {
		gerr_set(e, "%s has no function at the image's .text (0x%llx): do the symbols belong to this image, booted with nokaslr?",
			 symbols, (unsigned long long)k->text_start);
		goto fail;
	}
	k->facts = textfacts_new();
	if (!k->facts) {
		gerr_set(e, "out of memory");
		goto fail;
	}
	if (textfacts_load(k->facts, k->img, k->syms, k->dec, e))
		goto fail;
	find_rodata(k);
	return 0;
fail:
	kernel_close(k);
	return -1;
}

int kernel_symbol_addr(const struct symtab *st, const char *name, uint64_t *a,
		       struct gerr *e)
{
	const struct ksym *s;

	if (symtab_by_name(st, name, &s, 1) != 1)
		return gerr_set(e, "the kernel has no symbol %s (are kallsyms addresses hidden? run as root)", name);
	if (!s->addr)
		return gerr_set(e, "%s reads as 0: kallsyms addresses are hidden (kptr_restrict); run as root", name);
	*a = s->addr;
	return 0;
}

/* .rodata's bounds and the image's end, where the symbols give them
 * (System.map and kallsyms both do; without them a computed goto's targets
 * are not looked for). */
static void find_rodata(struct kernel *k)
{
	const struct ksym *a, *b;

	if (symtab_by_name(k->syms, "__start_rodata", &a, 1) == 1 &&
	    symtab_by_name(k->syms, "__end_rodata", &b, 1) == 1 && a->addr < b->addr) {
		k->rodata_start = a->addr;
		k->rodata_end = b->addr;
	}
	if (symtab_by_name(k->syms, "_end", &a, 1) == 1)
		k->image_end = a->addr;
}

/*
 * __mcount_loc, the list of ftrace sites, is init data, gone after boot. A
 * traceable function starts with its 5-byte site: a nop5, or a call to
 * __fentry__ while traced; under IBT (6.12) after its endbr64, or the nop4
 * a sealed endbr64 becomes at boot. Marking every such entry is
 * conservative (a plain nop5 there is only spliced past); gilk.ko's facts
 * add the rest.
 */
static int mark_ftrace_entries(struct kernel *k, struct gerr *e)
{
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t sealed[] = { 0x66, 0x0f, 0x1f, 0x00 };
	const struct ksym *fentry;
	uint64_t fentry_addr = 0;
	size_t n = symtab_functions(k->syms, k->text_start, k->text_end, NULL, 0);
	const struct ksym **f = malloc((n ? n : 1) * sizeof(*f));

	if (!f)
		return gerr_set(e, "out of memory");
	if (symtab_by_name(k->syms, "__fentry__", &fentry, 1) == 1)
		fentry_addr = fentry->addr;
	symtab_functions(k->syms, k->text_start, k->text_end, f, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = f[i]->addr;
		const uint8_t *b = kimage_ptr(k->img, a, 9);
		int32_t rel;

		if (!b && !(b = kimage_ptr(k->img, a, 5)))
			continue;
		if (kimage_ptr(k->img, a, 9) &&
		    (!memcmp(b, endbr64, 4) || !memcmp(b, sealed, 4))) {
			a += 4;
			b += 4;
		}
		memcpy(&rel, b + 1, 4);
		if ((!memcmp(b, nop5, 5) ||
		     (b[0] == 0xe8 && fentry_addr &&
		      a + 5 + (uint64_t)(int64_t)rel == fentry_addr)) &&
		    textfacts_add_range(k->facts, a, a + 5, RES_FTRACE)) {
			free(f);
			return gerr_set(e, "out of memory");
		}
	}
	free(f);
	textfacts_finish(k->facts);
	return 0;
}

int kernel_open_live(struct kernel *k, const char *kcore, const char *symbols,
		     const struct kernel_restore *restore, struct gerr *e)
{
	static const char *const tables[][2] = {
		{ "__start___jump_table", "__stop___jump_table" },
		{ "__start_static_call_sites", "__stop_static_call_sites" },
		{ "__start___ex_table", "__stop___ex_table" },
		{ "__start___bug_table", "__stop___bug_table" },
	};
	struct kimage *src = NULL;

	memset(k, 0, sizeof(*k));
	if (kimage_open(kcore, &src, e))
		goto fail;
	k->arch = kimage_arch(src);
	if (symtab_load(symbols, &k->syms, e) || decoder_open_arch(&k->dec, k->arch, e) ||
	    kernel_symbol_addr(k->syms, "_stext", &k->text_start, e) ||
	    kernel_symbol_addr(k->syms, "_etext", &k->text_end, e) ||
	    kimage_new_snapshot(&k->img, e) ||
	    kimage_copy_range(k->img, src, ".text", k->text_start,
			      k->text_end - k->text_start, e))
		goto fail;
	if (!arch_info(k->arch)->live_tables) {
		/* read, not planned: kallsyms bounds no tables (kernel.h),
		 * and no gilk.ko answers for them */
		k->kcore = src;
		src = NULL;
		find_rodata(k);
		if (kernel_no_facts(k, e))
			goto fail;
		return 0;
	}
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		uint64_t a, b;

		if (kernel_symbol_addr(k->syms, tables[i][0], &a, e) ||
		    kernel_symbol_addr(k->syms, tables[i][1], &b, e))
			goto fail;
		if (b > a && kimage_copy_range(k->img, src, tables[i][0], a, b - a, e))
			goto fail;
	}
	k->kcore = src;
	src = NULL;
	if (restore && restore->fn(restore->ctx, k->img, e))
		goto fail;
	find_rodata(k);
	k->facts = textfacts_new();
	if (!k->facts) {
		gerr_set(e, "out of memory");
		goto fail;
	}
	if (textfacts_load_live(k->facts, k->img, k->syms, k->dec, e) ||
	    mark_ftrace_entries(k, e))
		goto fail;
	return 0;
fail:
	kimage_close(src);
	kernel_close(k);
	return -1;
}

void kernel_close(struct kernel *k)
{
	kimage_close(k->img);
	kimage_close(k->kcore);
	symtab_free(k->syms);
	textfacts_free(k->facts);
	decoder_close(k->dec);
	free(k->scratch);
	kernel_text_changed(k);
	memset(k, 0, sizeof(*k));
}

/*
 * Assembly jumps between its functions, to a label past another symbol's
 * start (copy_user_generic_unrolled into copy_user_short_string): the
 * branches of the symbols starting within NEIGHBOUR_REACH either side that
 * land in [fstart, fend) are targets too. gilk.ko's checker looks as far
 * (kmod/arch/x86/verify.c), and refuses a region over one.
 */

static int scratch_push(struct kernel *k, uint64_t a)
{
	if (k->nscratch == k->capscratch) {
		size_t cap = k->capscratch ? k->capscratch * 2 : 64;
		uint64_t *p = realloc(k->scratch, cap * sizeof(*p));

		if (!p)
			return -1;
		k->scratch = p;
		k->capscratch = cap;
	}
	k->scratch[k->nscratch++] = a;
	return 0;
}

/*
 * A whole-kernel scan plans every function, and each one's neighbours are
 * some 60 functions around it: decoding them anew for each would decode the
 * kernel 60 times over (an offline scan took 8 times objdump's time). The
 * core kernel's bytes do not change under a struct kernel (an image, or
 * live a snapshot), so each function's direct branch targets outside
 * itself are kept, in a table indexed by its address's bits above the 16-byte alignment: a
 * neighbourhood, some 16 KiB, maps to distinct slots. Module text is
 * decoded anew.
 */
#define NB_MEMO 1024

struct nb_memo {
	uint64_t cs, ce;
	uint64_t *t;
	size_t n, cap;
};

/* The slot of the function starting at cs (NULL before the first). */
static struct nb_memo *memo_slot(const struct kernel *k, uint64_t cs)
{
	return k->memo ? &k->memo[(cs >> 4) % NB_MEMO] : NULL;
}

static const struct nb_memo *memo_targets(struct kernel *k, uint64_t cs, uint64_t ce,
					  const uint8_t *code)
{
	struct nb_memo *m;
	size_t j = 0;

	if (!k->memo && !(k->memo = calloc(NB_MEMO, sizeof(*k->memo))))
		return NULL;
	m = memo_slot(k, cs);
	if (m->cs == cs && m->ce == ce)
		return m;
	m->cs = m->ce = 0;
	m->n = 0;
	if (cfg_collect_targets(k->dec, code, cs, ce, 0, UINT64_MAX, &m->t, &m->n, &m->cap))
		return NULL;
	/* its own branches land in no other function: only the rest is kept */
	for (size_t i = 0; i < m->n; i++)
		if (m->t[i] < cs || m->t[i] >= ce)
			m->t[j++] = m->t[i];
	m->n = j;
	m->cs = cs;
	m->ce = ce;
	return m;
}

void kernel_text_changed(struct kernel *k)
{
	if (k->memo)
		for (size_t i = 0; i < NB_MEMO; i++)
			free(k->memo[i].t);
	free(k->memo);
	k->memo = NULL;
}

static int neighbour_targets(struct kernel *k, const struct ksym *self, uint64_t fstart,
			     uint64_t fend)
{
	const struct ksym *nb[64];
	size_t n = symtab_functions(k->syms, fstart - NEIGHBOUR_REACH, fend + NEIGHBOUR_REACH,
				    nb, 64);

	for (size_t i = 0; i < n && i < 64; i++) {
		const struct nb_memo *m;
		uint64_t cs, ce;
		const uint8_t *code;

		if (nb[i]->addr == self->addr)
			continue;
		/* a neighbour met before: its bounds and targets are kept (each
		 * function is some 60 others' neighbour) */
		m = memo_slot(k, nb[i]->addr);
		if (!m || m->cs != nb[i]->addr || !m->ce) {
			m = NULL;
			if (symtab_function(k->syms, nb[i]->addr, NULL, &cs, &ce) ||
			    cs != nb[i]->addr)
				continue;
			if (ce - cs > NEIGHBOUR_SPAN)
				ce = cs + NEIGHBOUR_SPAN;
			code = kimage_ptr(k->img, cs, (size_t)(ce - cs));
			if (!code)
				continue;
			if (cs < k->text_start || ce > k->text_end) {
				if (cfg_collect_targets(k->dec, code, cs, ce, fstart, fend,
							&k->scratch, &k->nscratch,
							&k->capscratch))
					return -1;
				continue;
			}
			m = memo_targets(k, cs, ce, code);
			if (!m)
				return -1;
		}
		for (size_t j = 0; j < m->n; j++)
			if (m->t[j] >= fstart && m->t[j] < fend && scratch_push(k, m->t[j]))
				return -1;
	}
	return 0;
}

/* A word of kernel data: from the image, or live from kcore. */
static int read_word(struct kernel *k, uint64_t a, uint64_t *w)
{
	struct gerr e;

	return kimage_read(k->img, a, w, sizeof(*w), &e) &&
	       (!k->kcore || kimage_read(k->kcore, a, w, sizeof(*w), &e)) ? -1 : 0;
}

/*
 * A computed goto (___bpf_prog_run's `goto *jumptable[op]`) loads its
 * target from a table of absolute addresses, [table + index*8], and jumps
 * through the register (a retpoline thunk): no decoder sees those edges.
 * The table is a core kernel function's in .rodata (where GCC puts a
 * `static const` one), a module function's in module memory. It is read
 * from its first word while they are text or 0 (a label left out; 64 in a
 * row are zeroed data, the end); those
 * in the function are its targets, and those in its .cold part the part's
 * (namesake_targets()). A table of function pointers adds none, or the
 * function's own start. gilk.ko's checker reads the same tables
 * (gilk_table_words() in kmod/arch/x86/verify.c).
 */

static bool table_data(const struct kernel *k, uint64_t func, uint64_t t)
{
	if (func >= k->text_start && func < k->text_end)
		return t >= k->rodata_start && t < k->rodata_end;
	return k->image_end && t >= k->image_end;
}

static bool is_text(const struct kernel *k, uint64_t a)
{
	uint64_t s, e;

	return (a >= k->text_start && a < k->text_end) ||
	       (k->image_end && a >= k->image_end && symtab_function(k->syms, a, NULL, &s, &e) == 0);
}

/* The words of the table at t that the function at func loads, landing in
 * [lo, hi), into k->scratch (a 0 is a label the table leaves out): how
 * many, or -1; *too_long when TABLE_MAX of them were all labels. */
static ssize_t table_words(struct kernel *k, uint64_t func, uint64_t t, uint64_t lo, uint64_t hi,
			   bool *too_long)
{
	ssize_t added = 0;
	size_t zeros = 0, j;
	uint64_t w;

	if (!table_data(k, func, t))
		return 0;
	for (j = 0; j < TABLE_MAX && zeros < TABLE_GAP_MAX; j++) {
		if (read_word(k, t + 8 * j, &w))
			break;
		if (!w) {
			zeros++;
			continue;
		}
		zeros = 0;
		if (!is_text(k, w))
			break;
		if (w < lo || w >= hi)
			continue;
		if (scratch_push(k, w))
			return -1;
		added++;
	}
	if (j == TABLE_MAX && zeros < TABLE_GAP_MAX)
		*too_long = true;
	return added;
}

static ssize_t table_targets(struct kernel *k, const struct cfg *g, bool *too_long)
{
	uint64_t last = 0;
	ssize_t added = 0;

	for (size_t i = 0; i < g->ninsn; i++) {
		uint64_t t = g->insns[i].table;
		ssize_t n;

		if (!t || t == last)
			continue;
		last = t;
		n = table_words(k, g->start, t, g->start, g->end, too_long);
		if (n < 0)
			return -1;
		added += n;
	}
	return added;
}

/*
 * A .cold part's function jumps into its middle, not only to its start
 * (oops_end+0xbc to oops_end.cold+0xc, after an instruction that falls
 * through), and its computed goto's table may land there: the branches
 * and table words into [fstart, fend) of every function named as the part
 * without its .cold suffix, in the same module, are targets (static
 * functions share names: all of them). gilk.ko finds the same
 * (kmod/coldparts.c). Live, a module's are in gilk.ko's facts.
 */
static int namesake_targets(struct kernel *k, const struct ksym *part, uint64_t fstart,
			    uint64_t fend)
{
	const char *c = strstr(part->name, ".cold");
	const struct ksym **fn;
	char base[512];
	size_t n;
	int ret = 0;

	if (!c || c == part->name || (c[5] && c[5] != '.') ||
	    (size_t)(c - part->name) >= sizeof(base))
		return 0;
	memcpy(base, part->name, (size_t)(c - part->name));
	base[c - part->name] = '\0';
	n = symtab_by_name(k->syms, base, NULL, 0);
	fn = n ? malloc(n * sizeof(*fn)) : NULL;
	if (!fn)
		return n ? -1 : 0;
	symtab_by_name(k->syms, base, fn, n);
	for (size_t i = 0; i < n && !ret; i++) {
		uint64_t fs, fe, last = 0;
		const uint8_t *code;
		bool too_long = false;	/* the namesake's own splices are refused */
		struct insn in;

		if ((fn[i]->module == NULL) != (part->module == NULL) ||
		    (fn[i]->module && strcmp(fn[i]->module, part->module)) ||
		    symtab_function(k->syms, fn[i]->addr, NULL, &fs, &fe) || fs != fn[i]->addr)
			continue;
		code = kimage_ptr(k->img, fs, (size_t)(fe - fs));
		if (!code)
			continue;
		if (cfg_collect_targets(k->dec, code, fs, fe, fstart, fend, &k->scratch,
					&k->nscratch, &k->capscratch))
			ret = -1;
		for (uint64_t a = fs; a < fe && !ret; a += in.len) {
			if (decode_one(k->dec, code + (a - fs), (size_t)(fe - a), a, &in)) {
				in.len = 1;
				continue;
			}
			if (in.table && in.table != last &&
			    table_words(k, fs, in.table, fstart, fend, &too_long) < 0)
				ret = -1;
			last = in.table ? in.table : last;
		}
	}
	free(fn);
	return ret;
}

/* The image's bytes for an architecture's read_switch(). */
static const uint8_t *image_bytes(void *ctx, uint64_t addr, size_t len)
{
	const struct kernel *k = ctx;

	return kimage_ptr(k->img, addr, len);
}

/* Functions of the kernel declared __noreturn that the compiler calls with
 * other code right after (the stack protector's failure path ends a
 * function so), as objtool lists them for x86. */
static const char *const noreturn_functions[] = {
	"__stack_chk_fail", "panic", "do_exit", "do_group_exit", "make_task_dead",
	"kthread_exit", "__module_put_and_kthread_exit", "usercopy_abort",
	"__ubsan_handle_builtin_unreachable", "fortify_panic", "__fortify_panic",
	"panic_bad_stack", "arm64_serror_panic", "cpu_die",
};

static bool never_returns(void *ctx, uint64_t target)
{
	const struct kernel *k = ctx;
	const struct ksym *s = symtab_by_addr(k->syms, target);

	for (size_t i = 0; s && s->addr == target &&
	     i < sizeof(noreturn_functions) / sizeof(noreturn_functions[0]); i++)
		if (!strcmp(s->name, noreturn_functions[i]))
			return true;
	return false;
}

int kernel_cfg(struct kernel *k, uint64_t start, struct cfg *g, struct gerr *e)
{
	const struct ksym *sym, *cold[8];
	uint64_t fstart, fend;
	const uint64_t *ft;
	const uint8_t *code;
	size_t ncold, nft;
	bool too_long = false;
	ssize_t added;

	if (symtab_function(k->syms, start, &sym, &fstart, &fend) || fstart != start)
		return gerr_set(e, "0x%llx is not the start of a function",
				(unsigned long long)start);
	if (start < k->text_end && fend > k->text_end)
		fend = k->text_end;
	code = kimage_ptr(k->img, fstart, (size_t)(fend - fstart));
	if (!code)
		return gerr_set(e, "the image holds no bytes for %s", sym->name);
	k->nscratch = 0;
	nft = textfacts_targets(k->facts, fstart, fend, &ft);
	for (size_t i = 0; i < nft; i++)
		if (scratch_push(k, ft[i]))
			return gerr_set(e, "out of memory");
	ncold = symtab_cold_parts(k->syms, sym->name, cold, 8);
	for (size_t i = 0; i < ncold && i < 8; i++) {
		uint64_t cs, ce;
		const uint8_t *cc;

		if (symtab_function(k->syms, cold[i]->addr, NULL, &cs, &ce))
			continue;
		cc = kimage_ptr(k->img, cs, (size_t)(ce - cs));
		if (cc && cfg_collect_targets(k->dec, cc, cs, ce, fstart, fend,
					      &k->scratch, &k->nscratch,
					      &k->capscratch))
			return gerr_set(e, "out of memory");
	}
	if (neighbour_targets(k, sym, fstart, fend) || namesake_targets(k, sym, fstart, fend))
		return gerr_set(e, "out of memory");
	if (cfg_build(g, k->dec, code, fstart, fend, k->scratch, k->nscratch, e))
		return -1;
	/* built again, rarely, with a computed goto's targets */
	added = table_targets(k, g, &too_long);
	if (added < 0)
		return gerr_set(e, "out of memory");
	if (added && cfg_build(g, k->dec, code, fstart, fend, k->scratch, k->nscratch, e))
		return -1;
	/* a table longer than is read: labels unseen, as gilk.ko refuses */
	if (too_long)
		g->jump_table = true;
	if (g->jump_table && arch_info(k->arch)->read_switch)
		return arch_info(k->arch)->read_switch(k->dec, g, code, k->scratch, k->nscratch,
					 &(struct switch_image){ image_bytes, never_returns, k }, e);
	return 0;
}

static int window_get(struct kernel *k, struct cfg_window *w, uint64_t start,
		      const struct cfg **out, struct gerr *e)
{
	size_t victim = 0;

	for (size_t i = 0; i < WINDOW_MAX; i++) {
		if (w->cfgs[i].end && w->cfgs[i].start == start) {
			w->used[i] = ++w->clock;
			*out = &w->cfgs[i];
			return 0;
		}
		if (w->used[i] < w->used[victim])
			victim = i;
	}
	w->used[victim] = ++w->clock;
	w->cfgs[victim].end = 0;
	if (kernel_cfg(k, start, &w->cfgs[victim], e)) {
		w->cfgs[victim].end = 0;
		return -1;
	}
	*out = &w->cfgs[victim];
	return 0;
}

int kernel_window(struct kernel *k, uint64_t addr, uint64_t reach,
		  struct cfg_window *w, struct gerr *e)
{
	return kernel_window_over(k, addr, addr, reach, w, e);
}

int kernel_window_over(struct kernel *k, uint64_t lo, uint64_t hi, uint64_t reach,
		       struct cfg_window *w, struct gerr *e)
{
	uint64_t fstart, fend, a;
	const struct cfg *g;

	w->nview = 0;
	if (symtab_function(k->syms, lo, NULL, &fstart, &fend))
		return gerr_set(e, "0x%llx is not inside a kernel function",
				(unsigned long long)lo);
	if (hi >= fend)
		return gerr_set(e, "0x%llx..0x%llx runs past the function",
				(unsigned long long)lo, (unsigned long long)hi);
	if (window_get(k, w, fstart, &g, e))
		return -1;
	w->view[w->nview++] = g;
	/* Neighbours below, then above, while within reach; as many above
	 * whatever the number below, so that a wider window's views above
	 * start with a narrower one's. */
	a = fstart;
	while (w->nview < WINDOW_MAX / 2 && a > lo - reach) {
		uint64_t s, en;

		if (symtab_function(k->syms, a - 1, NULL, &s, &en) || en != a)
			break;
		if (window_get(k, w, s, &g, e) == 0)
			w->view[w->nview++] = g;
		a = s;
	}
	a = fend;
	for (size_t above = 0; above < WINDOW_MAX / 2 && a < hi + reach && a < k->text_end;
	     above++) {
		uint64_t s, en;

		if (symtab_function(k->syms, a, NULL, &s, &en) || s != a)
			break;
		if (window_get(k, w, s, &g, e) == 0)
			w->view[w->nview++] = g;
		a = en;
	}
	return 0;
}

void window_free(struct cfg_window *w)
{
	for (size_t i = 0; i < WINDOW_MAX; i++)
		cfg_free(&w->cfgs[i]);
	memset(w, 0, sizeof(*w));
}

void kernel_env(const struct kernel *k, const struct cfg_window *w,
		struct splice_env *env)
{
	memset(env, 0, sizeof(*env));
	env->cfgs = w->view;
	env->ncfg = w->nview;
	env->facts = k->facts;
	env->arch = k->arch;
	env->no_tables = k->no_tables;
	env->tramp_hint = arch_info(k->arch)->tramp_hint(k->text_end);
}
