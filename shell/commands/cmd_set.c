/* set: change a setting (see settings.h; "show" lists them). */
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"

/* Live, an instrument is checked now, not at the next splice. */
static int instrument_known(struct session *s, const char *name, struct gerr *e)
{
	struct gilk_instrument_info *ins;
	size_t n;
	bool found = false;

	if (!s->live)
		return 0;
	if (live_instruments(&s->lv, &ins, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++)
		found |= !strcmp(ins[i].name, name);
	free(ins);
	return found ? 0 : gerr_set(e, "no instrument '%s'; \"info instruments\" lists them", name);
}

static int set_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct settings next = s->set;

	if (settings_set(&next, argv[1], argc - 2, argv + 2, e))
		return -1;
	if (!strcmp(argv[1], "instrument") && instrument_known(s, argv[2], e))
		return -1;
	s->set = next;
	return 0;
}

const struct command cmd_set = {
	.name = "set",
	.group = GROUP_SESSION,
	.run = set_command,
	.min_args = 2,
	.max_args = 3,
	.usage = "set SETTING VALUE...",
	.help = "Changes a setting until the shell ends; \"show\" shows them. The\n"
		"settings, what each takes and does, and its default:",
	.more_help = settings_help,
	.complete = COMPLETE_SETTING,
	.complete2 = COMPLETE_INSTRUMENT,
};
