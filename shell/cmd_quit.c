/* quit: leave the shell. Splices outlive the shell that made them, like
 * breakpoints in a kernel debugger; but as gdb asks before it kills an
 * inferior, quit asks about this session's splices when a person is there
 * to answer (never under -batch, -c, -x or a pipe). */
#include <errno.h>
#include <readline/readline.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int quit_confirm(struct session *s, struct gerr *e)
{
	uint32_t *ids;
	size_t n;
	char q[128];
	int rc = 2;

	if (!s->asks || !s->live || !s->nmade)
		return 1;
	session_splices_refresh(s);
	ids = calloc(s->nspliced + 1, sizeof(*ids));
	if (!ids)
		return gerr_setc(e, ENOMEM, "out of memory");
	n = session_made_live(s, ids);
	if (!n) {
		free(ids);
		return 1;
	}
	snprintf(q, sizeof(q), "This session made %zu splice%s still in place. Remove %s? (yes, no, keep) ",
		 n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
	while (rc == 2) {
		char *a = readline(q);

		if (!a || !strcmp(a, "keep") || !strcmp(a, "k"))
			rc = 1;		/* EOF keeps them: nothing is undone unasked */
		else if (!strcmp(a, "yes") || !strcmp(a, "y"))
			rc = live_unsplice_batch(&s->lv, ids, n, e) ? -1 : 1;
		else if (!strcmp(a, "no") || !strcmp(a, "n"))
			rc = 0;
		if (rc == 1 && a && a[0] == 'y')
			fprintf(s->out, "unspliced %zu\n", n);
		free(a);
		if (rc == 2)
			fprintf(s->out, "Please answer yes (remove them and quit), no (stay) or keep (quit, they stay).\n");
	}
	free(ids);
	return rc;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
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
	.run = run,
	.usage = "quit",
	.help = "Leaves gilk. When splices this session made are still in place and\n"
		"gilk runs at a terminal, asks first: yes removes them and quits, no\n"
		"stays, keep quits and leaves them (as they stay after -batch, -c, -x\n"
		"or a pipe: \"unsplice all\" or unloading gilk.ko removes them).",
};
