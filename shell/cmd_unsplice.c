/* unsplice: remove splices, restoring the original bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	uint32_t ids[GILK_BATCH_MAX];
	size_t n = 0;

	if (argc == 2 && !strcmp(argv[1], "all")) {
		struct gilk_splice_info *all;
		size_t total;

		if (live_list(&s->lv, &all, &total, e))
			return -1;
		for (size_t i = 0; i < total && n < GILK_BATCH_MAX; i++)
			ids[n++] = all[i].id;
		free(all);
		if (!n) {
			fprintf(s->out, "no splices\n");
			return 0;
		}
	} else {
		for (int i = 1; i < argc; i++) {
			char *end;
			unsigned long v = strtoul(argv[i], &end, 10);

			if (*end || !v || v > UINT32_MAX || n == GILK_BATCH_MAX)
				return gerr_set(e, "'%s' is not a splice id", argv[i]);
			ids[n++] = (uint32_t)v;
		}
	}
	if (live_unsplice_batch(&s->lv, ids, n, e))
		return -1;
	fprintf(s->out, "unspliced %zu\n", n);
	return 0;
}

const struct command cmd_unsplice = {
	.name = "unsplice",
	.run = run,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.flags = CMD_LIVE,
	.usage = "unsplice ID... | all",
	.help = "Removes the splices named (all of them with \"all\") in one grace\n"
		"period, restoring the original bytes. The instrument modules they used\n"
		"may be unloaded afterwards.",
	.complete = COMPLETE_SPLICE,
	.complete2 = COMPLETE_SPLICE,
};
