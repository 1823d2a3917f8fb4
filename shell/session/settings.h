/*
 * settings: what "set" changes and "show" shows, as in gdb. They live in the
 * session and last until the shell ends. Each is one row of settings_table:
 * its name, the values it takes, how it is set and shown, and what it does;
 * set's usage and help, show's list and Tab completion are made from the
 * rows.
 */
#ifndef GILK_SETTINGS_H
#define GILK_SETTINGS_H

#include <stdbool.h>
#include <stdio.h>

#include "gerr.h"
#include "uapi/gilk.h"

struct settings {
	unsigned listsize;		/* disas: instructions shown past a start */
	char instrument[GILK_NAME_MAX];	/* splice's instrument when none is named */
	char arg[GILK_ARG_MAX];		/* and its argument */
	bool trap;			/* splice: trap mode where no jump fits */
	int format;			/* dump: enum format, or -1 for by extension */
	bool pagination;		/* the pager stops every screenful */
	unsigned height;		/* lines per screen; 0: no limit */
	bool height_set;		/* else the terminal's height */
	bool trace_commands;		/* commands not typed are echoed, "+" first */
	bool filter_self;		/* events of gilk's own process not shown */
};

struct setting {
	const char *name;
	const char *values;		/* what set takes after the name */
	int (*set)(struct settings *st, int n, char **v, struct gerr *e);
	void (*show)(const struct settings *st, char *buf, size_t len);
	const char *help;		/* what it does, and its default */
};

/* The rows, up to one with a NULL name. */
extern const struct setting settings_table[];

void settings_init(struct settings *st);
/* set NAME VALUE...: 0, or -1 with *e saying what NAME takes. */
int settings_set(struct settings *st, const char *name, int nvalue,
		 char **value, struct gerr *e);
/* NAME's value, or every setting's when name is NULL. */
int settings_show(const struct settings *st, FILE *out, const char *name,
		  struct gerr *e);
/* "listsize, instrument, ...": every name, for messages. */
void settings_list(char *buf, size_t len);
/* Each setting's "set NAME VALUES: what it does", for set's help. */
void settings_help(FILE *out);

#endif
