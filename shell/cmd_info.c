/* info: what is spliced and what instruments there are. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "formats.h"

static int info_splices(struct session *s, struct gerr *e)
{
	struct gilk_splice_info *all;
	size_t n;

	if (live_list(&s->lv, &all, &n, e))
		return -1;
	format_splices(s->out, FMT_TEXT, s, all, n);
	free(all);
	return 0;
}

static int info_instruments(struct session *s, struct gerr *e)
{
	struct gilk_instrument_info *ins;
	size_t n;

	if (live_instruments(&s->lv, &ins, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++)
		fprintf(s->out, "%-12s %-10s %3u in use  %s\n", ins[i].name, ins[i].module,
			ins[i].users, ins[i].help);
	free(ins);
	return 0;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	if (argc != 2)
		return gerr_set(e, "usage: %s", cmd_info.usage);
	if (!s->live)
		return gerr_set(e, "info %s needs live mode (/dev/gilk)", argv[1]);
	if (!strncmp(argv[1], "splices", strlen(argv[1])))
		return info_splices(s, e);
	if (!strncmp(argv[1], "instruments", strlen(argv[1])))
		return info_instruments(s, e);
	return gerr_set(e, "info what? \"splices\" or \"instruments\"");
}

static const char *const what[] = { "splices", "instruments", NULL };

const struct command cmd_info = {
	.name = "info",
	.run = run,
	.usage = "info splices|instruments",
	.help = "info splices: every splice with its hits, events lost because the\n"
		"buffer was full, and nested hits (inside an instrument, not run).\n"
		"info instruments: the instruments gilk.ko knows, their modules and uses.",
	.complete = COMPLETE_WORDS,
	.words = what,
};
