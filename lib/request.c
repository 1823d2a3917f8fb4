/* Requests from plans (see request.h). */
#include "request.h"

#include <string.h>

#include "x86emit.h"

bool request_task_test(struct splice_params *sp, const struct gilk_filter *f,
		       const struct gilk_reserve *r)
{
	__u64 value;
	uint32_t v32;
	__u8 field;
	int pass;

	if (!gilk_filter_task_test(f, &field, &value, &pass))
		return false;
	memset(sp->task_bytes, 0, sizeof(sp->task_bytes));
	if (field == GILK_FF_COMM) {
		/* the name and NULs after it, as the kernel pads comm */
		for (size_t i = 0; i < sizeof(sp->task_bytes) && f->str[value][i]; i++)
			sp->task_bytes[i] = (uint8_t)f->str[value][i];
		sp->task_field = r->task_comm;
		sp->task_len = gilk_comm_width(f->str[value]);
	} else {
		v32 = (uint32_t)value;
		memcpy(sp->task_bytes, &v32, 4);
		sp->task_field = field == GILK_FF_PID ? r->task_tgid : r->task_pid;
		sp->task_len = 4;
	}
	sp->pass_if_equal = pass;
	sp->filtered = r->filtered;
	/* the template indexes the hit counter by its test's outcome */
	return sp->task_field <= 0x7fffffff - 16 && imm32_sext_fits(r->current_task) &&
	       r->filtered == r->counter + 8;
}

void request_from_plan(const struct splice_plan *p, const struct splice_code *c,
		       const struct gilk_reserve *r, struct gilk_splice *req)
{
	memset(req, 0, sizeof(*req));
	req->id = r->id;
	req->site = p->region.addr;
	req->region_len = p->region.len;
	memcpy(req->region_orig, p->region.orig, p->region.len);
	req->flags = (p->mode == SPLICE_TRAP ? GILK_SPLICE_TRAP : 0) |
		     (p->bug != BUG_NONE ? GILK_SPLICE_BUG : 0) |
		     (c->tmpl == TT_FULL ? GILK_SPLICE_FULL : 0);
	req->npatch = (uint32_t)c->npatch;
	for (size_t i = 0; i < c->npatch; i++) {
		const struct splice_patch *sp = &c->patches[i];
		struct gilk_patch *gp = &req->patch[i];

		gp->addr = sp->addr;
		gp->len = sp->len;
		memcpy(gp->bytes, sp->bytes, sp->len);
		memcpy(gp->orig, sp->orig, sp->len);
		if (sp->addr == p->region.addr) {
			gp->kind = GILK_PATCH_LIVE;
			gp->divert = r->tramp;
		} else if (p->bounce_kind == BOUNCE_EVICT && sp->addr == p->evict.addr) {
			gp->kind = GILK_PATCH_LIVE;
			gp->divert = r->evict_tramp;
		} else {
			gp->kind = GILK_PATCH_DEAD; /* a slot nothing runs yet */
		}
	}
	req->tramp_len = (uint32_t)c->tramp_len;
	memcpy(req->tramp, c->tramp, c->tramp_len);
	req->evict_len = (uint32_t)c->evict_tramp_len;
	memcpy(req->evict, c->evict_tramp, c->evict_tramp_len);
}
