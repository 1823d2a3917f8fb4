/* Ctrl-C (see interrupt.h). */
#include "session/interrupt.h"

#include <signal.h>
#include <string.h>

/* The one piece of state outside the session: a signal handler is given
 * no context to put it in. */
static volatile sig_atomic_t pending;

static void on_sigint(int sig)
{
	(void)sig;
	pending = 1;
}

void interrupt_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	/* No SA_RESTART: a read from the terminal (the pager) returns. */
	sigaction(SIGINT, &sa, NULL);
}

bool interrupt_pending(void)
{
	return pending != 0;
}

void interrupt_clear(void)
{
	pending = 0;
}
