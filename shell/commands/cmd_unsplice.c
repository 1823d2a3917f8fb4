/* unsplice: remove splices, restoring the original bytes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"

static int unsplice_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct gilk_splice_info *all = NULL;
	uint32_t *ids = NULL;
	size_t n = 0, total = 0;
	int rc;

	if (live_list(&s->lv, &all, &total, e))
		return -1;
	if (argc == 2 && !strcmp(argv[1], "all")) {
		ids = malloc((total ? total : 1) * sizeof(*ids));
		if (!ids) {
			free(all);
			return gerr_set(e, "out of memory");
		}
		for (size_t i = 0; i < total; i++)
			ids[n++] = all[i].id;
		if (!n) {
			free(ids);
			free(all);
			fprintf(s->out, "no splices\n");
			return 0;
		}
	} else {
		ids = malloc((size_t)argc * sizeof(*ids));
		if (!ids) {
			free(all);
			return gerr_set(e, "out of memory");
		}
		for (int i = 1; i < argc; i++) {
			char *end;
			unsigned long v = strtoul(argv[i], &end, 10);

			if (*end || !v || v > UINT32_MAX) {
				free(ids);
				free(all);
				return gerr_set(e, "'%s' is not a splice id", argv[i]);
			}
			/* an id named twice is one splice, removed once */
			bool twice = false;

			for (size_t k = 0; k < n; k++)
				twice |= ids[k] == (uint32_t)v;
			if (!twice)
				ids[n++] = (uint32_t)v;
		}
	}
	/* the events they left are read as theirs after they are gone */
	session_splices_removing(s, all, total, ids, n);
	free(all);
	rc = live_unsplice_batch(&s->lv, ids, n, e);
	free(ids);
	if (rc)
		return -1;
	fprintf(s->out, "unspliced %zu\n", n);
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
