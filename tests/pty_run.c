/*
 * test-pty: runs a command on a pseudo-terminal as a person would use it:
 * each line of standard input is typed once the command prompts for it
 * ("(gilk) ", a question ending in ") ", or the pager's "--Type <RET> for
 * more..."), and what the terminal shows is copied to standard output. A
 * line "^C" is typed as Ctrl-C itself, which the terminal turns into
 * SIGINT, and "^D" as Ctrl-D (end of input at an empty line). The guest tests talk to gilk through it where
 * gilk behaves differently at a terminal (quit asks about splices).
 * Exits with the command's status.
 */
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether the terminal, since the last line typed, shows a prompt. */
static int prompted(const char *seen)
{
	return strstr(seen, "(gilk) ") || strstr(seen, ") ") || strstr(seen, "paging--");
}

int main(int argc, char **argv)
{
	char *in = NULL, seen[65536] = "";
	size_t cap = 0, nseen = 0, inlen, at = 0;
	int master, st;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: test-pty COMMAND [ARG]... <lines\n");
		return 2;
	}
	inlen = (size_t)getdelim(&in, &cap, '\0', stdin);
	if (inlen == (size_t)-1)
		inlen = 0;
	pid = forkpty(&master, NULL, NULL, NULL);
	if (pid < 0) {
		perror("forkpty");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		char buf[4096];
		ssize_t n;

		if (poll(&p, 1, 60000) <= 0)
			break;	/* silent for a minute: give up */
		n = read(master, buf, sizeof(buf));
		if (n <= 0)
			break;	/* EIO: the command has closed the terminal */
		fwrite(buf, 1, (size_t)n, stdout);
		fflush(stdout);
		if (nseen + (size_t)n < sizeof(seen)) {
			memcpy(seen + nseen, buf, (size_t)n);
			nseen += (size_t)n;
			seen[nseen] = '\0';
		}
		if (at < inlen && prompted(seen)) {
			size_t len = strcspn(in + at, "\n") + 1;
			int ctrl_c = len == 3 && !strncmp(in + at, "^C", 2);
			int ctrl_d = len == 3 && !strncmp(in + at, "^D", 2);

			if (ctrl_c || ctrl_d ? write(master, ctrl_c ? "\003" : "\004", 1) != 1 :
			    write(master, in + at, len) != (ssize_t)len)
				break;
			at += len;
			nseen = 0;
			seen[0] = '\0';
		}
	}
	free(in);
	if (waitpid(pid, &st, 0) < 0)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
