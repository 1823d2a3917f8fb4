/*
 * commands: the table of shell commands. Each row is one command: its name,
 * handler, usage, help and what its arguments complete to. Each command's
 * handler and help live in shell/cmd_NAME.c; adding one is a row here.
 */
#ifndef GILK_COMMANDS_H
#define GILK_COMMANDS_H

#include "gerr.h"
#include "session.h"

enum complete_kind { COMPLETE_NONE, COMPLETE_SYMBOL, COMPLETE_SPLICE,
		     COMPLETE_COMMAND, COMPLETE_WORDS, COMPLETE_PATH,
		     COMPLETE_INSTRUMENT };

struct command {
	const char *name;
	int (*run)(struct session *s, int argc, char **argv, struct gerr *e);
	const char *usage;
	const char *help;
	enum complete_kind complete;	/* the first argument */
	enum complete_kind complete2;	/* the second */
	const char *const *words;	/* COMPLETE_WORDS: NULL-terminated */
};

extern const struct command cmd_help, cmd_quit, cmd_disas, cmd_x, cmd_blocks,
	cmd_plan, cmd_splice, cmd_unsplice, cmd_info, cmd_events, cmd_source,
	cmd_dump, cmd_set, cmd_show, cmd_hist;

const struct command *command_find(const char *name);
/* The i-th command, NULL past the last. */
const struct command *command_at(size_t i);

/* Runs one line. Returns 0, or -1 with *e set. */
int command_run_line(struct session *s, char *line, struct gerr *e);

#endif
