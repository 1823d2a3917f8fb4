// SPDX-License-Identifier: GPL-2.0
/*
 * Where the compiler's .cold parts jump back to. GCC moves a function's
 * unlikely blocks into FUNC.cold, in .text.unlikely, anywhere in the text,
 * and they jump back into the middle of FUNC (warn_bad_vsyscall.cold to
 * warn_bad_vsyscall+0x50): an edge the code checker, decoding FUNC and its
 * neighbours, does not see. The core kernel's are indexed once at load,
 * from every symbol kallsyms names with a .cold part; a module's are decoded
 * from its own symbol table when asked (as they come and go with it, and a
 * module has a few). The
 * targets are those of every direct branch of a .cold part that leaves it,
 * whatever function it lands in: a part is never matched to its function
 * by name, since static functions share names.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "gilk_internal.h"
#include "verify.h"

struct gilk_site_index gilk_cold_targets;

/* A part: NAME.cold, or NAME.cold.N as older compilers number them. */
static bool is_cold(const char *name)
{
	const char *c = strstr(name, ".cold");

	return c && (c[5] == 0 || c[5] == '.');
}

/*
 * Calls add(ctx, target) for each direct branch of [lo, hi) that leaves it,
 * decoded from the text as it was before gilk and kprobes; a byte that does
 * not decode is stepped over. 0, or add()'s error.
 */
static int part_targets(unsigned long lo, unsigned long hi,
			int (*add)(void *ctx, unsigned long t), void *ctx)
{
	unsigned long a = lo, t;
	u8 buf[MAX_INSN_SIZE];
	struct insn in;
	int ret;

	while (a < hi) {
		size_t n = min_t(unsigned long, hi - a, sizeof(buf));

		if (gilk_text_read(a, buf, n))
			return 0;
		if (gilk_ks.insn_decode(&in, buf, n, INSN_MODE_KERN) || !in.length) {
			a++;
			continue;
		}
		if (gilk_branch_target(&in, a, &t) && (t < lo || t >= hi)) {
			ret = add(ctx, t);
			if (ret)
				return ret;
		}
		a += in.length;
	}
	return 0;
}

/* The growing list of the core kernel's .cold parts, then of their targets. */
struct ulongs {
	unsigned long *a;
	size_t n, cap;
};

static int ulongs_add(void *ctx, unsigned long x)
{
	struct ulongs *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		unsigned long *a = kvmalloc_array(cap, sizeof(*a), GFP_KERNEL);

		if (!a)
			return -ENOMEM;
		if (l->n)
			memcpy(a, l->a, l->n * sizeof(*a));
		kvfree(l->a);
		l->a = a;
		l->cap = cap;
	}
	l->a[l->n++] = x;
	return 0;
}

static bool core_text(unsigned long a)
{
	return a >= (unsigned long)gilk_ks.stext && a < (unsigned long)gilk_ks.etext;
}

#ifdef GILK_HAVE_KALLSYMS_EACH_MOD
static int each_symbol(void *ctx, const char *name, struct module *mod,
		       unsigned long addr)
#else
static int each_symbol(void *ctx, const char *name, unsigned long addr)
#endif
{
	return core_text(addr) && is_cold(name) ? ulongs_add(ctx, addr) : 0;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

int gilk_cold_index_init(void)
{
	struct ulongs parts = { 0 }, targets = { 0 };
	unsigned long size, off;
	size_t i;
	int ret;

	ret = gilk_ks.kallsyms_on_each_symbol(each_symbol, &parts);
	for (i = 0; !ret && i < parts.n; i++) {
		if (gilk_ks.kallsyms_lookup_size_offset(parts.a[i], &size, &off) && !off)
			ret = part_targets(parts.a[i], parts.a[i] + size, ulongs_add, &targets);
		cond_resched();
	}
	kvfree(parts.a);
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
	if (ret)
		pr_err("gilk: cannot index the kernel's .cold parts (%d)\n", ret);
	return ret;
}

void gilk_cold_index_exit(void)
{
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

void gilk_cold_facts(struct gilk_facts *f, struct gilk_fact *out,
		     unsigned long lo, unsigned long hi)
{
	struct landing l = { lo, hi, f, out };
	const struct mod_kallsyms *ks;
	struct module *mod;
	unsigned int i;

	preempt_disable();	/* keeps the module and its symbols while we read */
	mod = gilk_ks.module_address(lo);
	ks = mod ? rcu_dereference_sched(mod->kallsyms) : NULL;
	for (i = 0; ks && i < ks->num_symtab; i++) {
		const Elf_Sym *sym = &ks->symtab[i];

		if (ELF_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_size &&
		    is_cold(ks->strtab + sym->st_name))
			part_targets(sym->st_value, sym->st_value + sym->st_size,
				     add_landing, &l);
	}
	preempt_enable();
	if (!mod)
		gilk_site_facts(&gilk_cold_targets, lo, hi, GILK_FACT_TARGET, f, out);
}
