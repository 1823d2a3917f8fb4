/* unsplice: remove splices, restoring the original bytes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "grow.h"

/* What a removal needs of the splices there are: every id (for "all"),
 * and the recording ones in full (their events are read after they go). */
struct listed {
	uint32_t *ids;
	size_t nids, idroom;
	struct gilk_splice_info *rec;
	size_t nrec, recroom;
	bool all, full;
};

static int list_one(void *ctx, const struct gilk_splice_info *in)
{
	struct listed *l = ctx;

	if (l->all) {
		if (grow_room((void **)&l->ids, &l->idroom, l->nids + 1, sizeof(*l->ids), 64))
			goto full;
		l->ids[l->nids++] = in->id;
	}
	if (live_splice_records(in)) {
		if (grow_room((void **)&l->rec, &l->recroom, l->nrec + 1, sizeof(*l->rec), 16))
			goto full;
		l->rec[l->nrec++] = *in;
	}
	return 0;
full:
	l->full = true;
	return -1;
}

static int unsplice_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct listed l = { .all = argc == 2 && !strcmp(argv[1], "all") };
	int rc;

	if (!l.all) {
		l.ids = malloc((size_t)argc * sizeof(*l.ids));
		if (!l.ids)
			return gerr_set(e, "out of memory");
		for (int i = 1; i < argc; i++) {
			char *end;
			unsigned long v = strtoul(argv[i], &end, 10);
			bool twice = false;

			if (*end || !v || v > UINT32_MAX) {
				free(l.ids);
				return gerr_set(e, "'%s' is not a splice id", argv[i]);
			}
			/* an id named twice is one splice, removed once */
			for (size_t k = 0; k < l.nids; k++)
				twice |= l.ids[k] == (uint32_t)v;
			if (!twice)
				l.ids[l.nids++] = (uint32_t)v;
		}
	}
	if (live_each_splice(&s->lv, list_one, &l, e)) {
		free(l.ids);
		free(l.rec);
		return l.full ? gerr_set(e, "out of memory") : -1;
	}
	if (!l.nids) {
		free(l.ids);
		free(l.rec);
		fprintf(s->out, "no splices\n");
		return 0;
	}
	/* the events they left are read as theirs after they are gone */
	session_splices_removing(s, l.rec, l.nrec, l.ids, l.nids);
	free(l.rec);
	rc = live_unsplice_batch(&s->lv, l.ids, l.nids, e);
	free(l.ids);
	if (rc)
		return -1;
	fprintf(s->out, "unspliced %zu\n", l.nids);
	return 0;
}

const struct command cmd_unsplice = {
	.name = "unsplice",
	.group = GROUP_SPLICE,
	.run = unsplice_command,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.flags = CMD_LIVE,
	.usage = "unsplice ID... | all",
	.help = "Removes the splices named (all of them with \"all\") in one grace\n"
		"period, restoring the original bytes. The instrument modules they used\n"
		"may be unloaded afterwards. Ids count up and are not given again while\n"
		"gilk.ko is loaded: events a removed splice left stay its own.",
	.complete = COMPLETE_SPLICE,
	.complete2 = COMPLETE_SPLICE,
};
