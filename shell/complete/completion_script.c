/*
 * gilk's bash and zsh completion scripts, written from the command table
 * ("gilk --completion bash|zsh"), so that they cannot drift from it: the
 * build writes them into build/completions/, and make install installs
 * those.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "complete/complete.h"

static const struct {
	const char *name, *help, *arg;	/* arg: NULL, "file" or a word list */
} options[] = {
	{ "--kernel", "offline: a vmlinux, a bzImage, an arm64 Image or /proc/kcore", "file" },
	{ "--symbols", "offline: the image's kallsyms or System.map", "file" },
	{ "-c", "run a command, then exit", "command" },
	{ "-x", "run the commands in a file, then exit", "file" },
	{ "-batch", "run -c and -x, then exit; never ask", NULL },
	{ "-nx", "do not run ~/.gilkinit first", NULL },
	{ "--check", "replay a checked transcript", "file" },
	{ "--completion", "print the bash or zsh completion script", "bash zsh" },
	{ "--index", "write the line index of a vmlinux with DWARF", "file" },
	{ "-o", "with --index: the index file, or its folder", "file" },
	{ "--source", "with --index: the kernel's source tree", "file" },
	{ "--version", "print gilk's version", NULL },
	{ "--help", "say how to use gilk", NULL },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static void header(FILE *out, const char *shell)
{
	fprintf(out, "# %s completion for gilk's command line, written by \"gilk --completion %s\"\n"
		"# from gilk's command table: do not edit (the build writes it anew).\n",
		shell, shell);
}

static void bash(FILE *out)
{
	const struct command *c;

	header(out, "bash");
	fprintf(out, "_gilk()\n{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n\n"
		"\tcase $prev in\n\t");
	for (size_t i = 0, k = 0; i < NOPTIONS; i++)
		if (options[i].arg && !strcmp(options[i].arg, "file"))
			fprintf(out, "%s%s", k++ ? " | " : "", options[i].name);
	fprintf(out, ")\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\t\treturn\n\t\t;;\n");
	fprintf(out, "\t--completion)\n\t\tCOMPREPLY=($(compgen -W \"bash zsh\" -- \"$cur\"))\n"
		"\t\treturn\n\t\t;;\n");
	fprintf(out, "\t-c)\n\t\tCOMPREPLY=($(compgen -W \"");
	for (size_t i = 0; (c = command_at(i)); i++)
		fprintf(out, "%s%s", i ? " " : "", c->name);
	fprintf(out, "\" -- \"$cur\"))\n\t\treturn\n\t\t;;\n\tesac\n"
		"\tCOMPREPLY=($(compgen -W \"");
	for (size_t i = 0; i < NOPTIONS; i++)
		fprintf(out, "%s%s", i ? " " : "", options[i].name);
	fprintf(out, "\" -- \"$cur\"))\n}\ncomplete -F _gilk gilk\n");
}

/* A zsh description inside single quotes: colons escaped, and brackets in
 * an _arguments spec (spec) where they would end the description. */
static void zsh_text(FILE *out, const char *t, size_t len, bool spec)
{
	for (size_t i = 0; i < len && t[i] && t[i] != '\n'; i++) {
		if (t[i] == '\'')
			fputs("'\\''", out);
		else if (t[i] == ':' || (spec && (t[i] == '[' || t[i] == ']')))
			fprintf(out, "\\%c", t[i]);
		else
			fputc(t[i], out);
	}
}

static void zsh(FILE *out)
{
	const struct command *c;

	fprintf(out, "#compdef gilk\n");
	header(out, "zsh");
	fprintf(out, "local state\nlocal -a cmds\ncmds=(\n");
	for (size_t i = 0; (c = command_at(i)); i++) {
		char buf[512];
		const char *usage = command_usage_str(c, buf, sizeof(buf));

		fprintf(out, "\t'%s:", c->name);
		zsh_text(out, usage, strlen(usage), false);
		fprintf(out, "'\n");
	}
	fprintf(out, ")\n_arguments \\\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const char *arg = options[i].arg;

		fprintf(out, "\t'%s%s[", !strcmp(options[i].name, "-c") ? "*" : "", options[i].name);
		zsh_text(out, options[i].help, strlen(options[i].help), true);
		fputc(']', out);
		if (arg && !strcmp(arg, "file"))
			fprintf(out, ":file:_files");
		else if (arg && !strcmp(arg, "command"))
			fprintf(out, ":command:->command");
		else if (arg)
			fprintf(out, ":value:(%s)", arg);
		fprintf(out, "' \\\n");
	}
	fprintf(out, "\t&& return 0\n"
		"case $state in\ncommand) _describe -t commands 'gilk command' cmds ;;\nesac\n");
}

int complete_script(FILE *out, const char *shell)
{
	if (!strcmp(shell, "bash"))
		bash(out);
	else if (!strcmp(shell, "zsh"))
		zsh(out);
	else {
		fprintf(stderr, "gilk: --completion bash or zsh, not '%s'\n", shell);
		return -1;
	}
	return 0;
}
