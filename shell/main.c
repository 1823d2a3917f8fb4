/*
 * gilk: the shell. Live (the running kernel through /dev/gilk) by default;
 * offline with --kernel and --symbols (no root needed: disas, blocks, plan).
 * Commands come from -c and -x, from a terminal with line editing, history,
 * Tab completion, a pager and Ctrl-C, or from a pipe; outside a terminal
 * the first error ends the run with status 1. --check replays a transcript
 * and compares its output with the expected lines it carries.
 */
#include <readline/history.h>
#include <readline/readline.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands/commands.h"
#include "complete/complete.h"
#include "session/interrupt.h"
#include "lineindex.h"
#include "output/pager.h"
#include "script/record.h"
#include "script/script.h"
#include "session/session.h"
#include "script/transcript_check.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gilk [--kernel IMAGE --symbols FILE] [-batch] [-nx] [-c COMMAND]... [-x FILE]\n"
		"       gilk [--kernel IMAGE --symbols FILE] --check FILE\n"
		"       gilk --completion bash|zsh\n"
		"       gilk --index VMLINUX -o FILE|DIR [--source TREE]\n"
		"  live (default): the running kernel through /dev/gilk (gilk.ko, root)\n"
		"  --kernel IMAGE  offline: a vmlinux, a bzImage, an arm64 Image or /proc/kcore\n"
		"  --symbols FILE  offline: its kallsyms or System.map\n"
		"  -c COMMAND      run COMMAND (may be repeated), then exit\n"
		"  -x FILE         run the commands in FILE, then exit\n"
		"  -batch          run -c and -x, then exit; never ask (as gdb's)\n"
		"  -nx             do not run ~/.gilkinit first\n"
		"  --check FILE    replay the transcript FILE, checking its #=> lines\n"
		"  --completion SHELL  print gilk's bash or zsh completion script\n"
		"  --index VMLINUX  write the line index of a vmlinux with DWARF (a\n"
		"                  kernel's -dbg package)\n"
		"  -o FILE|DIR     with --index: to FILE, or to DIR/BUILD-ID.lines,\n"
		"                  where gilk looks for it\n"
		"  --source TREE   with --index: the kernel's source tree, relative to\n"
		"                  the index's folder unless absolute\n"
		"  --version       print gilk's version\n"
		"  --help          this\n"
		"Without -c or -x, commands come from the terminal, or from standard\n"
		"input when it is not one. ~/.gilkinit, when there is one, runs first\n"
		"(not for --check). \"help\" lists the commands.\n");
}

/* Runs a line; reports an error on stderr. Returns 0 or -1. */
static int run_line(struct session *s, const char *line)
{
	char *copy = strdup(line);	/* parsing splits the line in place */
	struct gerr e;
	int rc;

	if (!copy) {
		fprintf(stderr, "gilk: out of memory\n");
		return -1;
	}
	rc = command_run_line(s, copy, &e);
	free(copy);
	if (rc == 0)
		return 0;
	if (s->out != stdout)
		fflush(s->out);
	fprintf(stderr, "gilk: %s\n", e.msg);
	return -1;
}

static void leave(struct session *s)
{
	struct gerr e;
	int rc = quit_confirm(s, &e);

	if (rc < 0)
		fprintf(stderr, "gilk: %s\n", e.msg);
	s->quit = rc != 0;
}

/*
 * Ctrl-C at the prompt, as gdb's: what was typed goes, "Quit", a new
 * prompt. Readline calls this when a signal interrupts its read, after its
 * own handler has echoed ^C and passed SIGINT on to gilk's.
 */
static int prompt_interrupted(void)
{
	if (!interrupt_pending())
		return 0;
	interrupt_clear();
	rl_replace_line("", 0);
	fputs("\nQuit\n", rl_outstream ? rl_outstream : stdout);
	rl_on_new_line();
	rl_redisplay();
	return 0;
}

static int interactive(struct session *s)
{
	char hist[4096];
	const char *home = getenv("HOME");
	char *line;

	snprintf(hist, sizeof(hist), "%s/.gilk_history", home ? home : ".");
	complete_init(s);
	rl_signal_event_hook = prompt_interrupted;
	read_history(hist);
	s->asks = true;
	s->pager = isatty(STDOUT_FILENO) ? pager_open(stdout, STDIN_FILENO, &s->set) : NULL;
	if (s->pager)
		s->out = pager_stream(s->pager);
	while (!s->quit) {
		line = readline("(gilk) ");
		if (!line) {	/* Ctrl-D, as quit */
			fputc('\n', stdout);
			leave(s);
			continue;
		}
		if (s->pager)
			pager_reset(s->pager);
		if (*line) {
			add_history(line);
			if (run_line(s, line) == 0)
				record_line(s, line);
		} else if (s->repeat[0]) {
			/* gdb's Enter: disas and x go on where they stopped */
			char again[sizeof(s->repeat)];

			snprintf(again, sizeof(again), "%s", s->repeat);
			run_line(s, again);
		}
		free(line);
	}
	write_history(hist);
	return 0;
}

/*
 * Ctrl-C before a command of -c or of a stream runs (while the session
 * opened, or between two commands) stops gilk, as it would have stopped
 * the command: each command starts with the flag cleared, and would
 * otherwise run as if no one had asked.
 */
static int stopped_before(void)
{
	if (!interrupt_pending())
		return 0;
	interrupt_clear();
	fprintf(stderr, "gilk: interrupted\n");
	return 1;
}

static int from_stream(struct session *s, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;

	while (!s->quit && getline(&line, &cap, f) >= 0) {
		if (stopped_before() || (command_trace(s, line), run_line(s, line))) {
			free(line);
			return 1;
		}
		record_line(s, line);
	}
	free(line);
	/* Ctrl-C while waiting for a line is not the input's end */
	return interrupt_pending() ? 1 : 0;
}

/* ~/.gilkinit's commands, as gdb runs ~/.gdbinit: an error is said, and
 * the session goes on. */
static void init_file(struct session *s)
{
	const char *home = getenv("HOME");
	char path[4096];
	struct gerr e;

	if (!home || snprintf(path, sizeof(path), "%s/.gilkinit", home) >= (int)sizeof(path) ||
	    access(path, F_OK))
		return;
	if (script_run(s, path, &e))
		fprintf(stderr, "gilk: %s\n", e.msg);
}

/* gilk --index: the line index of a vmlinux (core/lineindex.h). */
static int index_main(const char *vmlinux, const char *out, const char *source)
{
	struct lineindex *li;
	struct timespec t0, t1;
	char path[PATH_MAX];
	struct gerr e;
	struct stat st;

	if (!vmlinux || !out) {
		fprintf(stderr, "gilk: --index VMLINUX needs -o FILE (and takes --source DIR)\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (lineindex_build(vmlinux, out, source, path, sizeof(path), &e) ||
	    lineindex_open(path, &li, &e)) {
		fprintf(stderr, "gilk: %s\n", e.msg);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s: %zu line rows in %zu files, %zu functions, %.1f MB, made in %.1f s\n",
	       path, lineindex_nrows(li), lineindex_nfiles(li) - 1, lineindex_nfuncs(li),
	       stat(path, &st) ? 0.0 : (double)st.st_size / 1e6,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	lineindex_close(li);
	return 0;
}

int main(int argc, char **argv)
{
	const char *image = NULL, *symbols = NULL, *script = NULL, *check = NULL;
	const char *index = NULL, *index_out = NULL, *source = NULL;
	char **cmds = calloc((size_t)argc, sizeof(*cmds));
	int ncmds = 0, rc = 0;
	bool batch = false, noinit = false;
	struct session s;
	struct gerr e;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("gilk %s\n", GILK_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			image = argv[++i];
		} else if (!strcmp(argv[i], "--symbols") && i + 1 < argc) {
			symbols = argv[++i];
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			cmds[ncmds++] = argv[++i];
		} else if (!strcmp(argv[i], "-x") && i + 1 < argc) {
			script = argv[++i];
		} else if (!strcmp(argv[i], "--check") && i + 1 < argc) {
			check = argv[++i];
		} else if (!strcmp(argv[i], "-batch") || !strcmp(argv[i], "--batch")) {
			batch = true;
		} else if (!strcmp(argv[i], "-nx") || !strcmp(argv[i], "--nx")) {
			noinit = true;
		} else if (!strcmp(argv[i], "--index") && i + 1 < argc) {
			index = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			index_out = argv[++i];
		} else if (!strcmp(argv[i], "--source") && i + 1 < argc) {
			source = argv[++i];
		} else if (!strcmp(argv[i], "--completion") && i + 1 < argc) {
			return complete_script(stdout, argv[++i]) ? 2 : 0;
		} else {
			fprintf(stderr, "gilk: unknown or incomplete argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (index || index_out || source) {
		free(cmds);
		return index_main(index, index_out, source);
	}
	if (!!image != !!symbols) {
		fprintf(stderr, "gilk: offline mode needs both --kernel and --symbols\n");
		return 2;
	}
	if (check && (ncmds || script)) {
		fprintf(stderr, "gilk: --check runs a transcript alone, without -c or -x\n");
		return 2;
	}
	/* A reader that stops early ("| head") ends a write, not gilk. */
	signal(SIGPIPE, SIG_IGN);
	interrupt_install();
	if (image ? session_open_offline(&s, image, symbols, &e) : session_open_live(&s, &e)) {
		fprintf(stderr, "gilk: %s\n", e.msg);
		if (!image)
			fprintf(stderr, "gilk: for offline analysis give --kernel IMAGE --symbols FILE\n");
		return 1;
	}
	if (check) {
		rc = transcript_check(&s, check, stdout) ? 1 : 0;
		session_close(&s);
		free(cmds);
		return rc;
	}
	if (!noinit)
		init_file(&s);
	for (int i = 0; i < ncmds && !rc && !s.quit; i++) {
		rc = stopped_before();
		if (rc)
			break;
		command_trace(&s, cmds[i]);
		rc = run_line(&s, cmds[i]) ? 1 : 0;
	}
	if (!rc && script && !s.quit && script_run(&s, script, &e)) {
		fprintf(stderr, "gilk: %s\n", e.msg);
		rc = 1;
	}
	if (!ncmds && !script && !batch)
		rc = isatty(0) ? interactive(&s) : from_stream(&s, stdin);
	session_close(&s);
	free(cmds);
	return rc;
}
