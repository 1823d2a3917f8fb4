// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregations (uapi gilk.h, struct gilk_agg): a count splice's hits
 * counted per key, or a value's histogram per key, in a map per CPU,
 * exact however fast the hits come (events, past the buffer, are lost).
 *
 * A map is written only by its own CPU's hits, inside the hit path's
 * recursion guard (gilk_entry() in hitpath.c): one writer at a time, so
 * no lock and no atomic. A hit that interrupts another on the same CPU
 * (an NMI) is the guard's, counted as nested, never here. Readers on
 * other CPUs (GILK_IOC_AGG_READ) see a slot once its key is written: the
 * key first, then the count that makes the slot used, after a write
 * barrier. Slots are never freed while the splice lives: a key once
 * counted keeps its slot, and a reader subtracts to count from a moment.
 * A stack key (stackwalk.c walks it) keeps the stack's frames in its slot,
 * written with the key, and a hit matches a slot only frame for frame.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#include "gilk_internal.h"

/*
 * Every aggregation's maps together, at most GILK_AGG_TOTAL_MAX: a batch
 * of many splices, each within its own bound, must not take the memory
 * the kernel lives on.
 */
#define GILK_AGG_TOTAL_MAX (256ull << 20)
static atomic64_t agg_bytes;

struct gilk_agg_map {
	struct gilk_agg spec;
	u32 slot_len;
	u32 nbuckets;
	u32 nframes;		/* a stack key's room for frames; else 0 */
	/* a fetched key: its value's offset and length in the fetched bytes */
	u32 fetch_off, fetch_len;
	u8 fetch_bit;
	bool fetch_string;
	u64 bytes;		/* every CPU's map, counted in agg_bytes */
	u64 __percpu *dropped;
	void *cpu[];		/* nr_cpu_ids maps; NULL for a CPU that cannot be */
};

static int bad(struct gilk_why *why, const char *what)
{
	return gilk_refuse(why, GILK_REFUSED_BAD_AGG, "aggregation: %s", what);
}

static bool number_field(u8 f)
{
	return f < GILK_FF_NFIELDS && f != GILK_FF_COMM &&
	       (f <= GILK_FF_CONTEXT || f >= GILK_FF_REGS);
}

static bool size_valid(u8 n)
{
	return n == 0 || n == 1 || n == 2 || n == 4 || n == 8;
}

static bool fetched_key(u8 key)
{
	return key >= GILK_AGG_KEY_FETCH && key < GILK_AGG_KEY_FETCH + GILK_FETCH_MAX;
}

/* Whether value i of fetch f is a string. */
static bool fetched_string(const struct gilk_fetch *f, u32 i)
{
	const struct gilk_fetch_value *v = &f->value[i];

	return v->nsteps && v->nsteps <= GILK_FETCH_STEPS &&
	       v->step[v->nsteps - 1].op == GILK_FSTEP_STRING;
}

int gilk_agg_check(const struct gilk_agg *a, const struct gilk_instrument *ins,
		   const struct gilk_fetch *fetch, struct gilk_why *why)
{
	u64 bytes;

	if (!a->kind) {
		if (memchr_inv(a, 0, sizeof(*a)))
			return bad(why, "no kind, and a field that is not 0");
		return 0;
	}
	if (a->kind >= GILK_AGG_NKINDS || memchr_inv(a->pad, 0, sizeof(a->pad)))
		return bad(why, "an unknown kind, or reserved bytes that are not 0");
	/* an instrument that records events has its answers there */
	if (strcmp(ins->name, "count") || ins->owner != THIS_MODULE)
		return bad(why, "only count aggregates: it records no events");
	if (a->key != GILK_AGG_KEY_NONE && a->key != GILK_AGG_KEY_STACK &&
	    a->key != GILK_FF_COMM && !number_field(a->key) && !fetched_key(a->key))
		return bad(why, "an unknown key field");
	/* the fetch is checked before: its len is at most GILK_FETCH_MAX */
	if (fetched_key(a->key) && a->key - GILK_AGG_KEY_FETCH >= fetch->len)
		return bad(why, "a fetched key the splice does not fetch");
	if (fetched_key(a->key) && fetched_string(fetch, a->key - GILK_AGG_KEY_FETCH) &&
	    (a->key_show || a->key_size))
		return bad(why, "a fetched string key shown as a number");
	if (a->key == GILK_AGG_KEY_STACK && (a->key_show || a->key_size))
		return bad(why, "a stack key shown as a number");
	if (a->key_show >= GILK_FSHOW_STRING || a->value_show >= GILK_FSHOW_STRING ||
	    !size_valid(a->key_size) || !size_valid(a->value_size))
		return bad(why, "a key or value shown in a way or a size it cannot have");
	if (a->kind == GILK_AGG_COUNT ? a->value != 0 : !number_field(a->value))
		return bad(why, "a value field it cannot have");
	if (!a->keys || a->keys > GILK_AGG_KEYS_MAX || (a->keys & (a->keys - 1)))
		return bad(why, "keys is not a power of two up to 65536");
	if (a->kind == GILK_AGG_LHIST ?
	    !a->buckets || a->buckets > GILK_AGG_LHIST_MAX || !a->step :
	    a->buckets || a->step || a->min)
		return bad(why, "linear buckets it cannot have");
	if (!memchr(a->text, 0, sizeof(a->text)))
		return bad(why, "its text is not NUL-terminated");
	bytes = (u64)gilk_agg_slot_len(a) * a->keys * num_possible_cpus();
	if (bytes > GILK_AGG_BYTES_MAX)
		return gilk_refuse(why, GILK_REFUSED_BAD_AGG,
				   "aggregation: %u keys of %u bytes on %u CPUs is %llu MiB, more than %u",
				   a->keys, gilk_agg_slot_len(a), num_possible_cpus(),
				   bytes >> 20, GILK_AGG_BYTES_MAX >> 20);
	if (atomic64_read(&agg_bytes) + bytes > GILK_AGG_TOTAL_MAX)
		return gilk_refuse(why, GILK_REFUSED_BAD_AGG,
				   "aggregation: gilk.ko's maps hold %llu MiB; %llu more would pass %llu",
				   (u64)atomic64_read(&agg_bytes) >> 20, bytes >> 20,
				   GILK_AGG_TOTAL_MAX >> 20);
	return 0;
}

void gilk_agg_free(struct gilk_agg_map *m)
{
	unsigned int cpu;

	if (!m)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		kvfree(m->cpu[cpu]);
	free_percpu(m->dropped);
	atomic64_sub(m->bytes, &agg_bytes);
	kvfree(m);
}

struct gilk_agg_map *gilk_agg_keep(const struct gilk_agg *a, const struct gilk_fetch *fetch)
{
	/* many CPUs make a large array: kvzalloc, as the maps */
	struct gilk_agg_map *m = kvzalloc(struct_size(m, cpu, nr_cpu_ids), GFP_KERNEL);
	/* charged to the asker, and a failure rather than the OOM killer */
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN;
	unsigned int cpu;

	if (!m)
		return NULL;
	m->spec = *a;
	if (fetched_key(a->key)) {
		u32 i, k = a->key - GILK_AGG_KEY_FETCH;

		m->fetch_off = 8;	/* past the fault bits */
		for (i = 0; i < k; i++)
			m->fetch_off += gilk_fetch_value_len(&fetch->value[i]);
		m->fetch_len = gilk_fetch_value_len(&fetch->value[k]);
		m->fetch_bit = k;
		m->fetch_string = fetched_string(fetch, k);
	}
	m->slot_len = gilk_agg_slot_len(a);
	m->nbuckets = gilk_agg_buckets(a);
	m->nframes = gilk_agg_frames(a);
	m->bytes = (u64)m->slot_len * a->keys * num_possible_cpus();
	atomic64_add(m->bytes, &agg_bytes);
	m->dropped = alloc_percpu(u64);
	if (!m->dropped)
		goto fail;
	for_each_possible_cpu(cpu) {
		m->cpu[cpu] = kvzalloc_node((size_t)m->slot_len * a->keys, gfp, cpu_to_node(cpu));
		if (!m->cpu[cpu])
			goto fail;
	}
	return m;
fail:
	gilk_agg_free(m);
	return NULL;
}

/*
 * A register holding a value narrower than 8 bytes has undefined bits
 * above it (the x86-64 ABI): the value alone, sign-extended when signed,
 * so that one int is one key. The hit path's: inline, as everything here.
 */
static __always_inline u64 sized(u64 v, u8 size, u8 show)
{
	unsigned int drop = 64 - 8 * size;

	if (!size || size >= 8)
		return v;
	if (show == GILK_FSHOW_SIGNED)
		return (u64)((s64)(v << drop) >> drop);
	return v & (~0ull >> drop);
}

/*
 * The stack's hash over its frames, and its depth: frames that differ make
 * another key almost always, and the frames themselves are compared too.
 */
static __always_inline void stack_key(const u64 *frames, u32 n, bool more, u64 key[2])
{
	u64 h = n;
	u32 i;

	for (i = 0; i < n; i++)
		h = (h ^ frames[i]) * 0x9e3779b97f4a7c15ull;
	key[0] = h ^ (h >> 31);
	key[1] = n | (u64)more << 32;
}

/*
 * A fetched value as a key: a number by its size, a string's first bytes
 * (the fetch zeroed what follows its NUL), one not read GILK_AGG_KEY_FAULT
 * in the last byte.
 */
static __always_inline void fetched_key_of(const struct gilk_agg_map *m, const u8 *fetched,
					   u64 key[2])
{
	u8 *k = (u8 *)key;
	u64 faults, v;

	if (fetched)
		memcpy(&faults, fetched, sizeof(faults));
	if (!fetched || (faults >> m->fetch_bit) & 1) {
		k[GILK_AGG_KEY_LEN - 1] = GILK_AGG_KEY_FAULT;
		return;
	}
	if (m->fetch_string) {
		/* its slot is zeroed past its NUL: a longer one is cut */
		memcpy(k, fetched + m->fetch_off, min_t(u32, GILK_AGG_KEY_LEN - 1, m->fetch_len));
		return;
	}
	memcpy(&v, fetched + m->fetch_off, sizeof(v));
	key[0] = sized(v, m->spec.key_size, m->spec.key_show);
}

/* The hit path's: inline, nothing a splice or a kprobe can be on. */
static __always_inline void key_of(const struct gilk_agg_map *m, const struct pt_regs *regs,
				   const u8 *fetched, u64 key[2], u64 *frames, u32 *nframes)
{
	u8 f = m->spec.key;
	bool more;

	BUILD_BUG_ON(TASK_COMM_LEN - 1 > GILK_AGG_KEY_LEN);
	key[0] = 0;
	key[1] = 0;
	if (f == GILK_AGG_KEY_STACK) {
		*nframes = gilk_stack(regs, frames, GILK_AGG_STACK_FRAMES, &more);
		stack_key(frames, *nframes, more, key);
	} else if (f == GILK_FF_COMM) {
		/* unlocked, as events read it: a rename now shows half of each */
		char *c = (char *)key;
		int i;

		for (i = 0; i < TASK_COMM_LEN - 1; i++)
			c[i] = READ_ONCE(current->comm[i]);
	} else if (fetched_key(f)) {
		fetched_key_of(m, fetched, key);
	} else if (f != GILK_AGG_KEY_NONE) {
		key[0] = sized(gilk_hit_field(f, regs), m->spec.key_size, m->spec.key_show);
	}
}

static __always_inline u32 bucket_of(const struct gilk_agg_map *m, u64 v)
{
	u64 steps;

	if (m->spec.kind == GILK_AGG_HIST)
		return fls64(v);	/* 0 for 0, i for [2^(i-1), 2^i) */
	if ((s64)v < m->spec.min)
		return 0;
	/* v - min as unsigned: exact, v being at least min */
	steps = (v - (u64)m->spec.min) / m->spec.step;
	return steps >= m->nbuckets - 2 ? m->nbuckets - 1 : 1 + (u32)steps;
}

/* A stack key's frames as walked, before a slot is found for them. */
struct agg_frames {
	u64 frame[GILK_AGG_STACK_FRAMES];
};
static DEFINE_PER_CPU(struct agg_frames, agg_frames);

/* A slot's frames, after its buckets (a stack key's only). */
static __always_inline u64 *frames_of(const struct gilk_agg_map *m, struct gilk_agg_slot *slot)
{
	return slot->bucket + m->nbuckets;
}

notrace void gilk_agg_add(struct gilk_agg_map *m, const struct pt_regs *regs, const u8 *fetched)
{
	struct gilk_agg_slot *slot;
	u8 *map = m->cpu[raw_smp_processor_id()];
	/* inside the guard: the CPU's frames have one writer, off the stack */
	u64 key[2], v = 0, h, *frames = this_cpu_ptr(&agg_frames)->frame;
	u32 mask = m->spec.keys - 1, i, k, nframes = 0;

	key_of(m, regs, fetched, key, frames, &nframes);
	if (m->spec.kind != GILK_AGG_COUNT)
		v = sized(gilk_hit_field(m->spec.value, regs), m->spec.value_size,
			  m->spec.value_show);
	/* a multiplicative hash of both words: pids and names spread */
	h = (key[0] * 0x9e3779b97f4a7c15ull) ^ (key[1] * 0xc2b2ae3d27d4eb4full);
	h ^= h >> 29;
	for (i = 0; i < GILK_AGG_PROBES && i <= mask; i++) {
		slot = (struct gilk_agg_slot *)(map + (size_t)((h + i) & mask) * m->slot_len);
		if (!slot->count) {
			memcpy(slot->key, key, sizeof(slot->key));
			if (nframes)
				memcpy(frames_of(m, slot), frames, nframes * sizeof(u64));
			slot->min = v;
			slot->max = v;
			/* the key before the count that shows the slot used:
			 * pairs with the reader's smp_rmb() in copy_map()
			 */
			smp_wmb();
		} else if (memcmp(slot->key, key, sizeof(slot->key)) ||
			   (nframes && memcmp(frames_of(m, slot), frames, nframes * sizeof(u64)))) {
			continue;
		}
		if (m->spec.kind != GILK_AGG_COUNT) {
			k = bucket_of(m, v);
			WRITE_ONCE(slot->bucket[k], slot->bucket[k] + 1);
			WRITE_ONCE(slot->sum, slot->sum + v);
			if (v < slot->min)
				WRITE_ONCE(slot->min, v);
			if (v > slot->max)
				WRITE_ONCE(slot->max, v);
		}
		WRITE_ONCE(slot->count, slot->count + 1);
		return;
	}
	this_cpu_inc(*m->dropped);
}
NOKPROBE_SYMBOL(gilk_agg_add);

/*
 * One CPU's map, under gilk_lock (the splice cannot go meanwhile), into a
 * kernel buffer: slot by slot, each read once its count says it is used,
 * the way the hit wrote it.
 */
static u32 copy_map(const struct gilk_agg_map *m, unsigned int cpu, u8 *out, u32 max)
{
	const u8 *map = m->cpu[cpu];
	u32 i, n = 0;

	for (i = 0; i < m->spec.keys; i++) {
		const struct gilk_agg_slot *slot = (const void *)(map + (size_t)i * m->slot_len);
		u64 count = READ_ONCE(slot->count);

		if (!count)
			continue;
		/* the key after the count: pairs with the hit's smp_wmb() */
		smp_rmb();
		if (n < max) {
			struct gilk_agg_slot *to = (void *)(out + (size_t)n * m->slot_len);
			u32 k;

			/* the key is written once, before the count; the rest
			 * changes under us: each u64 whole
			 */
			memcpy(to->key, slot->key, sizeof(to->key));
			memcpy(to->bucket + m->nbuckets, slot->bucket + m->nbuckets,
			       (size_t)m->nframes * sizeof(u64));
			to->count = count;
			to->sum = READ_ONCE(slot->sum);
			to->min = READ_ONCE(slot->min);
			to->max = READ_ONCE(slot->max);
			for (k = 0; k < m->nbuckets; k++)
				to->bucket[k] = READ_ONCE(slot->bucket[k]);
		}
		n++;
	}
	return n;
}

int gilk_agg_read(struct gilk_agg_read *r)
{
	struct gilk_splice_obj *s;
	u8 *buf = NULL;
	u32 room = 0;
	int ret = 0;

	if (r->count || r->cpus || r->slot_len || r->dropped)
		return -EINVAL;
	r->cpus = nr_cpu_ids;
	if (mutex_lock_killable(&gilk_lock))
		return -EINTR;
	s = xa_load(&gilk_splices, r->splice);
	if (!s || READ_ONCE(s->state) != GILK_ACTIVE) {
		ret = -ENOENT;
		goto out;
	}
	if (!s->agg) {
		ret = -ENODATA;
		goto out;
	}
	r->slot_len = s->agg->slot_len;
	if (r->cpu >= nr_cpu_ids)
		goto out;
	r->cpu = array_index_nospec(r->cpu, nr_cpu_ids);
	if (!s->agg->cpu[r->cpu])
		goto out;
	room = min(r->max, s->agg->spec.keys);
	if (room) {
		buf = kvmalloc_array(room, s->agg->slot_len, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
	}
	r->count = copy_map(s->agg, r->cpu, buf, room);
	r->dropped = READ_ONCE(*per_cpu_ptr(s->agg->dropped, r->cpu));
out:
	mutex_unlock(&gilk_lock);
	if (!ret && buf &&
	    copy_to_user(u64_to_user_ptr(r->buf), buf, (size_t)min(r->count, room) * r->slot_len))
		ret = -EFAULT;
	kvfree(buf);
	return ret;
}

void gilk_agg_spec(const struct gilk_agg_map *m, struct gilk_agg *out)
{
	*out = m->spec;
}
