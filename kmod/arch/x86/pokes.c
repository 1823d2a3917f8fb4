// SPDX-License-Identifier: GPL-2.0
/*
 * Writes to kernel text, gathered: one text_poke() for each run of writes
 * within a page, not one for each write. Each text_poke() maps the page
 * into the poking mm and flushes the TLB after; a batch of a hundred
 * splices of one function writes a few pages some four hundred times.
 *
 * A run is the page as it will be from its first write to its last: the
 * bytes between two writes are read from the text and written back as they
 * are. That is safe where nothing else writes them meanwhile, which
 * text_mutex gives (every patcher of live kernel text holds it: kprobes,
 * ftrace, jump labels, static calls, BPF, text_poke_bp() itself): a queue
 * of gilk_pokes is flushed before text_mutex is dropped. A byte written
 * with the value it holds changes nothing for a CPU executing it, whatever
 * it fetched before or after; and text_poke() compares the whole run with
 * what it meant to write, so a byte changed behind text_mutex's back would
 * stop the kernel there rather than be undone quietly. The log below keeps
 * writes whose text_mutex hold is to come.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

void gilk_poke_locked(unsigned long addr, const void *bytes, size_t len)
{
	static unsigned int pokes;	/* text_mutex guards it */

	gilk_ks.text_poke((void *)addr, bytes, len);
	/* a batch may be 10^5 writes: not all without a reschedule point */
	if (!(++pokes % 256))
		cond_resched();
}

void gilk_text_fill(unsigned long addr, u8 c, size_t len)
{
	gilk_ks.text_poke_set((void *)addr, c, len);
}

void gilk_poke_sync(void)
{
	gilk_ks.text_poke_sync();
}

/* May sleep (text_mutex may be held): without the page, each write goes alone. */
void gilk_pokes_begin(struct gilk_pokes *pk)
{
	pk->page = kmalloc(PAGE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	pk->lo = 0;
	pk->hi = 0;
}

void gilk_pokes_end(struct gilk_pokes *pk)
{
	WARN_ON_ONCE(pk->hi > pk->lo);	/* a run left unwritten */
	kfree(pk->page);
	pk->page = NULL;
}

void gilk_pokes_flush(struct gilk_pokes *pk)
{
	lockdep_assert_held(gilk_ks.text_mutex);
	if (pk->hi > pk->lo)
		gilk_poke_locked(pk->lo, pk->page + offset_in_page(pk->lo), pk->hi - pk->lo);
	pk->lo = 0;
	pk->hi = 0;
}

/*
 * Whether [addr, addr + len) can join the run: later on its page, and the
 * bytes between read into it (only once the rest holds: the read fills
 * the page).
 */
static bool joins(struct gilk_pokes *pk, unsigned long addr, size_t len)
{
	return pk->hi > pk->lo && addr >= pk->hi &&
	       (addr & PAGE_MASK) == (pk->lo & PAGE_MASK) &&
	       offset_in_page(addr) + len <= PAGE_SIZE &&
	       !copy_from_kernel_nofault(pk->page + offset_in_page(pk->hi), (void *)pk->hi,
					 addr - pk->hi);
}

void gilk_pokes_add(struct gilk_pokes *pk, unsigned long addr, const void *bytes, size_t len)
{
	lockdep_assert_held(gilk_ks.text_mutex);
	if (!len)
		return;
	if (!joins(pk, addr, len)) {
		gilk_pokes_flush(pk);
		if (!pk->page || offset_in_page(addr) + len > PAGE_SIZE) {
			gilk_poke_locked(addr, bytes, len);	/* across pages: alone */
			return;
		}
		pk->lo = addr;
	}
	memcpy(pk->page + offset_in_page(addr), bytes, len);
	pk->hi = addr + len;
}

void gilk_pokes_sync(struct gilk_pokes *pk)
{
	gilk_pokes_flush(pk);
	gilk_poke_sync();
}

/*
 * The log: writes kept, with their bytes, until gilk_poke_log_write() takes
 * text_mutex once for all of them. A write that does not fit a full log
 * writes the log out first.
 */
struct gilk_poke_entry {
	unsigned long addr;
	u32 len;
	u8 bytes[];
};

#define GILK_POKE_LOG_SIZE (64 * 1024)

void gilk_poke_log_begin(struct gilk_poke_log *log)
{
	log->buf = kvmalloc(GILK_POKE_LOG_SIZE, GFP_KERNEL | __GFP_NOWARN);
	log->used = 0;
}

static size_t entry_size(size_t len)
{
	return ALIGN(sizeof(struct gilk_poke_entry) + len, sizeof(unsigned long));
}

void gilk_poke_log_write(struct gilk_poke_log *log)
{
	struct gilk_pokes pk;
	size_t at;

	if (!log->used)
		return;
	gilk_pokes_begin(&pk);
	mutex_lock(gilk_ks.text_mutex);
	for (at = 0; at < log->used;) {
		struct gilk_poke_entry *e = (void *)(log->buf + at);

		gilk_pokes_add(&pk, e->addr, e->bytes, e->len);
		at += entry_size(e->len);
	}
	gilk_pokes_flush(&pk);
	mutex_unlock(gilk_ks.text_mutex);
	gilk_pokes_end(&pk);
	log->used = 0;
}

void gilk_poke_log_add(struct gilk_poke_log *log, unsigned long addr, const void *bytes,
		       size_t len)
{
	struct gilk_poke_entry *e;

	if (!len)
		return;
	if (log->buf && log->used + entry_size(len) > GILK_POKE_LOG_SIZE)
		gilk_poke_log_write(log);
	if (!log->buf || entry_size(len) > GILK_POKE_LOG_SIZE) {
		mutex_lock(gilk_ks.text_mutex);
		gilk_poke_locked(addr, bytes, len);
		mutex_unlock(gilk_ks.text_mutex);
		return;
	}
	e = (void *)(log->buf + log->used);
	e->addr = addr;
	e->len = len;
	memcpy(e->bytes, bytes, len);
	log->used += entry_size(len);
}

/* Written out first, or dropped (drop: what it held is wanted no more). */
void gilk_poke_log_end(struct gilk_poke_log *log, bool drop)
{
	if (!drop)
		gilk_poke_log_write(log);
	kvfree(log->buf);
	log->buf = NULL;
	log->used = 0;
}
