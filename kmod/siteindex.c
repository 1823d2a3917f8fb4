// SPDX-License-Identifier: GPL-2.0
/*
 * Where the core kernel's jump label and static call sites are, sorted by
 * address, built once at load from the same tables the kernel's predicates
 * read. The kernel's predicates (jump_label_text_reserved() and
 * static_call_text_reserved()) walk every site the kernel has for each question (tens of thousands of jump
 * labels), which made FACTS and each splice's checks slow; the index
 * answers by binary search, as they would: a site reserves its instruction
 * (a jump label's is 2 or 5 bytes, decoded as arch_jump_entry_size() does;
 * a static call's is a 5-byte call), and sites in init text, which the
 * predicates skip after boot, are left out. The jump labels' targets are
 * indexed too (a byte each), for the code checker's edges into a splice, and
 * so are the landings of the exception fixups, which may lie in another
 * function than their instructions. Module text is not indexed: its sites
 * come and go with the module, and its own tables answer for it.
 */
#include <linux/extable.h>
#include <linux/jump_label.h>
#include <asm/extable.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call_types.h>

#include "gilk_internal.h"

struct gilk_site_index gilk_jump_sites, gilk_static_sites, gilk_jump_targets;
struct gilk_site_index gilk_fixup_targets;

static int cmp_addr(const void *a, const void *b)
{
	const struct gilk_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int index_alloc(struct gilk_site_index *idx, size_t n)
{
	idx->site = kvmalloc_array(n ? n : 1, sizeof(*idx->site), GFP_KERNEL);
	idx->n = 0;
	return idx->site ? 0 : -ENOMEM;
}

static void index_add(struct gilk_site_index *idx, unsigned long addr, u32 len)
{
	idx->site[idx->n++] = (struct gilk_site){ addr, len };
}

int gilk_site_index_init(void)
{
	const struct jump_entry *j = gilk_ks.start_jump_table;
	const struct static_call_site *sc = gilk_ks.start_static_call_sites;
	const struct exception_table_entry *ex = gilk_ks.start_ex_table;
	size_t i, nj = gilk_ks.stop_jump_table - j;
	size_t ns = gilk_ks.stop_static_call_sites - sc;
	size_t ne = gilk_ks.stop_ex_table - ex;

	if (index_alloc(&gilk_jump_sites, nj) || index_alloc(&gilk_static_sites, ns) ||
	    index_alloc(&gilk_jump_targets, nj) || index_alloc(&gilk_fixup_targets, ne)) {
		gilk_site_index_exit();
		return -ENOMEM;
	}
	for (i = 0; i < nj; i++)
		if (!jump_entry_is_init(&j[i])) {
			index_add(&gilk_jump_sites, jump_entry_code(&j[i]),
				  gilk_jump_site_len(jump_entry_code(&j[i])));
			index_add(&gilk_jump_targets, jump_entry_target(&j[i]), 1);
		}
	for (i = 0; i < ns; i++)
		if (!(((long)&sc[i].key + sc[i].key) & STATIC_CALL_SITE_INIT))
			index_add(&gilk_static_sites, (long)&sc[i].addr + sc[i].addr,
				  GILK_ARCH_STATIC_CALL_LEN);
	for (i = 0; i < ne; i++)
		index_add(&gilk_fixup_targets, (unsigned long)&ex[i].fixup + ex[i].fixup, 1);
	sort(gilk_jump_sites.site, gilk_jump_sites.n, sizeof(struct gilk_site), cmp_addr, NULL);
	sort(gilk_static_sites.site, gilk_static_sites.n, sizeof(struct gilk_site), cmp_addr, NULL);
	sort(gilk_jump_targets.site, gilk_jump_targets.n, sizeof(struct gilk_site), cmp_addr, NULL);
	sort(gilk_fixup_targets.site, gilk_fixup_targets.n, sizeof(struct gilk_site), cmp_addr, NULL);
	return 0;
}

void gilk_site_index_exit(void)
{
	kvfree(gilk_jump_sites.site);
	kvfree(gilk_static_sites.site);
	kvfree(gilk_jump_targets.site);
	kvfree(gilk_fixup_targets.site);
	gilk_jump_sites.site = gilk_static_sites.site = gilk_jump_targets.site = NULL;
	gilk_fixup_targets.site = NULL;
}

/* The first site that may reach lo: sites are at most GILK_SITE_SPAN long. */
static size_t sites_from(const struct gilk_site_index *idx, unsigned long lo)
{
	size_t a = 0, b = idx->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (idx->site[m].addr + GILK_SITE_SPAN <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

void gilk_site_facts(const struct gilk_site_index *idx, unsigned long lo,
		     unsigned long hi, u32 kind, struct gilk_facts *f,
		     struct gilk_fact *out)
{
	size_t i;

	for (i = sites_from(idx, lo); i < idx->n && idx->site[i].addr < hi; i++) {
		unsigned long s = max(lo, idx->site[i].addr);
		unsigned long e = min(hi, idx->site[i].addr + idx->site[i].len);

		if (s < e)
			gilk_add_fact(f, out, s, e, kind);
	}
}
