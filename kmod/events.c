// SPDX-License-Identifier: GPL-2.0
/*
 * Events: the kernel's lockless per-CPU ring_buffer (NMI-safe), stamped
 * with the task that ran the site and the NMI-safe monotonic clock (ktime_get_ns() can spin forever in an
 * NMI that lands in a timekeeping update), not in
 * overwrite mode, so a full buffer refuses a write and the splice's lost
 * count goes up: lost events are counted, never silent. read() on /dev/gilk
 * drains whole events (struct gilk_event + payload) from every CPU, after
 * moving the inline tsc template's rings into the buffer (tscring.c).
 */
#include <linux/hardirq.h>
#include <linux/mutex.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"
#include "compat.h"

#define GILK_EVENT_MAX 4000
#define GILK_BUFFER_BYTES (1 << 20)	/* per CPU */

static struct trace_buffer *rb;
/* One reader at a time peeks, copies out, and only then consumes. */
static DEFINE_MUTEX(reader_lock);

int gilk_events_init(void)
{
	rb = ring_buffer_alloc(GILK_BUFFER_BYTES, 0);
	return rb ? 0 : -ENOMEM;
}

void gilk_events_exit(void)
{
	ring_buffer_free(rb);
}

struct gilk_splice_obj *gilk_hit_splice(const struct gilk_ctx *ctx)
{
	return container_of(ctx, struct gilk_hit, ctx)->s;
}

/*
 * The task at the site, and whether an interrupt of it runs there. Inline
 * reads only: this is the hit path, in any context up to NMI. The name is
 * copied without task_lock(), as ftrace records it: a rename at that very
 * moment may show half of each.
 */
static void who_now(struct gilk_who *w)
{
	struct task_struct *t = current;

	w->tid = t->pid;
	w->pid = t->tgid;
	w->context = in_nmi() ? GILK_CTX_NMI : in_hardirq() ? GILK_CTX_IRQ :
		     in_serving_softirq() ? GILK_CTX_SOFTIRQ : GILK_CTX_TASK;
	w->gone = 0;
	memcpy(w->comm, t->comm, sizeof(w->comm));
	w->comm[sizeof(w->comm) - 1] = '\0';
}

int gilk_event_write(struct gilk_splice_obj *s, int cpu, const void *p, u16 len)
{
	struct gilk_who who;

	who_now(&who);
	/* NMI-safe: splices run in NMIs */
	return gilk_event_write_at(s, cpu, ktime_get_mono_fast_ns(), &who, p, len);
}

int gilk_event_write_at(struct gilk_splice_obj *s, int cpu, u64 ns,
			const struct gilk_who *who, const void *p, u16 len)
{
	struct ring_buffer_event *e;
	struct gilk_event *h;

	if (len > GILK_EVENT_MAX)
		return -EINVAL;
	e = ring_buffer_lock_reserve(rb, sizeof(*h) + len);
	if (!e) {
		atomic64_inc(&s->lost);
		return -ENOSPC;
	}
	h = ring_buffer_event_data(e);
	h->ns = ns;
	h->splice = s->id;
	h->cpu = cpu;
	h->len = len;
	h->tid = who->tid;
	h->pid = who->pid;
	h->context = who->context;
	h->task_gone = who->gone;
	memset(h->pad, 0, sizeof(h->pad));
	memcpy(h->comm, who->comm, sizeof(h->comm));
	memcpy(h + 1, p, len);
	gilk_rb_unlock_commit(rb, e);
	return 0;
}

int gilk_emit(const struct gilk_ctx *ctx, const void *payload, u16 len)
{
	return gilk_event_write(gilk_hit_splice(ctx), ctx->cpu, payload, len);
}
EXPORT_SYMBOL_GPL(gilk_emit);

/*
 * An event is consumed only once it is copied out: a fault on the user's
 * buffer loses nothing (the next read gets it). The reader's page of the
 * ring stays as it is until consumed; writers add to other pages.
 */
ssize_t gilk_events_read(char __user *buf, size_t len)
{
	ssize_t ret = 0;
	size_t done = 0;
	int cpu;

	gilk_tsc_rings_drain();
	mutex_lock(&reader_lock);
	for_each_online_cpu(cpu) {
		for (;;) {
			struct ring_buffer_event *e;
			struct gilk_event *h;
			size_t n;

			e = ring_buffer_peek(rb, cpu, NULL, NULL);
			if (!e)
				break;
			h = ring_buffer_event_data(e);
			n = sizeof(*h) + h->len;
			if (n > len - done) {
				ret = -EINVAL;
				goto out;
			}
			if (copy_to_user(buf + done, h, n)) {
				ret = -EFAULT;
				goto out;
			}
			ring_buffer_consume(rb, cpu, NULL, NULL);
			done += n;
		}
	}
out:
	mutex_unlock(&reader_lock);
	return done ? done : ret;
}
