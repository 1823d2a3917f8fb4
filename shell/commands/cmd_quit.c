/* quit: leave the shell. Splices outlive the shell that made them, like
 * breakpoints in a kernel debugger; but as gdb asks before it kills an
 * inferior, quit asks about this session's splices when a person is there
 * to answer (never under -batch, -c, -x or a pipe). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <readline/readline.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "commands/commands.h"
#include "session/interrupt.h"

/*
 * The answer is read through this: Ctrl-C ends the question (as no), where
 * readline's own handling would only draw it again. Readline's signal
 * handling is off meanwhile, so gilk's handler sees the SIGINT at once and
 * the read it interrupts returns.
 */
static int answer_getc(FILE *in)
{
	unsigned char c;

	for (;;) {
		ssize_t r;

		if (interrupt_pending())
			return EOF;
		r = read(fileno(in), &c, 1);
		if (r == 1)
			return c;
		if (r == 0 || errno != EINTR)
			return EOF;
	}
}

/* A line of answer; NULL at end of input or Ctrl-C (then *interrupted). */
static char *answer(const char *q, bool *interrupted)
{
	rl_getc_func_t *getc_was = rl_getc_function;
	int catch_was = rl_catch_signals;
	char *a;

	rl_getc_function = answer_getc;
	rl_catch_signals = 0;
	a = readline(q);
	rl_getc_function = getc_was;
	rl_catch_signals = catch_was;
	*interrupted = interrupt_pending();
	if (*interrupted) {
		interrupt_clear();
		free(a);
		a = NULL;
	}
	return a;
}

/* The splices' ids, "4, 5 and 6" or "4, 5, ... (12 in all)", and how a
 * later gilk removes them. */
static void say_kept(struct session *s, const uint32_t *ids, size_t n)
{
	fprintf(s->out, "Keeping %zu splice%s (", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 8; i++)
		fprintf(s->out, "%s%u", i ? ", " : "", ids[i]);
	if (n > 8)
		fprintf(s->out, ", ...");
	fprintf(s->out, "): they count on; \"unsplice ID...\" or \"unsplice all\" in a later gilk "
		"removes them.\n");
}

int quit_confirm(struct session *s, struct gerr *e)
{
	uint32_t *ids;
	size_t n;
	char q[160];
	int rc = 2;

	if (!s->asks || !s->live || !s->nmade)
		return 1;
	session_splices_refresh(s);
	ids = calloc(s->nmarks + 1, sizeof(*ids));
	if (!ids)
		return gerr_setc(e, ENOMEM, "out of memory");
	n = session_made_live(s, ids);
	if (!n) {
		free(ids);
		return 1;
	}
	/* the question short enough for any terminal's line: what it is
	 * about goes first */
	fprintf(s->out, "This session made %zu splice%s still in place.\n", n, n == 1 ? "" : "s");
	snprintf(q, sizeof(q), "Remove %s before quitting? (yes, no, keep) ",
		 n == 1 ? "it" : "them");
	while (rc == 2) {
		bool interrupted;
		char *a = answer(q, &interrupted);

		if (interrupted || (a && (!strcmp(a, "no") || !strcmp(a, "n")))) {
			fprintf(s->out, "%sNot quitting: the splices stay, and so does gilk.\n",
				interrupted ? "^C\n" : "");
			rc = 0;
		} else if (!a || !strcmp(a, "keep") || !strcmp(a, "k")) {
			/* EOF keeps them, nothing undone unasked, and says so */
			if (!a)
				fputc('\n', s->out);
			say_kept(s, ids, n);
			rc = 1;
		} else if (!strcmp(a, "yes") || !strcmp(a, "y")) {
			rc = live_unsplice_batch(&s->lv, ids, n, e) ? -1 : 1;
			if (rc == 1)
				fprintf(s->out, "unspliced %zu\n", n);
		} else {
			fprintf(s->out, "Please answer yes (remove them, then quit), no (stay in gilk) "
				"or keep (quit and leave them counting).\n");
		}
		free(a);
	}
	free(ids);
	return rc;
}

static int quit_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	int rc;

	(void)argc;
	(void)argv;
	rc = quit_confirm(s, e);
	if (rc < 0)
		return -1;
	s->quit = rc == 1;
	return 0;
}

const struct command cmd_quit = {
	.name = "quit",
	.group = GROUP_SESSION,
	.run = quit_command,
	.usage = "quit",
	.help = "Leaves gilk. When splices this session made are still in place and\n"
		"gilk runs at a terminal, asks first: yes removes them and quits, no\n"
		"(or Ctrl-C) stays, keep (or Ctrl-D) quits and leaves them, and says\n"
		"which (as they stay after -batch, -c, -x or a pipe: \"unsplice all\" or\n"
		"unloading gilk.ko removes them).",
};
