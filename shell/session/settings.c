/* The shell's settings (see settings.h). */
#include "session/settings.h"

#include <stdlib.h>
#include <string.h>

#include "output/formats.h"

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

static void show_listsize(const struct settings *st, char *buf, size_t len)
{
	snprintf(buf, len, "%u", st->listsize);
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

static void show_instrument(const struct settings *st, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", st->instrument, st->arg[0] ? " " : "", st->arg);
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

/* An on|off setting's set and show, from the field it is. */
#define ON_OFF(field, name)                                                          \
	static int set_##field(struct settings *st, int n, char **v, struct gerr *e)  \
	{                                                                             \
		return on_off(&st->field, name, n, v, e);                             \
	}                                                                             \
	static void show_##field(const struct settings *st, char *buf, size_t len)   \
	{                                                                             \
		snprintf(buf, len, "%s", st->field ? "on" : "off");                   \
	}

ON_OFF(trap, "trap")
ON_OFF(pagination, "pagination")
ON_OFF(trace_commands, "trace-commands")
ON_OFF(filter_self, "filter-self")

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

static void show_height(const struct settings *st, char *buf, size_t len)
{
	if (st->height_set)
		snprintf(buf, len, "%u", st->height);
	else
		snprintf(buf, len, "auto");
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

static void show_format(const struct settings *st, char *buf, size_t len)
{
	snprintf(buf, len, "%s", st->format < 0 ? "auto" : format_name((enum format)st->format));
}

const struct setting settings_table[] = {
	{ "listsize", "N", set_listsize, show_listsize,
	  "instructions disas shows from a LOCATION that is not a function's start (16)" },
	{ "instrument", "NAME [ARG]", set_instrument, show_instrument,
	  "what splice puts at a LOCATION when no INSTRUMENT is named (count)" },
	{ "trap", "on|off", set_trap, show_trap,
	  "whether splice serves a site no jump fits by an int3, as --trap (off)" },
	{ "format", "auto|text|csv|json|chrome", set_format, show_format,
	  "dump's format without --format; auto: by FILE's extension (auto)" },
	{ "pagination", "on|off", set_pagination, show_pagination,
	  "whether output longer than the terminal stops every screenful: RET for more, "
	  "q to stop, c for the rest (on)" },
	{ "height", "N|auto", set_height, show_height,
	  "lines per screen for the pager; 0: no limit; auto: the terminal's (auto)" },
	{ "trace-commands", "on|off", set_trace_commands, show_trace_commands,
	  "whether commands from source, -x, -c or a pipe are echoed before they run, "
	  "\"+\" first, as gdb's (off)" },
	{ "filter-self", "on|off", set_filter_self, show_filter_self,
	  "whether events, hist and dump events leave out the events of gilk's own "
	  "process, such as its reads of the terminal, and gilk.ko's filters turn "
	  "its hits away where a splice is filtered or calls its instrument "
	  "(off; on in the lab)" },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const struct setting *find(const char *name)
{
	for (const struct setting *t = settings_table; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

void settings_list(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct setting *t = settings_table; t->name && used < len; t++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 t == settings_table ? "" : ", ", t->name);
}

void settings_help(FILE *out)
{
	for (const struct setting *t = settings_table; t->name; t++)
		fprintf(out, "  set %s %s: %s.\n", t->name, t->values, t->help);
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
	const struct setting *t = find(name);

	return t ? t->set(st, nvalue, value, e) : unknown(name, e);
}

static void show_one(const struct settings *st, FILE *out, const struct setting *t)
{
	char v[GILK_NAME_MAX + GILK_ARG_MAX + 2];

	t->show(st, v, sizeof(v));
	fprintf(out, "%-14s %-12s %s\n", t->name, v, t->help);
}

int settings_show(const struct settings *st, FILE *out, const char *name,
		  struct gerr *e)
{
	const struct setting *t;

	if (!name) {
		for (t = settings_table; t->name; t++)
			show_one(st, out, t);
		return 0;
	}
	t = find(name);
	if (!t)
		return unknown(name, e);
	show_one(st, out, t);
	return 0;
}
