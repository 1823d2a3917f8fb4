/*
 * Aggregations (uapi struct gilk_agg) through the ABI itself: the map's
 * layout as GILK_IOC_AGG_READ copies it (a key per slot, counts that add
 * up to the hits, buckets where the uapi says), the ioctl's refusals, and
 * every malformed aggregation refused as bad-agg with its own reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"
#include "live.h"

static int splice_agg(struct live *lv, uint64_t site, const struct gilk_agg *a, uint32_t *id)
{
	struct live_use use = { "count", "", NULL, NULL, a };
	struct splice_plan p;
	struct gerr e;

	if (live_plan(lv, site, 0, &p, &e) || live_splice_batch_uses(lv, &p, 1, &use, 1, id, &e)) {
		printf("  note: splice with an aggregation: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* Every CPU's slots added up: the hits, and whether each slot's key is a
 * CPU number with nothing after its 8 bytes, once. */
static void cpu_keys(struct live *lv)
{
	struct gilk_agg a = { .kind = GILK_AGG_HIST, .key = GILK_FF_CPU,
			      .value = GILK_FF_PID, .keys = 8 };
	uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_getppid")), total = 0, dropped = 0;
	uint32_t id, cpus = 1, len = 0, keyed = 0, bucket_ok = 0, slots = 0;
	pid_t me = getpid();
	struct gerr e;

	snprintf(a.text, sizeof(a.text), "hist pid by cpu");
	if (splice_agg(lv, site, &a, &id)) {
		check(0, "a count splice with hist pid by cpu");
		return;
	}
	for (int i = 0; i < 5000; i++)
		syscall(SYS_getppid);
	for (uint32_t cpu = 0; cpu < cpus; cpu++) {
		uint8_t *buf;
		size_t n;
		uint64_t d;

		if (live_agg_read(lv, id, cpu, &buf, &n, &len, &d, &cpus, &e)) {
			check(0, "read CPU %u's map: %s", cpu, e.msg);
			break;
		}
		dropped += d;
		for (size_t i = 0; i < n; i++) {
			const struct gilk_agg_slot *s = (const void *)(buf + i * len);
			uint64_t key, in_buckets = 0;
			static const uint8_t zeros[GILK_AGG_KEY_LEN - 8];

			slots++;
			memcpy(&key, s->key, 8);
			keyed += key == cpu && !memcmp(s->key + 8, zeros, sizeof(zeros));
			for (uint32_t k = 0; k < GILK_AGG_LOG2_BUCKETS; k++)
				in_buckets += s->bucket[k];
			/* this task's pid is in its power-of-two bucket */
			bucket_ok += in_buckets == s->count &&
				     (s->min != (uint64_t)me || s->bucket[64 - __builtin_clzll((uint64_t)me)]);
			total += s->count;
		}
		free(buf);
	}
	check(len == sizeof(struct gilk_agg_slot) + 8 * GILK_AGG_LOG2_BUCKETS && slots &&
	      keyed == slots && bucket_ok == slots && total >= 5000 && total == hits(lv, id) &&
	      !dropped,
	      "hist pid by cpu: %u slots of %u bytes, each keyed by its own CPU (%u) with "
	      "buckets adding up to its count (%u), %llu counted of %llu hits, %llu dropped",
	      slots, len, keyed, bucket_ok, (unsigned long long)total,
	      (unsigned long long)hits(lv, id), (unsigned long long)dropped);

	struct gilk_agg_read r = { .splice = id, .cpu = 0, .count = 1 };
	int rc = ioctl(lv->fd, GILK_IOC_AGG_READ, &r);

	check(rc < 0 && errno == EINVAL, "AGG_READ with an out field set is refused (EINVAL)");
	r = (struct gilk_agg_read){ .splice = id, .cpu = cpus + 5, .max = 4 };
	rc = ioctl(lv->fd, GILK_IOC_AGG_READ, &r);
	check(rc == 0 && r.count == 0 && r.cpus == cpus,
	      "AGG_READ of a CPU that cannot be: nothing, and the CPUs there are (%u)", r.cpus);
	r = (struct gilk_agg_read){ .splice = 0xfffff, .max = 4 };
	rc = ioctl(lv->fd, GILK_IOC_AGG_READ, &r);
	check(rc < 0 && errno == ENOENT, "AGG_READ of no splice: ENOENT");
	live_unsplice(lv, id, &e);

	struct splice_plan pl;

	if (splice_at(lv, site, 0, "count", "", &id, &pl) == 0) {
		r = (struct gilk_agg_read){ .splice = id, .max = 4 };
		rc = ioctl(lv->fd, GILK_IOC_AGG_READ, &r);
		check(rc < 0 && errno == ENODATA, "AGG_READ of a splice that aggregates nothing: ENODATA");
		live_unsplice(lv, id, &e);
	}
}

static void malformed(struct live *lv)
{
	static const struct {
		const char *what, *says;
	} bad[] = {
		{ "kind past the last", "an unknown kind" },
		{ "pad", "reserved bytes that are not 0" },
		{ "key between the task's fields and the registers'", "an unknown key field" },
		{ "value comm", "a value field it cannot have" },
		{ "value on a count", "a value field it cannot have" },
		{ "keys 0", "keys is not a power of two" },
		{ "keys 3", "keys is not a power of two" },
		{ "keys past the most", "keys is not a power of two" },
		{ "linear buckets 0", "linear buckets it cannot have" },
		{ "linear step 0", "linear buckets it cannot have" },
		{ "step on a log2 hist", "linear buckets it cannot have" },
		{ "text not terminated", "its text is not NUL-terminated" },
		{ "more memory than allowed", "more than" },
		{ "no kind, a key", "no kind, and a field that is not 0" },
		{ "a key shown as a string", "a key or value shown in a way or a size" },
		{ "a key of 3 bytes", "a key or value shown in a way or a size" },
		{ "a value of 5 bytes", "a key or value shown in a way or a size" },
		{ "a stack key shown in hex", "a stack key shown as a number" },
		{ "on regs, which records events", "only count aggregates" },
	};
	const size_t nbad = sizeof(bad) / sizeof(bad[0]);
	uint64_t site = live_block_site(lv, sym(lv, "__x64_sys_getppid"));
	struct splice_plan p;
	struct gerr e;
	long before = gilk_holds(lv);

	if (live_plan(lv, site, 0, &p, &e)) {
		check(0, "plan getppid: %s", e.msg);
		return;
	}
	for (size_t i = 0; i < nbad; i++) {
		struct gilk_splice req;
		struct gilk_agg *a = &req.agg;
		int rc, err;

		if (live_request(lv, &p, i == nbad - 1 ? "regs" : "count", "", &req, NULL, &e)) {
			check(0, "request: %s", e.msg);
			return;
		}
		*a = (struct gilk_agg){ .kind = GILK_AGG_COUNT, .key = GILK_FF_TID, .keys = 64 };
		switch (i) {
		case 0: a->kind = GILK_AGG_NKINDS; break;
		case 1: a->pad[0] = 1; break;
		case 2: a->key = GILK_FF_CONTEXT + 1; break;
		case 3: a->kind = GILK_AGG_HIST; a->value = GILK_FF_COMM; break;
		case 4: a->value = GILK_FF_CPU; break;
		case 5: a->keys = 0; break;
		case 6: a->keys = 3; break;
		case 7: a->keys = GILK_AGG_KEYS_MAX * 2; break;
		case 8: a->kind = GILK_AGG_LHIST; a->value = GILK_FF_CPU; a->step = 1; break;
		case 9: a->kind = GILK_AGG_LHIST; a->value = GILK_FF_CPU; a->buckets = 4; break;
		case 10: a->kind = GILK_AGG_HIST; a->value = GILK_FF_CPU; a->step = 2; break;
		case 11: memset(a->text, 'x', sizeof(a->text)); break;
		case 12: a->kind = GILK_AGG_LHIST; a->value = GILK_FF_CPU; a->step = 1;
			a->buckets = GILK_AGG_LHIST_MAX; a->keys = GILK_AGG_KEYS_MAX; break;
		case 13: a->kind = 0; break;
		case 14: a->key_show = GILK_FSHOW_STRING; break;
		case 15: a->key_size = 3; break;
		case 16: a->value_size = 5; break;
		case 17: a->key = GILK_AGG_KEY_STACK; a->key_show = GILK_FSHOW_HEX; break;
		default: break;
		}
		rc = ioctl(lv->fd, GILK_IOC_SPLICE, &req);
		err = errno;
		ioctl(lv->fd, GILK_IOC_RELEASE, &req.id);
		check(rc < 0 && err == EINVAL && req.refusal == GILK_REFUSED_BAD_AGG &&
		      strstr(req.reason, bad[i].says),
		      "an aggregation with %s is refused as bad-agg: %s (%s)", bad[i].what,
		      rc < 0 ? strerror(err) : "spliced", req.reason);
	}
	check(gilk_holds(lv) == before, "nothing is held after the refused aggregations");
}

/* A stack key's slot: its depth, whether frames were beyond, its frames. */
static uint32_t depth_of(const struct gilk_agg_slot *s, uint32_t *more)
{
	uint32_t n;

	memcpy(&n, s->key + 8, 4);
	memcpy(more, s->key + 12, 4);
	return n;
}

/*
 * count by stack at a function that calls itself: "recurse 5" hits it at
 * six depths, so six stacks, each once a write. Over every CPU's map the
 * slots of one stack add up to the writes, its frames start at the site,
 * the deepest repeats one return address five times, and nothing follows
 * a stack's last frame; 40 deep passes the frames a slot holds, and says so.
 */
static void stack_keys(struct live *lv)
{
	struct gilk_agg a = { .kind = GILK_AGG_COUNT, .key = GILK_AGG_KEY_STACK, .keys = 64,
			      .text = "count by stack" };
	uint64_t fn = sym(lv, "gilk_target_recurse"), site, total = 0;
	uint32_t id, cpus = 1, len = 0, nslots = 0, ok_frames = 0, cut = 0;
	uint64_t depth_hits[GILK_AGG_STACK_FRAMES + 1] = { 0 }, deepest[GILK_AGG_STACK_FRAMES];
	uint32_t deepest_n = 0, lo = GILK_AGG_STACK_FRAMES, hi = 0;
	struct gerr e;

	if (!fn) {
		check(0, "count by stack: gilk_target_recurse is not in the kernel (gilk_target.ko)");
		return;
	}
	site = live_block_site(lv, fn);
	if (splice_agg(lv, site, &a, &id)) {
		check(0, "a count splice by stack at gilk_target_recurse");
		return;
	}
	for (int i = 0; i < 3; i++)
		write_file("/proc/gilk_target", "recurse 5", 0);
	for (uint32_t cpu = 0; cpu < cpus; cpu++) {
		uint8_t *buf;
		size_t n;
		uint64_t d;

		if (live_agg_read(lv, id, cpu, &buf, &n, &len, &d, &cpus, &e)) {
			check(0, "read CPU %u's stacks: %s", cpu, e.msg);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			const struct gilk_agg_slot *s = (const void *)(buf + i * len);
			const uint64_t *frames = (const uint64_t *)s->bucket;
			uint32_t more, k, depth = depth_of(s, &more);
			int zeros = 1;

			nslots++;
			total += s->count;
			if (depth > GILK_AGG_STACK_FRAMES || !depth)
				continue;
			for (k = depth; k < GILK_AGG_STACK_FRAMES; k++)
				zeros &= !frames[k];
			ok_frames += frames[0] == site && zeros && !more;
			depth_hits[depth] += s->count;
			lo = depth < lo ? depth : lo;
			hi = depth > hi ? depth : hi;
			if (depth > deepest_n) {
				deepest_n = depth;
				memcpy(deepest, frames, sizeof(deepest));
			}
		}
		free(buf);
	}
	int every3 = hi == lo + 5;

	for (uint32_t k = lo; every3 && k <= hi; k++)
		every3 = depth_hits[k] == 3;
	int repeats = deepest_n > 6;

	for (uint32_t k = 2; repeats && k <= 5; k++)
		repeats = deepest[k] == deepest[1];
	repeats = repeats && deepest[6] != deepest[1];
	check(len == sizeof(struct gilk_agg_slot) + 8 * GILK_AGG_STACK_FRAMES && every3 &&
	      repeats && ok_frames == nslots && total == 18 && hits(lv, id) == 18,
	      "count by stack: recurse 5 three times is 3 hits at each of 6 depths (%u..%u), "
	      "%u slots of %u bytes with the site first and nothing past their frames (%u), "
	      "the deepest returning into itself 5 times (%d), %llu counted of %llu hits",
	      lo, hi, nslots, len, ok_frames, repeats, (unsigned long long)total,
	      (unsigned long long)hits(lv, id));
	write_file("/proc/gilk_target", "recurse 40", 0);
	total = 0;
	for (uint32_t cpu = 0; cpu < cpus; cpu++) {
		uint8_t *buf;
		size_t n;
		uint64_t d;

		if (live_agg_read(lv, id, cpu, &buf, &n, &len, &d, &cpus, &e))
			break;
		for (size_t i = 0; i < n; i++) {
			const struct gilk_agg_slot *s = (const void *)(buf + i * len);
			uint32_t more, depth = depth_of(s, &more);

			total += s->count;
			cut += more && depth == GILK_AGG_STACK_FRAMES;
		}
		free(buf);
	}
	check(cut > 0 && total == 18 + 41 && hits(lv, id) == total,
	      "count by stack: recurse 40 passes the %d frames a slot holds: %u stacks say "
	      "more were beyond, %llu counted of %llu hits", GILK_AGG_STACK_FRAMES, cut,
	      (unsigned long long)total, (unsigned long long)hits(lv, id));
	live_unsplice(lv, id, &e);
}

void test_agg(struct live *lv)
{
	cpu_keys(lv);
	stack_keys(lv);
	malformed(lv);
}
