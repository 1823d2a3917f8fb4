/*
 * The end of a session (see session.h): each feature's state freed (the
 * recording, the pager, held events, clears, coverage, Tab's candidates), then the
 * kernel it looked at. Apart from session.c, which the features call, so
 * that no feature's file and the session's call each other.
 */
#include "session/session.h"

#include <stdlib.h>

#include "events/agg_map.h"
#include "complete/complete.h"
#include "plan/coverage.h"
#include "events/event_log.h"
#include "events/event_regs.h"
#include "session/lines.h"
#include "session/types.h"
#include "output/pager.h"
#include "script/record.h"

void session_close(struct session *s)
{
	record_close(s);
	pager_close(s->pager);
	free(s->made);
	free(s->lost_seen);
	free(s->spliced);
	free(s->marks);
	if (s->held && s->held->n)
		fprintf(s->out, "(%zu events kept and not shown are dropped: gilk ends)\n",
			s->held->n);
	event_log_drop_held(s);
	agg_clears_free(s);
	event_regs_free(s);
	if (s->cov)
		coverage_free(s->cov);
	free(s->cov);
	complete_free(s);
	lines_free(s);
	types_free(s);
	free(s->image);
	cfg_free(&s->cfg);
	window_free(&s->w);
	if (s->live)
		live_close(&s->lv);
	else if (s->k)
		kernel_close(&s->offline);
	s->k = NULL;
}
