// SPDX-License-Identifier: GPL-2.0
/*
 * The rings of the inline tsc template (uapi gilk.h: struct gilk_tsc_ring):
 * one per splice that reserved it, written by trampolines without a call,
 * read here into the event buffer (events.c) as the tsc instrument's events
 * (struct gilk_tsc_event, the same payload its C function emits) when
 * /dev/gilk is read and before the splice's memory goes.
 *
 * A hit's time in ns is worked out here from its TSC, against a TSC and a
 * ktime_get_mono_fast_ns() read together at drain time: the trampoline has
 * no clock but the TSC (the older a hit when drained, the more the nominal
 * tsc_khz may be off the clock: tens of ppm).
 */
#include <linux/math64.h>
#include <linux/vmalloc.h>
#include <asm/tsc.h>

#include "gilk_internal.h"

#define SLOT_MASK (GILK_TSC_SLOTS - 1)

struct gilk_tsc_ring *gilk_tsc_ring_alloc(void)
{
	/* pages, not a kmalloc of the next power of 2 above 128 KiB */
	struct gilk_tsc_ring *r = vmalloc(sizeof(*r));
	u32 i;

	if (!r)
		return NULL;
	memset(r, 0, offsetof(struct gilk_tsc_ring, slot));
	for (i = 0; i < GILK_TSC_SLOTS; i++)
		r->slot[i] = (struct gilk_tsc_slot){ .begin = ~0ULL, .end = ~0ULL };
	return r;
}

void gilk_tsc_ring_free(struct gilk_tsc_ring *r)
{
	vfree(r);
}

/* What clock the TSCs of one drain are read against. */
struct tsc_clock {
	u64 tsc, ns;
};

static u64 tsc_to_ns(const struct tsc_clock *c, u64 tsc)
{
	s64 d = (s64)(c->tsc - tsc);	/* another CPU's TSC may be ahead */
	u64 ns = mul_u64_u32_div(d < 0 ? -d : d, 1000000, tsc_khz);

	return d < 0 ? c->ns + ns : c->ns - ns;
}

/*
 * Moves the splice's complete slots into the event buffer, from the one
 * expected next (s->tsc_tail). A slot still being written (or left torn by
 * a writer of an earlier lap, until the ring laps it) stops the drain,
 * unless final (no trampoline runs any more): then it is lost, as is every
 * slot a later lap wrote over. Under gilk_lock.
 */
void gilk_tsc_ring_drain(struct gilk_splice_obj *s, bool final)
{
	struct gilk_tsc_ring *r = s->tsc_ring;
	struct tsc_clock clock;
	u64 head, tail = s->tsc_tail;

	if (!r)
		return;
	lockdep_assert_held(&gilk_lock);
	head = READ_ONCE(r->head);
	if (head == tail)
		return;
	if (head - tail > GILK_TSC_SLOTS) {
		atomic64_add(head - GILK_TSC_SLOTS - tail, &s->lost);
		tail = head - GILK_TSC_SLOTS;
	}
	clock.tsc = rdtsc_ordered();
	clock.ns = ktime_get_mono_fast_ns();
	for (; tail != head; tail++) {
		struct gilk_tsc_slot *slot = &r->slot[tail & SLOT_MASK];
		struct gilk_tsc_event ev;
		u64 begin, end, cpu;

		/* the writer's order reversed: it stores begin, tsc and cpu, end */
		end = READ_ONCE(slot->end);
		smp_rmb();	/* end before the fields: pairs with the stores' order */
		ev.tsc = READ_ONCE(slot->tsc);
		cpu = READ_ONCE(slot->cpu);
		smp_rmb();	/* the fields before begin, as end before them */
		begin = READ_ONCE(slot->begin);
		/*
		 * end checks the fields: a writer of an earlier lap that
		 * stalled after its begin may have put its own tsc and cpu
		 * under this lap's begin and end
		 */
		if (begin == tail && end == (begin ^ ev.tsc ^ cpu) && cpu < nr_cpu_ids) {
			gilk_event_write_at(s, (int)cpu, tsc_to_ns(&clock, ev.tsc),
					    &ev, sizeof(ev));
		} else if ((s64)(begin - tail) > 0 || final) {
			atomic64_inc(&s->lost);	/* a later lap's, or never finished */
		} else {
			break;	/* being written: the next drain takes it */
		}
	}
	s->tsc_tail = tail;
}

void gilk_tsc_rings_drain(void)
{
	struct gilk_splice_obj *s;
	unsigned long id;

	mutex_lock(&gilk_lock);
	xa_for_each_marked(&gilk_splices, id, s, GILK_MARK_TSC_RING)
		gilk_tsc_ring_drain(s, false);
	mutex_unlock(&gilk_lock);
}

u64 gilk_tsc_ring_hits(const struct gilk_splice_obj *s)
{
	return s->tsc_ring ? READ_ONCE(s->tsc_ring->head) : 0;
}
