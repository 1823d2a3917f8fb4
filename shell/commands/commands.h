/*
 * commands: the table of shell commands. Each row is one command: its name,
 * handler, how many arguments it takes, whether it needs live mode, what its
 * arguments complete to, whether Enter repeats it, its usage and its help.
 * The dispatcher checks arity and mode from the row, so handlers do not;
 * help, the man page test and the bash and zsh completions read the same
 * rows. Each command's row, handler and help live in
 * shell/commands/cmd_NAME.c, and the table is made from those files at build
 * time (command_list.h, written by the Makefile): adding a command is its
 * file and its entry in the man page.
 */
#ifndef GILK_COMMANDS_H
#define GILK_COMMANDS_H

#include "gerr.h"
#include "session/session.h"
#include "output/formats.h"

enum complete_kind { COMPLETE_NONE, COMPLETE_SYMBOL, COMPLETE_SPLICE,
		     COMPLETE_COMMAND, COMPLETE_WORDS, COMPLETE_PATH,
		     COMPLETE_INSTRUMENT,
		     COMPLETE_SETTING,		/* a setting's name, or one of words */
		     COMPLETE_LOCATION };	/* a symbol, or FUNC: and a suffix */

enum command_flag {
	CMD_LIVE = 1,	/* needs /dev/gilk: refused offline by the dispatcher */
	CMD_RAW = 2,	/* takes the rest of the line as is: argv[1] */
	CMD_FORMAT = 4,	/* takes "/FMT" after its name, as gdb's x/4i */
	CMD_IF = 8,	/* takes "if EXPR" last, kept whole (quotes, blanks,
			 * operators): argv ends with "if" and EXPR, which
			 * the arity does not count */
};

#define ARGS_ANY (-1)

/* Where help and the man page list a command: by what it is for, then by
 * name. A row without one is listed by neither, which the tests catch. */
enum command_group {
	GROUP_CODE = 1,	/* reading the kernel's code and data */
	GROUP_SPLICE,	/* splicing and unsplicing */
	GROUP_RESULTS,	/* what the splices saw */
	GROUP_SESSION,	/* the session: help, settings, scripts, quitting */
	GROUP_END
};
/* A group's heading in help, "" for none. */
const char *command_group_title(enum command_group g);

/*
 * A subcommand ("info splices", "dump memory"): its row is where its name,
 * arity, mode, usage and handler are written, once. The dispatcher finds it
 * by its name or a unique prefix of it ("info sym"), checks its arity and
 * mode, and runs it with argv[0] its own name; usage, help's live-mode line,
 * Tab completion and the error for an unknown one are made from the rows.
 */
struct subcommand {
	const char *name;
	int (*run)(struct session *s, int argc, char **argv, struct gerr *e);
	int min_args, max_args;		/* words after its name; ARGS_ANY */
	unsigned flags;			/* CMD_LIVE, CMD_IF */
	const char *args;		/* its usage after its name: "[ID]" */
};

struct command {
	const char *name;
	const char *alias;		/* another name, as gdb's "p" for print */
	int (*run)(struct session *s, int argc, char **argv, struct gerr *e);
	int min_args, max_args;		/* words after the name; ARGS_ANY */
	unsigned flags;			/* enum command_flag */
	enum command_group group;
	enum complete_kind complete;	/* the first argument */
	enum complete_kind complete2;	/* the second */
	const char *const *words;	/* COMPLETE_WORDS: NULL-terminated */
	const char *usage;
	const char *help;
	const char *offline_hint;	/* CMD_LIVE: what to do offline instead */
	void (*more_help)(FILE *out);	/* help made from another table */
	const struct subcommand *subs;	/* its subcommands, up to a NULL name;
					 * usage and run come from them */
};

/* The live splices in format f, read from gilk.ko a page at a time (info
 * splices, dump splices: cmd_dump.c); *n: how many. */
int format_splices_live(struct session *s, FILE *f, enum format fmt, size_t *n,
			struct gerr *e);

/* extern const struct command cmd_NAME, one per row, and COMMAND_ROWS */
#include "command_list.h"

const struct command *command_find(const char *name);
/* With "set trace-commands on", echoes a command that was not typed (from
 * source, -x, -c or a pipe), "+" first, as gdb's; comments and blank lines
 * are not commands. */
void command_trace(struct session *s, const char *line);
/* The i-th command by name, NULL past the last. */
const struct command *command_at(size_t i);

/* "usage: ..." from c's row; returns -1. */
int command_usage(const struct command *c, struct gerr *e);
/* c's usage: its row's, or made from its subcommands' ("info splices [ID] |
 * info instruments | ..."). buf holds the made one. */
const char *command_usage_str(const struct command *c, char *buf, size_t len);

/* Before leaving: asks about this session's splices (see cmd_quit.c).
 * 1: quit (after removing them when asked), 0: stay, -1: an error. */
int quit_confirm(struct session *s, struct gerr *e);

/* Runs one line: "CMD ARGS [> FILE | >> FILE]", "CMD ARGS | SHELL-COMMAND"
 * or "!SHELL-COMMAND". Returns 0, or -1 with *e set. */
int command_run_line(struct session *s, char *line, struct gerr *e);

#endif
