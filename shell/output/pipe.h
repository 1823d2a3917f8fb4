/*
 * pipe: a command's output through a shell command ("disas f | head -3", as
 * gdb's pipe and crash's |), and shell escapes ("shell CMD", "!CMD"). The
 * shell command writes where the gilk command would have: the terminal, a
 * file, or a transcript being checked.
 */
#ifndef GILK_PIPE_H
#define GILK_PIPE_H

#include <stdio.h>
#include <sys/types.h>

#include "gerr.h"

struct pipe_out {
	FILE *f;		/* what the gilk command writes to */
	pid_t pid;
	const char *cmd;
};

/* The shell command after the first | outside quotes and comments, with
 * line cut there; NULL when there is none. */
char *pipe_split(char *line);
/* Starts /bin/sh -c cmd reading what is written to p->f and writing to out. */
int pipe_open(struct pipe_out *p, const char *cmd, FILE *out, struct gerr *e);
/* Waits for it; a non-zero exit is an error (e may be NULL). */
int pipe_close(struct pipe_out *p, struct gerr *e);
/* Runs /bin/sh -c cmd with its output to out and waits for it. */
int pipe_shell(const char *cmd, FILE *out, struct gerr *e);

#endif
