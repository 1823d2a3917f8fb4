// SPDX-License-Identifier: GPL-2.0
/*
 * Edges between a function and the compiler's .cold parts. GCC moves a
 * function's unlikely blocks into FUNC.cold, in .text.unlikely, anywhere in
 * the text; they jump back into the middle of FUNC (warn_bad_vsyscall.cold
 * to warn_bad_vsyscall+0x50), and FUNC jumps into their middle, not only to
 * their start (oops_end+0xbc to oops_end.cold+0xc, after an instruction
 * that falls through): edges the code checker, decoding a function and its
 * neighbours, does not see.
 *
 * The branches leaving a .cold part: the core kernel's are indexed once at
 * load, from every symbol kallsyms names with a .cold part; a module's are
 * decoded from its own symbol table when asked (as they come and go with
 * it, and a module has a few). Those are all kept, whatever function they
 * land in: a part is never matched to its function by name for them.
 *
 * The branches into a .cold part: from every function named as the part
 * without its .cold suffix (static functions share names, so all of them,
 * in the same module or the core kernel), decoded when a range in the
 * part is asked about. The core kernel's pairs of part and namesake are
 * found at load; decoding them all then would take seconds on a debug
 * kernel under emulation.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "gilk_internal.h"

struct gilk_site_index gilk_cold_targets;

/* A core kernel .cold part, and a function its name is the part's base of. */
struct cold_pair {
	unsigned long part, part_size, fn, fn_size;
};

static struct cold_pair *cold_pairs;	/* by part */
static size_t n_cold_pairs;

/*
 * A part: NAME.cold, or NAME.cold.N as older compilers number them. The
 * length of NAME, or 0.
 */
static size_t cold_base_len(const char *name)
{
	const char *c = strstr(name, ".cold");

	return c && c > name && (c[5] == 0 || c[5] == '.') ? c - name : 0;
}

static bool is_cold(const char *name)
{
	return cold_base_len(name);
}

/* The growing list of the branches leaving the core kernel's .cold parts. */
struct ulongs {
	unsigned long *a;
	size_t n, cap;
};

static int grow(void **a, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? 2 * *cap : 1024;
	void *b;

	if (n < *cap)
		return 0;
	b = kvmalloc_array(c, size, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	if (n)
		memcpy(b, *a, n * size);
	kvfree(*a);
	*a = b;
	*cap = c;
	return 0;
}

static int ulongs_add(void *ctx, unsigned long x)
{
	struct ulongs *l = ctx;

	if (grow((void **)&l->a, l->n, &l->cap, sizeof(*l->a)))
		return -ENOMEM;
	l->a[l->n++] = x;
	return 0;
}

static bool core_text(unsigned long a)
{
	return a >= (unsigned long)gilk_ks.stext && a < (unsigned long)gilk_ks.etext;
}

/* The core kernel's .cold parts at load: where, and their base names. */
struct cold_part {
	unsigned long addr;
	char *base;
};

struct parts {
	struct cold_part *a;
	size_t n, cap;
	struct cold_pair *pairs;	/* then the pairs found */
	size_t npairs, cappairs;
	bool pairing;			/* the second pass */
};

static int add_part(struct parts *p, const char *name, unsigned long addr)
{
	size_t len = cold_base_len(name);
	char *base;

	if (!len || !core_text(addr))
		return 0;
	base = kstrndup(name, len, GFP_KERNEL);
	if (!base || grow((void **)&p->a, p->n, &p->cap, sizeof(*p->a))) {
		kfree(base);
		return -ENOMEM;
	}
	p->a[p->n++] = (struct cold_part){ addr, base };
	return 0;
}

static int cmp_base(const void *a, const void *b)
{
	return strcmp(((const struct cold_part *)a)->base,
		      ((const struct cold_part *)b)->base);
}

/* Pairs each part named NAME.cold* with a function named NAME at addr. */
static int add_namesake(struct parts *p, const char *name, unsigned long addr)
{
	size_t lo = 0, hi = p->n, i;
	unsigned long size, off, psize;

	if (!core_text(addr) || is_cold(name))
		return 0;
	while (lo < hi) {	/* the first part whose base is not below name */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(p->a[mid].base, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < p->n && !strcmp(p->a[i].base, name); i++) {
		if (!gilk_ks.kallsyms_lookup_size_offset(addr, &size, &off) || off ||
		    !gilk_ks.kallsyms_lookup_size_offset(p->a[i].addr, &psize, &off) || off)
			continue;
		if (grow((void **)&p->pairs, p->npairs, &p->cappairs, sizeof(*p->pairs)))
			return -ENOMEM;
		p->pairs[p->npairs++] = (struct cold_pair){ p->a[i].addr, psize, addr, size };
	}
	return 0;
}

/* The first pass over kallsyms finds the parts, the second their namesakes. */
static int each_symbol(GILK_EACH_SYMBOL_PARAMS)
{
	struct parts *p = ctx;

	return p->pairing ? add_namesake(p, name, addr) : add_part(p, name, addr);
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static int cmp_pair(const void *a, const void *b)
{
	return cmp_ulong(&((const struct cold_pair *)a)->part,
			 &((const struct cold_pair *)b)->part);
}

int gilk_cold_index_init(void)
{
	struct ulongs targets = { 0 };
	struct parts parts = { 0 };
	unsigned long size, off;
	size_t i;
	int ret;

	ret = gilk_ks.kallsyms_on_each_symbol(each_symbol, &parts);
	for (i = 0; !ret && i < parts.n; i++) {
		if (gilk_ks.kallsyms_lookup_size_offset(parts.a[i].addr, &size, &off) && !off)
			ret = gilk_leaving_targets(parts.a[i].addr, parts.a[i].addr + size,
					   ulongs_add, &targets);
		cond_resched();
	}
	if (!ret) {
		sort(parts.a, parts.n, sizeof(*parts.a), cmp_base, NULL);
		parts.pairing = true;
		ret = gilk_ks.kallsyms_on_each_symbol(each_symbol, &parts);
	}
	for (i = 0; i < parts.n; i++)
		kfree(parts.a[i].base);
	kvfree(parts.a);
	if (!ret) {
		sort(parts.pairs, parts.npairs, sizeof(*parts.pairs), cmp_pair, NULL);
		cold_pairs = parts.pairs;
		n_cold_pairs = parts.npairs;
	} else {
		kvfree(parts.pairs);
	}
	if (!ret) {
		gilk_cold_targets.site = kvmalloc_array(targets.n ? targets.n : 1,
							sizeof(struct gilk_site), GFP_KERNEL);
		ret = gilk_cold_targets.site ? 0 : -ENOMEM;
	}
	if (!ret) {
		sort(targets.a, targets.n, sizeof(*targets.a), cmp_ulong, NULL);
		for (i = 0; i < targets.n; i++)
			if (!i || targets.a[i] != targets.a[i - 1])
				gilk_cold_targets.site[gilk_cold_targets.n++] =
					(struct gilk_site){ targets.a[i], 1 };
	}
	kvfree(targets.a);
	if (ret) {
		kvfree(cold_pairs);
		cold_pairs = NULL;
		n_cold_pairs = 0;
		pr_err("gilk: cannot index the kernel's .cold parts (%d)\n", ret);
	}
	return ret;
}

void gilk_cold_index_exit(void)
{
	kvfree(cold_pairs);
	cold_pairs = NULL;
	n_cold_pairs = 0;
	kvfree(gilk_cold_targets.site);
	gilk_cold_targets.site = NULL;
	gilk_cold_targets.n = 0;
}

struct landing {
	unsigned long lo, hi;
	struct gilk_facts *f;
	struct gilk_fact *out;
};

static int add_landing(void *ctx, unsigned long t)
{
	struct landing *l = ctx;

	if (t >= l->lo && t < l->hi)
		gilk_add_fact(l->f, l->out, t, t + 1, GILK_FACT_TARGET);
	return 0;
}

/* The branches of [fn, fn + size) into [lo, hi) of a part there. */
static void namesake_landings(struct landing *l, unsigned long part,
			      unsigned long part_size, unsigned long fn,
			      unsigned long size)
{
	struct landing in = *l;

	in.lo = max(l->lo, part);
	in.hi = min(l->hi, part + part_size);
	if (in.lo < in.hi)
		gilk_leaving_targets(fn, fn + size, add_landing, &in);
}

/*
 * The branches of a module's .cold parts that land in [lo, hi), and of the
 * namesakes of the parts in [lo, hi) into them. The module is held (and
 * live: its symbols stay as they are), so a big one's parts are decoded
 * one at a time with a reschedule point between them, not all with
 * preemption off.
 */
static void module_landings(const struct mod_kallsyms *ks, struct landing *l)
{
	unsigned int i, j;

	for (i = 0; i < ks->num_symtab; i++) {
		const Elf_Sym *sym = &ks->symtab[i];
		const char *name = ks->strtab + sym->st_name;
		size_t len = cold_base_len(name);

		if (ELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size || !len)
			continue;
		cond_resched();
		gilk_leaving_targets(sym->st_value, sym->st_value + sym->st_size, add_landing, l);
		if (sym->st_value >= l->hi || sym->st_value + sym->st_size <= l->lo)
			continue;
		for (j = 0; j < ks->num_symtab; j++) {
			const Elf_Sym *fn = &ks->symtab[j];
			const char *fname = ks->strtab + fn->st_name;

			if (ELF_ST_TYPE(fn->st_info) == STT_FUNC && fn->st_size &&
			    !strncmp(fname, name, len) && !fname[len])
				namesake_landings(l, sym->st_value, sym->st_size,
						  fn->st_value, fn->st_size);
		}
	}
}

/* The core kernel's parts in [lo, hi): the branches into them of their namesakes. */
static void core_landings(struct landing *l)
{
	size_t a = 0, b = n_cold_pairs;

	while (a < b) {		/* the first pair whose part ends past lo */
		size_t mid = a + (b - a) / 2;

		if (cold_pairs[mid].part + cold_pairs[mid].part_size <= l->lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < n_cold_pairs && cold_pairs[a].part < l->hi; a++) {
		namesake_landings(l, cold_pairs[a].part, cold_pairs[a].part_size,
				  cold_pairs[a].fn, cold_pairs[a].fn_size);
		cond_resched();	/* FACTS over .text.unlikely meets thousands */
	}
}

void gilk_cold_facts(struct gilk_facts *f, struct gilk_fact *out,
		     unsigned long lo, unsigned long hi)
{
	struct landing l = { lo, hi, f, out };
	const struct mod_kallsyms *ks;
	struct module *mod;

	preempt_disable();
	mod = gilk_ks.module_address(lo);
	/*
	 * a module not settled is refused whole (checks.c): no landings
	 * needed, and its init symbols may be freed under a walk of them
	 */
	if (mod && (!gilk_module_settled(mod) || !try_module_get(mod)))
		mod = ERR_PTR(-EBUSY);
	preempt_enable();
	if (!IS_ERR_OR_NULL(mod)) {
		/* a settled module's symbols are its core ones, kept while it is held */
		ks = rcu_dereference_raw(mod->kallsyms);
		module_landings(ks, &l);
		module_put(mod);
	}
	if (!mod) {
		gilk_site_facts(&gilk_cold_targets, lo, hi, GILK_FACT_TARGET, f, out);
		core_landings(&l);
	}
}
