/* Requests from plans (see request.h). */
#include "request.h"

#include <string.h>

void request_from_plan(const struct splice_plan *p, const struct splice_code *c,
		       const struct gilk_reserve *r, enum gilk_tramp_kind kind,
		       struct gilk_splice *req)
{
	memset(req, 0, sizeof(*req));
	req->id = r->id;
	req->site = p->region.addr;
	req->region_len = p->region.len;
	memcpy(req->region_orig, p->region.orig, p->region.len);
	req->flags = (p->mode == SPLICE_TRAP ? GILK_SPLICE_TRAP : 0) |
		     (p->mode == SPLICE_JOIN ? GILK_SPLICE_JOIN : 0) |
		     (p->bug != BUG_NONE ? GILK_SPLICE_BUG : 0) |
		     (kind == GILK_TRAMP_FULL || p->bug != BUG_NONE ? GILK_SPLICE_FULL : 0);
	req->npatch = (uint32_t)c->npatch;
	for (size_t i = 0; i < c->npatch; i++) {
		const struct splice_patch *sp = &c->patches[i];
		struct gilk_patch *gp = &req->patch[i];

		gp->addr = sp->addr;
		gp->len = sp->len;
		memcpy(gp->bytes, sp->bytes, sp->len);
		memcpy(gp->orig, sp->orig, sp->len);
		if (sp->addr == p->region.addr || p->mode == SPLICE_JOIN) {
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
