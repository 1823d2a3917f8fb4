/* Pipes and shell escapes (see pipe.h). */
#include "output/pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *pipe_split(char *line)
{
	char quote = 0;
	bool word_start = true;

	for (char *p = line; *p; p++) {
		if (quote) {
			quote = *p == quote ? 0 : quote;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '#' && word_start) {
			return NULL;
		} else if (*p == '|' && p[1] == '|') {
			p++;	/* a filter's ||, not a pipe */
		} else if (*p == '|') {
			*p = '\0';
			return p + 1;
		}
		word_start = *p == ' ' || *p == '\t';
	}
	return NULL;
}

/* The descriptor behind out (the terminal when out has none, as the pager). */
static int out_fd(FILE *out)
{
	int fd = fileno(out);

	fflush(out);
	return fd >= 0 ? fd : STDOUT_FILENO;
}

/* Forks /bin/sh -c cmd with stdin from in (when >= 0) and stdout to out. */
static pid_t spawn(const char *cmd, int in, int out, struct gerr *e)
{
	pid_t pid = fork();

	if (pid < 0)
		return gerr_set(e, "fork: %m");
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (in >= 0 && in != STDIN_FILENO)
			dup2(in, STDIN_FILENO);
		if (out != STDOUT_FILENO)
			dup2(out, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int wait_status(pid_t pid, const char *cmd, struct gerr *e)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return gerr_set(e, "waiting for \"%s\": %m", cmd);
	if (WIFEXITED(st) && WEXITSTATUS(st))
		return gerr_set(e, "shell command \"%s\" exited with status %d", cmd,
				WEXITSTATUS(st));
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGPIPE)
		return gerr_set(e, "shell command \"%s\" killed by signal %d", cmd,
				WTERMSIG(st));
	return 0;
}

int pipe_open(struct pipe_out *p, const char *cmd, FILE *out, struct gerr *e)
{
	int fds[2];

	/* Close-on-exec: the shell must not hold the write end, or its
	 * reader never sees the end of the output. */
	if (pipe2(fds, O_CLOEXEC))
		return gerr_set(e, "pipe: %m");
	p->cmd = cmd;
	p->pid = spawn(cmd, fds[0], out_fd(out), e);
	close(fds[0]);
	if (p->pid < 0) {
		close(fds[1]);
		return -1;
	}
	p->f = fdopen(fds[1], "w");
	if (!p->f) {
		close(fds[1]);
		wait_status(p->pid, cmd, NULL);
		return gerr_set(e, "fdopen: %m");
	}
	return 0;
}

int pipe_close(struct pipe_out *p, struct gerr *e)
{
	/* A reader that stopped early ("| head") is not an error: EPIPE. */
	fclose(p->f);
	return wait_status(p->pid, p->cmd, e);
}

int pipe_shell(const char *cmd, FILE *out, struct gerr *e)
{
	pid_t pid = spawn(cmd, -1, out_fd(out), e);

	return pid < 0 ? -1 : wait_status(pid, cmd, e);
}
