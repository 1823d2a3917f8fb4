// SPDX-License-Identifier: GPL-2.0
/*
 * Trampoline memory. Chunks come from the module area (module_alloc or
 * execmem: within rel32 reach of all kernel text), filled with int3 and made
 * read-only and executable at once, so trampolines are only ever written
 * with text_poke. Trampolines are packed in them, each in as many 16-byte
 * units as it holds, first fit from the chunk the last one came from. A
 * freed trampoline is filled with int3 again before its units go back (a
 * stray jump into them traps, and the next one's unused bytes are never an
 * old trampoline); a chunk left empty goes back to the kernel, but for one
 * kept for the next splice. gilk_lock held throughout.
 */
#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gilk_internal.h"
#include "compat.h"

#define CHUNK_PAGES 16
#define CHUNK_SIZE (CHUNK_PAGES * PAGE_SIZE)
#define UNIT 16
#define UNITS (CHUNK_SIZE / UNIT)

struct chunk {
	struct list_head list;
	unsigned long mem;
	unsigned int used;	/* units handed out */
	DECLARE_BITMAP(map, UNITS);
};

static LIST_HEAD(chunks);
static struct chunk *cursor;	/* where the last trampoline went */
static unsigned long nchunks, units_used;

static struct chunk *chunk_new(void)
{
	struct chunk *c = kzalloc(sizeof(*c), GFP_KERNEL);
	void *p;

	if (!c)
		return NULL;
	p = gilk_exec_alloc(CHUNK_SIZE);
	if (!p) {
		kfree(c);
		return NULL;
	}
	memset(p, GILK_ARCH_FILL_BYTE, CHUNK_SIZE);
	/* not executable, a trampoline's first hit would oops: none at all */
	if (gilk_ks.set_memory_ro((unsigned long)p, CHUNK_PAGES) ||
	    gilk_ks.set_memory_x((unsigned long)p, CHUNK_PAGES)) {
		gilk_ks.module_memfree(p);
		kfree(c);
		return NULL;
	}
	c->mem = (unsigned long)p;
	list_add_tail(&c->list, &chunks);
	nchunks++;
	return c;
}

static void chunk_free(struct chunk *c)
{
	list_del(&c->list);
	if (cursor == c)
		cursor = NULL;
	gilk_ks.module_memfree((void *)c->mem);
	kfree(c);
	nchunks--;
}

static unsigned long take(struct chunk *c, unsigned int units)
{
	unsigned long at;

	if (UNITS - c->used < units)
		return 0;
	at = bitmap_find_next_zero_area(c->map, UNITS, 0, units, 0);
	if (at >= UNITS)
		return 0;
	bitmap_set(c->map, at, units);
	c->used += units;
	units_used += units;
	cursor = c;
	return c->mem + at * UNIT;
}

unsigned long gilk_tramp_alloc(size_t size)
{
	unsigned int units = DIV_ROUND_UP(size, UNIT);
	struct chunk *c;
	unsigned long a;

	if (!size || size > CHUNK_SIZE)
		return 0;
	if (cursor) {
		a = take(cursor, units);
		if (a)
			return a;
	}
	list_for_each_entry(c, &chunks, list) {
		a = take(c, units);
		if (a)
			return a;
	}
	c = chunk_new();
	return c ? take(c, units) : 0;
}

static struct chunk *chunk_of(unsigned long addr)
{
	struct chunk *c;

	list_for_each_entry(c, &chunks, list)
		if (addr >= c->mem && addr < c->mem + CHUNK_SIZE)
			return c;
	return NULL;
}

/* Only once nothing can run there any more (after its grace period). */
void gilk_tramp_free(unsigned long addr, size_t size)
{
	unsigned int units = DIV_ROUND_UP(size, UNIT);
	struct chunk *c = chunk_of(addr);
	struct chunk *other;

	if (WARN_ON_ONCE(!c || !size))
		return;
	gilk_text_fill(addr, GILK_ARCH_FILL_BYTE, units * UNIT);
	bitmap_clear(c->map, (addr - c->mem) / UNIT, units);
	c->used -= units;
	units_used -= units;
	if (c->used)
		return;
	/* Empty: one empty chunk is kept, any other goes back. */
	list_for_each_entry(other, &chunks, list)
		if (other != c && !other->used) {
			chunk_free(c);
			return;
		}
}

void gilk_tramp_stats(u64 *used, u64 *mapped)
{
	*used = (u64)units_used * UNIT;
	*mapped = (u64)nchunks * CHUNK_SIZE;
}

/*
 * At unload. A chunk still in use holds an abandoned splice's trampoline,
 * which may still run: its memory stays (see gilk_abandon()).
 */
void gilk_trampmem_exit(void)
{
	struct chunk *c, *n;

	list_for_each_entry_safe(c, n, &chunks, list) {
		if (!c->used) {
			chunk_free(c);
			continue;
		}
		list_del(&c->list);
		kfree(c);
	}
	cursor = NULL;
}
