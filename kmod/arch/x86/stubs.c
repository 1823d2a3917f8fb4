// SPDX-License-Identifier: GPL-2.0
/*
 * gilk's stubs for the kernel helpers it finds through kallsyms
 * (ksym_stubs.S, ksym_stubs.h say why): each a jmp rel32, past an endbr64
 * where IBT puts one, pointed at its helper once at load.
 */
#include <linux/mm.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/sync_core.h>

#include "gilk_internal.h"

static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

/*
 * The stub's rel32 is written through a second, writable mapping of its page
 * (as text_poke() does), because text_poke() itself is still to be found.
 * No CPU has run the stub yet, and each is serialised before any does.
 */
static void serialize_cpu(void *unused)
{
	sync_core();
}

int gilk_arch_point_stub(char *stub, unsigned long target, const char *name)
{
	u8 *jmp = (u8 *)stub;
	s64 rel;
	s32 rel32;
	struct page *page;
	void *map;

	if (!memcmp(jmp, endbr64, sizeof(endbr64)))
		jmp += sizeof(endbr64);
	rel = (s64)target - (s64)(unsigned long)(jmp + 5);
	if (jmp[0] != 0xe9 || rel != (s32)rel) {
		pr_err("gilk: cannot reach %s at %pS from gilk.ko's stub %pS\n",
		       name, (void *)target, stub);
		return -ERANGE;
	}
	rel32 = rel;
	page = vmalloc_to_page(jmp + 1);
	map = page ? vmap(&page, 1, VM_MAP, PAGE_KERNEL) : NULL;
	if (!map)
		return -ENOMEM;
	memcpy(map + offset_in_page(jmp + 1), &rel32, sizeof(rel32));
	vunmap(map);
	if (memcmp(jmp + 1, &rel32, sizeof(rel32))) {
		pr_err("gilk: the stub for %s did not take its target\n", name);
		return -EIO;
	}
	return 0;
}

void gilk_arch_stubs_sync(void)
{
	on_each_cpu(serialize_cpu, NULL, 1);
}
