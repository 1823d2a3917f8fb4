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
#include <linux/err.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "gilk_internal.h"

#define SLOT_MASK (GILK_TSC_SLOTS - 1)
#define RING_PAGES DIV_ROUND_UP(sizeof(struct gilk_tsc_ring), PAGE_SIZE)

/*
 * The rings' memory is bounded: at 128 KiB a ring, a tsc batch over every
 * block of a subsystem (10^4 splices) would take more memory than a small
 * machine has (the debug kernel's torture ran out of it that way). Past
 * 1/32 of RAM, a ring is refused with EDQUOT, and user space splices the
 * rest with the tsc instrument called through the scratch template, whose
 * events go to the shared buffer.
 */
static atomic_long_t ring_pages;

static unsigned long ring_budget(void)
{
	return totalram_pages() / 32;
}

struct gilk_tsc_ring *gilk_tsc_ring_alloc(void)
{
	struct gilk_tsc_ring *r;
	u32 i;

	if (atomic_long_add_return(RING_PAGES, &ring_pages) > ring_budget()) {
		atomic_long_sub(RING_PAGES, &ring_pages);
		return ERR_PTR(-EDQUOT);
	}
	/* pages, not a kmalloc of the next power of 2 above 128 KiB */
	r = vmalloc(sizeof(*r));
	if (!r) {
		atomic_long_sub(RING_PAGES, &ring_pages);
		return ERR_PTR(-ENOMEM);
	}
	memset(r, 0, offsetof(struct gilk_tsc_ring, slot));
	for (i = 0; i < GILK_TSC_SLOTS; i++)
		r->slot[i] = (struct gilk_tsc_slot){ .begin = ~0ULL, .end = ~0ULL };
	return r;
}

void gilk_tsc_ring_free(struct gilk_tsc_ring *r)
{
	if (!r)
		return;
	vfree(r);
	atomic_long_sub(RING_PAGES, &ring_pages);
}

u64 gilk_tsc_rings_bytes(void)
{
	return (u64)atomic_long_read(&ring_pages) * PAGE_SIZE;
}

/* What clock the TSCs of one drain are read against. */
struct tsc_clock {
	u64 tsc, ns;
};

static u64 tsc_to_ns(const struct tsc_clock *c, u64 tsc)
{
	s64 d = (s64)(c->tsc - tsc);	/* another CPU's TSC may be ahead */
	u64 ns = mul_u64_u32_div(d < 0 ? -d : d, 1000000, gilk_arch_counter_khz());

	return d < 0 ? c->ns + ns : c->ns - ns;
}

/*
 * The task a slot's who names: the hit recorded only its pid, so its thread
 * group and name are looked up when drained, among the tasks alive and then
 * those that have exited (tasknames.c); one found in neither is marked
 * gone. A pid reused in between would name the new task, as in ftrace.
 * pid 0 is the CPU's idle task, which the kernel calls swapper/N.
 */
static void who_of(u64 word, struct gilk_who *w)
{
	u32 pc = GILK_WHO_PREEMPT(word);
	struct task_struct *t;

	memset(w, 0, sizeof(*w));
	w->tid = GILK_WHO_TID(word);
	w->context = pc & NMI_MASK ? GILK_CTX_NMI : pc & HARDIRQ_MASK ? GILK_CTX_IRQ :
		     pc & SOFTIRQ_OFFSET ? GILK_CTX_SOFTIRQ : GILK_CTX_TASK;
	if (!w->tid) {
		snprintf(w->comm, sizeof(w->comm), "swapper/%u", GILK_WHO_CPU(word));
		return;
	}
	rcu_read_lock();
	t = pid_task(find_pid_ns(w->tid, &init_pid_ns), PIDTYPE_PID);
	if (t) {
		w->pid = task_tgid_nr(t);
		get_task_comm(w->comm, t);
	}
	rcu_read_unlock();
	if (!t && !gilk_exited_task(w->tid, &w->pid, w->comm))
		w->gone = 1;
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
	clock.tsc = gilk_arch_counter();
	clock.ns = ktime_get_mono_fast_ns();
	for (; tail != head; tail++) {
		struct gilk_tsc_slot *slot = &r->slot[tail & SLOT_MASK];
		struct gilk_tsc_event ev;
		struct gilk_who w;
		u64 begin, end, who;

		/* the writer's order reversed: it stores begin, tsc and who, end */
		end = READ_ONCE(slot->end);
		smp_rmb();	/* end before the fields: pairs with the stores' order */
		ev.tsc = READ_ONCE(slot->tsc);
		who = READ_ONCE(slot->who);
		smp_rmb();	/* the fields before begin, as end before them */
		begin = READ_ONCE(slot->begin);
		/*
		 * end checks the fields: a writer of an earlier lap that
		 * stalled after its begin may have put its own tsc and who
		 * under this lap's begin and end
		 */
		if (begin == tail && end == (begin ^ ev.tsc ^ who) &&
		    GILK_WHO_CPU(who) < nr_cpu_ids) {
			who_of(who, &w);
			gilk_event_write_at(s, (int)GILK_WHO_CPU(who), tsc_to_ns(&clock, ev.tsc),
					    &w, &ev, sizeof(ev));
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
