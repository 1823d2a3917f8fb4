/*
 * A kernel booted to run on one CPU of several (maxcpus=1) patches every
 * lock prefix recorded in .smp_locks to a ds prefix, and back when a second
 * CPU comes online: alternatives_text_reserved() then answers for those
 * bytes. It takes its range's end as exclusive, and gilk.ko once passed an
 * inclusive one: FACTS, whose bisection asks about single bytes, never
 * reported a lock prefix, so the planner proposed regions over them and only
 * gilk.ko's own check (one byte short too) was left to refuse them.
 * tests/run's uniproc suite runs this in such a boot, gilk_target.ko loaded
 * (its gilk_target_smplock has a lock prefix at +3: smplock.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "guest.h"

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/* Whether FACTS on [lo, hi) reports a lock prefix at a. */
static int lock_fact(struct live *lv, uint64_t lo, uint64_t hi, uint64_t a)
{
	struct gilk_fact f[64];
	struct gilk_facts q = { .start = lo, .end = hi, .max = 64, .buf = (uintptr_t)f };

	if (ioctl(lv->fd, GILK_IOC_FACTS, &q))
		return 0;
	for (uint32_t i = 0; i < q.count && i < 64; i++)
		if (f[i].kind == GILK_RES_SMP_LOCK && f[i].start <= a && a < f[i].end)
			return 1;
	return 0;
}

static int prefix_at(struct live *lv, uint64_t a)
{
	uint8_t b = 0;
	struct gerr e;

	return live_read_mem(lv, a, &b, 1, &e) ? -1 : b;
}

void test_uniproc(struct live *lv)
{
	/* its layout (smplock.c): 20 bytes, the lock prefix at +3 */
	uint64_t fn = sym(lv, "gilk_target_smplock"), lock = fn + 3, end = fn + 20;
	struct splice_plan p;
	uint32_t id;
	struct gerr e;
	int ret;

	if (!fn) {
		check(0, "uniproc: gilk_target_smplock (is gilk_target.ko loaded?)");
		return;
	}
	check(prefix_at(lv, lock) == 0x3e && access(CPU1_ONLINE, W_OK) == 0,
	      "uniproc: one CPU of more runs the UP code: the lock prefix at gilk_target_smplock+3 is a ds (0x%02x)",
	      prefix_at(lv, lock));
	check(lock_fact(lv, fn, end, lock) && lock_fact(lv, lock, lock + 1, lock) &&
	      !lock_fact(lv, fn, lock, lock) && !lock_fact(lv, lock + 1, end, lock),
	      "uniproc: FACTS reports the lock prefix, over the function and over its one byte, and nowhere else");
	ret = live_plan(lv, fn, 0, &p, &e);
	/* 3 bytes before it: a bounce through padding, where the module's
	 * layout leaves some after the function, or a refusal saying why */
	check(ret ? p.reason_addr == lock && strstr(e.msg, "lock prefix") != NULL :
		    p.region.addr + p.region.len <= lock &&
		    (p.bounce_kind != BOUNCE_EVICT || p.evict.addr + p.evict.len <= lock ||
		     p.evict.addr > lock),
	      "uniproc: the planner stops the block's region at the lock prefix (%s)",
	      ret ? e.msg : p.bounce_kind == BOUNCE_PADDING ? "a bounce through padding" :
	      p.bounce_kind == BOUNCE_EVICT ? "a bounce through an eviction" : "a jmp");
	expect_refusal(lv, "uniproc: a forced splice over the lock prefix", lock, ETXTBSY,
		       "SMP alternatives site");

	/* The block after it spliced, a second CPU brought up: the kernel
	 * writes its lock prefix back beside the splice. */
	if (splice_at(lv, fn + 11, 0, "count", "", &id, &p)) {
		check(0, "uniproc: the block after the lock prefix spliced");
		return;
	}
	ret = write_file("/proc/gilk_target", "lock 41", 0);
	check(ret == 0 && target_result() == 42 && hits(lv, id) == 1,
	      "uniproc: the block after the lock prefix spliced and hit once (%ld)", target_result());
	ret = write_file(CPU1_ONLINE, "1", 0);
	check(ret == 0 && prefix_at(lv, lock) == 0xf0,
	      "uniproc: CPU 1 brought up (%s): the kernel puts the lock prefix back (0x%02x)",
	      strerror(-ret), prefix_at(lv, lock));
	ret = write_file("/proc/gilk_target", "lock 1", 0);
	check(ret == 0 && target_result() == 2 && hits(lv, id) == 2,
	      "uniproc: and the splice beside it still runs");
	ret = live_unsplice(lv, id, &e);
	check(ret == 0 && restored(lv, &p), "uniproc: unspliced, the original bytes (%s)",
	      ret ? e.msg : "ok");
}
