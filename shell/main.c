/*
 * gilk: the shell. Live (the running kernel through /dev/gilk) by default;
 * offline with --kernel and --symbols (no root needed: disas, blocks, plan).
 * Commands come from -c and -x, from a terminal with line editing, history
 * and Tab completion, or from a pipe; outside a terminal the first error
 * ends the run with status 1.
 */
#include <readline/history.h>
#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "complete.h"
#include "session.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gilk [--kernel IMAGE --symbols FILE] [-c COMMAND]... [-x FILE]\n"
		"  live (default): the running kernel through /dev/gilk (gilk.ko, root)\n"
		"  --kernel IMAGE  offline: a vmlinux, a bzImage or /proc/kcore\n"
		"  --symbols FILE  offline: its kallsyms or System.map\n"
		"  -c COMMAND      run COMMAND (may be repeated), then exit\n"
		"  -x FILE         run the commands in FILE, then exit\n"
		"Without -c or -x, commands come from the terminal, or from standard\n"
		"input when it is not one. \"help\" lists the commands.\n");
}

/* Runs a line; reports an error on stderr. Returns 0 or -1. */
static int run_line(struct session *s, char *line)
{
	struct gerr e;

	if (command_run_line(s, line, &e) == 0)
		return 0;
	fprintf(stderr, "gilk: %s\n", e.msg);
	return -1;
}

static int interactive(struct session *s)
{
	char hist[4096];
	const char *home = getenv("HOME");
	char *line;

	snprintf(hist, sizeof(hist), "%s/.gilk_history", home ? home : ".");
	complete_init(s);
	read_history(hist);
	while (!s->quit && (line = readline("(gilk) "))) {
		if (*line)
			add_history(line);
		run_line(s, line);
		free(line);
	}
	write_history(hist);
	return 0;
}

static int from_stream(struct session *s, FILE *f)
{
	char line[4096];

	while (!s->quit && fgets(line, sizeof(line), f))
		if (run_line(s, line))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *image = NULL, *symbols = NULL, *script = NULL;
	char **cmds = calloc((size_t)argc, sizeof(*cmds));
	int ncmds = 0, rc = 0;
	struct session s;
	struct gerr e;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			image = argv[++i];
		} else if (!strcmp(argv[i], "--symbols") && i + 1 < argc) {
			symbols = argv[++i];
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			cmds[ncmds++] = argv[++i];
		} else if (!strcmp(argv[i], "-x") && i + 1 < argc) {
			script = argv[++i];
		} else {
			fprintf(stderr, "gilk: unknown or incomplete argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!!image != !!symbols) {
		fprintf(stderr, "gilk: offline mode needs both --kernel and --symbols\n");
		return 2;
	}
	if (image ? session_open_offline(&s, image, symbols, &e) : session_open_live(&s, &e)) {
		fprintf(stderr, "gilk: %s\n", e.msg);
		if (!image)
			fprintf(stderr, "gilk: for offline analysis give --kernel IMAGE --symbols FILE\n");
		return 1;
	}
	for (int i = 0; i < ncmds && !rc && !s.quit; i++)
		rc = run_line(&s, cmds[i]) ? 1 : 0;
	if (!rc && script && !s.quit) {
		FILE *f = fopen(script, "r");

		if (!f) {
			fprintf(stderr, "gilk: %s: %m\n", script);
			rc = 1;
		} else {
			rc = from_stream(&s, f);
			fclose(f);
		}
	}
	if (!ncmds && !script)
		rc = isatty(0) ? interactive(&s) : from_stream(&s, stdin);
	session_close(&s);
	free(cmds);
	return rc;
}
