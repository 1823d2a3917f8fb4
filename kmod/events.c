// SPDX-License-Identifier: GPL-2.0
/*
 * Events: the kernel's lockless per-CPU ring_buffer (NMI-safe), not in
 * overwrite mode, so a full buffer refuses a write and the splice's lost
 * count goes up: lost events are counted, never silent. The hit path writes
 * them (hitpath.c), stamped with the task that ran the site and the
 * NMI-safe monotonic clock (ktime_get_ns() can spin forever in an NMI that
 * lands in a timekeeping update). read() on /dev/gilk drains whole events
 * (struct gilk_event + payload) from every CPU, after moving the inline tsc
 * template's rings into the buffer (tscring.c).
 */
#include <linux/mutex.h>
#include <linux/ring_buffer.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"
#include "compat.h"

#define GILK_BUFFER_BYTES (1 << 20)	/* per CPU */

/* the hit path writes it (hitpath.c) */
struct trace_buffer *gilk_events_rb;
/* One reader at a time peeks, copies out, and only then consumes. */
static DEFINE_MUTEX(reader_lock);

int gilk_events_init(void)
{
	gilk_events_rb = ring_buffer_alloc(GILK_BUFFER_BYTES, 0);
	return gilk_events_rb ? 0 : -ENOMEM;
}

void gilk_events_exit(void)
{
	ring_buffer_free(gilk_events_rb);
}

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

			e = ring_buffer_peek(gilk_events_rb, cpu, NULL, NULL);
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
			ring_buffer_consume(gilk_events_rb, cpu, NULL, NULL);
			done += n;
		}
	}
out:
	mutex_unlock(&reader_lock);
	return done ? done : ret;
}
