/* The shell's settings (see settings.h). */
#include "settings.h"

#include <stdlib.h>
#include <string.h>

#include "formats.h"

const char *const settings_names[] = { "listsize", "instrument", "trap", "format",
				       "pagination", "height", "trace-commands", NULL };

void settings_init(struct settings *st)
{
	memset(st, 0, sizeof(*st));
	st->listsize = 16;
	snprintf(st->instrument, sizeof(st->instrument), "count");
	st->format = -1;
	st->pagination = true;
}

static int set_listsize(struct settings *st, int n, char **v, struct gerr *e)
{
	char *end;
	unsigned long x = n == 1 ? strtoul(v[0], &end, 0) : 0;

	if (n != 1 || *end || !x || x > 100000)
		return gerr_set(e, "set listsize N: 1 to 100000 instructions");
	st->listsize = (unsigned)x;
	return 0;
}

static int set_instrument(struct settings *st, int n, char **v, struct gerr *e)
{
	if (n < 1 || n > 2)
		return gerr_set(e, "set instrument NAME [ARG]");
	if (strlen(v[0]) >= sizeof(st->instrument) || (n == 2 && strlen(v[1]) >= sizeof(st->arg)))
		return gerr_set(e, "an instrument name is at most %zu bytes, its argument %zu",
				sizeof(st->instrument) - 1, sizeof(st->arg) - 1);
	snprintf(st->instrument, sizeof(st->instrument), "%s", v[0]);
	snprintf(st->arg, sizeof(st->arg), "%s", n == 2 ? v[1] : "");
	return 0;
}

static int on_off(bool *b, const char *name, int n, char **v, struct gerr *e)
{
	if (n == 1 && !strcmp(v[0], "on"))
		*b = true;
	else if (n == 1 && !strcmp(v[0], "off"))
		*b = false;
	else
		return gerr_set(e, "set %s on|off", name);
	return 0;
}

static int set_trap(struct settings *st, int n, char **v, struct gerr *e)
{
	return on_off(&st->trap, "trap", n, v, e);
}

static int set_pagination(struct settings *st, int n, char **v, struct gerr *e)
{
	return on_off(&st->pagination, "pagination", n, v, e);
}

static int set_trace_commands(struct settings *st, int n, char **v, struct gerr *e)
{
	return on_off(&st->trace_commands, "trace-commands", n, v, e);
}

static int set_height(struct settings *st, int n, char **v, struct gerr *e)
{
	char *end;
	unsigned long x = n == 1 ? strtoul(v[0], &end, 10) : 0;

	if (n == 1 && !strcmp(v[0], "auto")) {
		st->height_set = false;
		return 0;
	}
	if (n != 1 || !v[0][0] || *end || x > 100000)
		return gerr_set(e, "set height N|auto: lines per screen, 0 for no limit");
	st->height = (unsigned)x;
	st->height_set = true;
	return 0;
}

static int set_format(struct settings *st, int n, char **v, struct gerr *e)
{
	enum format f;

	if (n == 1 && !strcmp(v[0], "auto")) {
		st->format = -1;
		return 0;
	}
	if (n != 1 || format_parse(v[0], &f))
		return gerr_set(e, "set format auto|text|csv|json|chrome");
	st->format = (int)f;
	return 0;
}

static const struct {
	const char *name;
	int (*set)(struct settings *st, int n, char **v, struct gerr *e);
	const char *help;
} vars[] = {
	{ "listsize", set_listsize, "instructions disas shows from a LOCATION that is not a function's start" },
	{ "instrument", set_instrument, "what splice puts at a LOCATION when no INSTRUMENT is named" },
	{ "trap", set_trap, "whether splice serves a site no jump fits by an int3, without --trap" },
	{ "format", set_format, "dump's format without --format; auto: by FILE's extension" },
	{ "pagination", set_pagination, "whether output longer than the terminal stops every screenful" },
	{ "height", set_height, "lines per screen for the pager; 0: no limit; auto: the terminal's" },
	{ "trace-commands", set_trace_commands, "whether commands from source, -x, -c or a pipe are echoed, \"+\" first" },
};

#define NVARS (sizeof(vars) / sizeof(vars[0]))

static int find(const char *name)
{
	for (size_t i = 0; i < NVARS; i++)
		if (!strcmp(vars[i].name, name))
			return (int)i;
	return -1;
}

void settings_list(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NVARS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", vars[i].name);
}

static int unknown(const char *name, struct gerr *e)
{
	char all[256];

	settings_list(all, sizeof(all));
	return gerr_set(e, "no setting '%s': %s", name, all);
}

int settings_set(struct settings *st, const char *name, int nvalue,
		 char **value, struct gerr *e)
{
	int i = find(name);

	return i < 0 ? unknown(name, e) : vars[i].set(st, nvalue, value, e);
}

static void show_one(const struct settings *st, FILE *out, int i)
{
	char v[GILK_NAME_MAX + GILK_ARG_MAX + 2];

	switch (i) {
	case 0:
		snprintf(v, sizeof(v), "%u", st->listsize);
		break;
	case 1:
		snprintf(v, sizeof(v), "%s%s%s", st->instrument, st->arg[0] ? " " : "", st->arg);
		break;
	case 2:
		snprintf(v, sizeof(v), "%s", st->trap ? "on" : "off");
		break;
	case 3:
		snprintf(v, sizeof(v), "%s", st->format < 0 ? "auto" :
			 format_name((enum format)st->format));
		break;
	case 4:
		snprintf(v, sizeof(v), "%s", st->pagination ? "on" : "off");
		break;
	case 6:
		snprintf(v, sizeof(v), "%s", st->trace_commands ? "on" : "off");
		break;
	default:
		if (st->height_set)
			snprintf(v, sizeof(v), "%u", st->height);
		else
			snprintf(v, sizeof(v), "auto");
		break;
	}
	fprintf(out, "%-14s %-12s %s\n", vars[i].name, v, vars[i].help);
}

int settings_show(const struct settings *st, FILE *out, const char *name,
		  struct gerr *e)
{
	int i;

	if (!name) {
		for (size_t k = 0; k < NVARS; k++)
			show_one(st, out, (int)k);
		return 0;
	}
	i = find(name);
	if (i < 0)
		return unknown(name, e);
	show_one(st, out, i);
	return 0;
}
