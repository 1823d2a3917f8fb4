/* Trampoline headers by gilk.ko's templates (see template.h). */
#include "template.h"

#include <string.h>

_Static_assert(SPLICE_HEADER_MAX == GILK_TRAMP_HEADER_MAX,
	       "core/ leaves the room gilk.ko's longest header takes");

static bool fits_disp32(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)v == v;
}

/* What the template addresses through a disp32 is within one: a %gs
 * offset, a field's offset in the task. Out of reach, no header. */
static bool reachable(const struct gilk_tramp_params *p)
{
	if (!gilk_tramp_inline(p->kind) || p->kind == GILK_TRAMP_COUNT ||
	    p->kind == GILK_TRAMP_COUNT_FLAGS)
		return true;
	if (!fits_disp32(p->current_task))
		return false;
	if (p->kind == GILK_TRAMP_TSC || p->kind == GILK_TRAMP_TSC_FLAGS)
		return fits_disp32(p->cpu_number) && fits_disp32(p->preempt_count) &&
		       fits_disp32(p->task_pid);
	return p->task_field <= 0x7fffffff - 16 &&
	       (p->task_len == 4 || p->task_len == 8 || p->task_len == 16);
}

static size_t write_header(const struct splice_header *h, uint64_t tramp, uint64_t site,
			   bool full, bool flags_dead, uint8_t *out)
{
	const struct template *t = h->arg;
	struct gilk_tramp_params p = t->params;

	p.tramp = tramp;
	p.site = site;
	if (full)
		p.kind = GILK_TRAMP_FULL;
	else if (!flags_dead)
		p.kind = gilk_tramp_flags_kept(p.kind);
	return reachable(&p) ? gilk_tramp_header(out, &p) : 0;
}

enum gilk_tramp_kind template_of(uint32_t needs, const struct gilk_filter *f,
				 const struct gilk_fetch *fetch, const struct gilk_agg *agg)
{
	__u64 value;
	__u8 field;
	int pass;

	if (f && !(fetch && fetch->len) && !(agg && agg->kind) && needs == GILK_NEEDS_NOTHING &&
	    gilk_filter_task_test(f, &field, &value, &pass))
		return GILK_TRAMP_COUNT_TASK;
	if (f)
		needs = gilk_filter_needs(f, needs);
	if (fetch)
		needs = gilk_fetch_needs(fetch, needs);
	if (agg)
		needs = gilk_agg_needs(agg, needs);
	return gilk_tramp_kind(needs, 0);
}

/* The longest header kind can be: written with all that lengthens it (the
 * flags saved, clac, a handler and a counter out of rel32 and disp32
 * reach, the longest name), so that a count splice reserves a count
 * header's bytes, not a full one's. */
static size_t header_max(enum gilk_tramp_kind kind)
{
	const struct gilk_tramp_params far = {
		.kind = gilk_tramp_flags_kept(kind), .tramp = 0, .handler = 1ul << 63,
		.ctx = ~0ul, .clac = true, .counter = 1ul << 40, .ring = ~0ul,
		.cpu_number = 0x7ffffff0, .preempt_count = 0x7ffffff0,
		.current_task = 0x7ffffff0, .task_pid = 0x7ffffff0,
		.task_field = 0x7fff0000, .task_len = 16,
	};
	uint8_t buf[GILK_TRAMP_HEADER_MAX];

	return gilk_tramp_header(buf, &far);
}

size_t template_tramp_size(const struct splice_plan *p, enum gilk_tramp_kind kind)
{
	return splice_tramp_size(p, header_max(p->bug != BUG_NONE ? GILK_TRAMP_FULL : kind));
}

bool template_init(struct template *t, enum gilk_tramp_kind kind,
		   const struct gilk_reserve *r, bool clac, const struct gilk_filter *f)
{
	const struct gilk_task_offsets off = {
		.pid = r->task_pid, .tgid = r->task_tgid, .comm = r->task_comm,
	};

	memset(t, 0, sizeof(*t));
	t->header = (struct splice_header){ .write = write_header, .arg = t };
	t->params = (struct gilk_tramp_params){
		.kind = kind, .handler = r->handler, .ctx = r->ctx, .clac = clac,
		.counter = r->counter, .ring = r->tsc_ring, .cpu_number = r->cpu_number,
		.preempt_count = r->preempt_count, .current_task = r->current_task,
		.task_pid = r->task_pid,
	};
	if (kind != GILK_TRAMP_COUNT_TASK)
		return true;
	/* the template indexes the hit counter by its test's outcome: the
	 * filtered counter must follow it (struct gilk_counts) */
	return f && r->filtered == r->counter + 8 &&
	       gilk_tramp_task_test(&t->params, f, &off) && reachable(&t->params);
}
