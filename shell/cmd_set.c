/* set: change a setting (see settings.h; "show" lists them). */
#include <stdlib.h>
#include <string.h>

#include "commands.h"

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

static int run(struct session *s, int argc, char **argv, struct gerr *e)
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
	.run = run,
	.min_args = 2,
	.max_args = 3,
	.usage = "set listsize|instrument|trap|format|pagination|height|trace-commands VALUE...",
	.help = "set listsize N: instructions disas shows from a LOCATION that is not\n"
		"a function's start (16).\n"
		"set instrument NAME [ARG]: what splice uses when no INSTRUMENT is named\n"
		"(count).\n"
		"set trap on|off: splice serves a site no jump fits by an int3, as\n"
		"--trap (off).\n"
		"set format auto|text|csv|json|chrome: dump's format without --format\n"
		"(auto: by FILE's extension).\n"
		"set pagination on|off: at a terminal, output longer than the screen\n"
		"stops every screenful (RET for more, q to stop, c for the rest) (on).\n"
		"set height N|auto: lines per screen, 0 for no limit (auto: the\n"
		"terminal's).\n"
		"set trace-commands on|off: commands from source, -x, -c or a pipe are\n"
		"echoed before they run, \"+\" first, as gdb's (off).",
	.complete = COMPLETE_WORDS,
	.words = settings_names,
	.complete2 = COMPLETE_INSTRUMENT,
};
