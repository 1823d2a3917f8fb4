/* The command table and line dispatch (see commands.h). */
#include "commands/commands.h"

#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "session/interrupt.h"
#include "commands/parse.h"
#include "output/pipe.h"

static const struct command *const table[] = { COMMAND_ROWS };

const char *command_group_title(enum command_group g)
{
	static const char *const titles[GROUP_END] = {
		[GROUP_CODE] = "Reading the kernel's code and data",
		[GROUP_SPLICE] = "Splicing",
		[GROUP_RESULTS] = "What the splices saw",
		[GROUP_SESSION] = "The session",
	};

	return g > 0 && g < GROUP_END ? titles[g] : "";
}

const struct command *command_at(size_t i)
{
	return i < sizeof(table) / sizeof(table[0]) ? table[i] : NULL;
}

const struct command *command_find(const char *name)
{
	const struct command *c, *prefix = NULL;
	size_t n = strlen(name), matches = 0;

	for (size_t i = 0; (c = command_at(i)); i++) {
		if (!strcmp(c->name, name) || (c->alias && !strcmp(c->alias, name)))
			return c;
		if (n && !strncmp(c->name, name, n)) {
			prefix = c;
			matches++;
		}
	}
	/* gdb's rule: a unique prefix names its command */
	return matches == 1 ? prefix : NULL;
}

const char *command_usage_str(const struct command *c, char *buf, size_t len)
{
	size_t at = 0;

	if (!c->subs)
		return c->usage;
	buf[0] = 0;
	for (const struct subcommand *u = c->subs; u->name && at < len; u++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s %s%s%s", at ? " | " : "", c->name,
				       u->name, u->args ? " " : "", u->args ? u->args : "");
	return buf;
}

int command_usage(const struct command *c, struct gerr *e)
{
	char buf[512];

	return gerr_set(e, "usage: %s", command_usage_str(c, buf, sizeof(buf)));
}

/* The subcommand of c that word names, exactly or by a unique prefix. */
static const struct subcommand *subcommand_find(const struct command *c, const char *word)
{
	const struct subcommand *found = NULL;
	size_t n = strlen(word), matches = 0;

	for (const struct subcommand *u = c->subs; u->name; u++) {
		if (!strcmp(u->name, word))
			return u;
		if (n && !strncmp(u->name, word, n)) {
			found = u;
			matches++;
		}
	}
	return matches == 1 ? found : NULL;
}

/* "info what? splices, instruments, ... or variables" */
static int what(const struct command *c, struct gerr *e)
{
	char list[256];
	size_t at = 0, n = 0;

	for (const struct subcommand *u = c->subs; u->name; u++)
		n++;
	list[0] = 0;
	for (size_t i = 0; i < n && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
				       !i ? "" : i + 1 == n ? " or " : ", ", c->subs[i].name);
	return gerr_set(e, "%s what? %s", c->name, list);
}

/* A mode check's error, with the row's hint for offline use. */
static int need_live(struct session *s, const char *what, const char *hint, struct gerr *e)
{
	char m[sizeof(e->msg)];

	if (!session_need_live(s, what, e))
		return 0;
	/* a kernel gilk plans and does not splice yet (arm64): what to do
	 * offline then needs its tables, which its kallsyms may not bound */
	if (!arch_info(s->k->arch)->emit) {
		gerr_set(e, "%s needs gilk.ko, which does not splice %s kernels yet%s", what,
			 arch_name(s->k->arch),
			 s->k->no_tables ? "; offline, plan needs the kernel's tables, which its kallsyms"
			 " does not bound: gilk --kernel IMAGE --symbols System.map" : "");
		if (s->k->no_tables || !hint)
			return -1;
		snprintf(m, sizeof(m), "%s", e->msg);
		gerr_set(e, "%s; offline, %s", m, hint);
		return -1;
	}
	if (hint) {
		snprintf(m, sizeof(m), "%s", e->msg);
		gerr_set(e, "%s; offline, %s", m, hint);
	}
	return -1;
}

static bool arity_ok(int nargs, int min, int max)
{
	return nargs >= min && (max == ARGS_ANY || nargs <= max);
}

/* The mode and the arity, from c's row, or from its subcommand's (then
 * *sub is that row; argv[1] names it). */
static int check_row(struct session *s, const struct command *c, int nargs, char **argv,
		     const struct subcommand **sub, struct gerr *e)
{
	*sub = NULL;
	if ((c->flags & CMD_LIVE) && need_live(s, c->name, c->offline_hint, e))
		return -1;
	if (!c->subs)
		return arity_ok(nargs, c->min_args, c->max_args) ? 0 : command_usage(c, e);
	if (!nargs)
		return command_usage(c, e);
	if (!(*sub = subcommand_find(c, argv[1])))
		return what(c, e);
	if (!arity_ok(nargs - 1, (*sub)->min_args, (*sub)->max_args))
		return gerr_set(e, "usage: %s %s%s%s", c->name, (*sub)->name,
				(*sub)->args ? " " : "", (*sub)->args ? (*sub)->args : "");
	if ((*sub)->flags & CMD_LIVE) {
		char name[96];

		snprintf(name, sizeof(name), "%s %s", c->name, (*sub)->name);
		return need_live(s, name, NULL, e);
	}
	return 0;
}

/* The command line's first word names, when it has flag; *rest is what
 * follows it, blanks and the line's end trimmed. */
static const struct command *command_with(char *line, unsigned flag, char **rest)
{
	char word[64];
	size_t n;
	const struct command *c;

	line += strspn(line, " \t");
	n = strcspn(line, " \t\r\n");
	if (n == 0 || n >= sizeof(word))
		return NULL;
	snprintf(word, sizeof(word), "%.*s", (int)n, line);
	c = command_find(word);
	if (!c || !(c->flags & flag))
		return NULL;
	*rest = line + n + strspn(line + n, " \t");
	(*rest)[strcspn(*rest, "\r\n")] = '\0';
	return c;
}

/*
 * A CMD_IF command's "if EXPR": the line ends before the word "if" (outside
 * quotes), and the expression, as typed, is returned; NULL when there is
 * none.
 */
static char *if_split(char *line)
{
	char *rest, quote = 0;
	bool word_start = true;

	if (!command_with(line, CMD_IF, &rest))
		return NULL;
	for (char *p = rest; *p; p++) {
		if (quote) {
			quote = *p == quote ? 0 : quote;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (word_start && !strncmp(p, "if", 2) &&
			   (!p[2] || p[2] == ' ' || p[2] == '\t')) {
			*p = '\0';
			return p + 2 + strspn(p + 2, " \t");
		}
		word_start = *p == ' ' || *p == '\t';
	}
	return NULL;
}

/*
 * gdb's words for a stopped program, which gilk never has: what gilk does
 * instead, said before a prefix could take them ("b" is not blocks).
 */
static const struct {
	const char *word, *instead;
} gdb_words[] = {
	{ "b", "break" }, { "break", "break" }, { "tbreak", "break" }, { "watch", "break" },
	{ "bt", "bt" }, { "backtrace", "bt" }, { "where", "bt" },
	{ "c", "run" }, { "continue", "run" }, { "run", "run" }, { "step", "run" },
	{ "s", "run" }, { "next", "run" }, { "n", "run" }, { "stepi", "run" },
	{ "si", "run" }, { "finish", "run" }, { "frame", "bt" }, { "up", "bt" },
	{ "down", "bt" },
};

static const char *gdb_instead(const char *name)
{
	for (size_t i = 0; i < sizeof(gdb_words) / sizeof(gdb_words[0]); i++) {
		if (strcmp(gdb_words[i].word, name))
			continue;
		if (!strcmp(gdb_words[i].instead, "break"))
			return "gilk never stops the kernel: \"splice LOCATION regs\" records the "
			       "registers at each hit (\"events\" shows them), \"splice LOCATION\" "
			       "counts the hits";
		if (!strcmp(gdb_words[i].instead, "bt"))
			return "no task stops for a backtrace: \"splice LOCATION stack\" records the "
			       "kernel stack at each hit (the stack instrument's module, "
			       "instruments/stack.ko), \"events\" shows them";
		return "nothing is stopped: the kernel runs on while gilk splices it; \"events\" "
		       "shows what the hits recorded, \"info splices\" how often each ran";
	}
	return NULL;
}

/* The command words[0] names; "x/4i" names x. */
static const struct command *find_word(const char *word, struct gerr *e)
{
	char name[64];
	size_t n = strcspn(word, "/");
	const struct command *c;
	const char *instead;

	snprintf(name, sizeof(name), "%.*s", (int)n, word);
	instead = gdb_instead(name);
	if (instead) {
		gerr_set(e, "%s: %s", name, instead);
		return NULL;
	}
	c = command_find(name);
	if (!c) {
		gerr_set(e, "undefined command: \"%s\"; try \"help\"", name);
		return NULL;
	}
	if (word[n] && !(c->flags & CMD_FORMAT)) {
		gerr_set(e, "%s takes no /FORMAT (x does: x/4i LOCATION)", c->name);
		return NULL;
	}
	return c;
}

/* Runs c with its output where the line sends it. */
static int run_with_output(struct session *s, const struct command *c, int n,
			   char **words, const char *pipe_to, char *cond, struct gerr *e)
{
	FILE *saved = s->out, *to = NULL;
	const char *path = NULL, *mode = NULL;
	const struct subcommand *sub;
	struct pipe_out po;
	int rc;

	/* "CMD > FILE" or "CMD >> FILE", as in crash */
	if (n >= 3 && (!strcmp(words[n - 2], ">") || !strcmp(words[n - 2], ">>"))) {
		path = words[n - 1];
		mode = words[n - 2][1] ? "a" : "w";
		n -= 2;
	} else if (n >= 2 && (words[n - 1][0] == '>')) {
		return gerr_set(e, "redirection needs a file: CMD > FILE or CMD >> FILE");
	}
	if (pipe_to && path)
		return gerr_set(e, "a command's output goes to a file or a pipe, not both");
	/* Refused before FILE is opened: a usage error truncates nothing. */
	if (check_row(s, c, n - 1, words, &sub, e))
		return -1;
	if (cond && sub && !(sub->flags & CMD_IF))
		return gerr_set(e, "%s %s takes no \"if EXPR\"", c->name, sub->name);
	if (cond) {	/* words has room for these two */
		words[n++] = "if";
		words[n++] = cond;
	}
	if (path && !(to = fopen(path, mode)))
		return gerr_set(e, "%s: %m", path);
	if (pipe_to && pipe_open(&po, pipe_to, s->out, e))
		return -1;
	s->out = to ? to : pipe_to ? po.f : s->out;
	rc = sub ? sub->run(s, n - 1, words + 1, e) : c->run(s, n, words, e);
	s->out = saved;
	if (to && fclose(to) && !rc)
		rc = gerr_set(e, "%s: %m", path);
	if (pipe_to && pipe_close(&po, rc ? NULL : e) && !rc)
		rc = -1;
	return rc;
}

/* "!CMD" and the commands that take the rest of the line as it is. */
static int run_raw(struct session *s, const struct command *c, char *rest, struct gerr *e)
{
	char *argv[] = { (char *)c->name, rest, NULL };
	const struct subcommand *sub;

	if (check_row(s, c, rest[0] ? 1 : 0, argv, &sub, e))
		return -1;
	return c->run(s, rest[0] ? 2 : 1, argv, e);
}

static int run_words(struct session *s, char *line, char **words, int max, struct gerr *e)
{
	char *pipe_to = pipe_split(line), *cond = if_split(line);
	const char *err = NULL;
	const struct command *c;
	int n;

	n = parse_words(line, words, max - 2, &err);
	if (n < 0)
		return gerr_set(e, "%s", err);
	if (n == 0)
		return pipe_to ? gerr_set(e, "nothing to pipe: CMD | SHELL-COMMAND") : 0;
	if (pipe_to && !pipe_to[strspn(pipe_to, " \t\r\n")])
		return gerr_set(e, "a pipe needs a shell command: CMD | SHELL-COMMAND");
	c = find_word(words[0], e);
	if (!c)
		return -1;
	return run_with_output(s, c, n, words, pipe_to, cond, e);
}

static int run_line(struct session *s, char *line, struct gerr *e)
{
	const struct command *c;
	char **words, *rest;
	size_t max;
	int rc;

	line += strspn(line, " \t");
	if (line[0] == '!') {	/* gdb's and the shells' escape */
		line[1 + strcspn(line + 1, "\r\n")] = '\0';
		return run_raw(s, &cmd_shell, line + 1, e);
	}
	c = command_with(line, CMD_RAW, &rest);
	if (c)
		return run_raw(s, c, rest, e);
	/* As many words as the line can hold (a word and its blank take two
	 * bytes), and room for "if EXPR": a pasted list of any length. */
	max = strlen(line) / 2 + 3;
	if (max > INT_MAX)
		return gerr_set(e, "the line is too long");
	words = malloc(max * sizeof(*words));
	if (!words)
		return gerr_set(e, "out of memory");
	rc = run_words(s, line, words, (int)max, e);
	free(words);
	return rc;
}

void command_trace(struct session *s, const char *line)
{
	const char *p = line + strspn(line, " \t");

	if (s->set.trace_commands && *p && *p != '\n' && *p != '#')
		fprintf(s->out, "+%.*s\n", (int)strcspn(p, "\r\n"), p);
}

int command_run_line(struct session *s, char *line, struct gerr *e)
{
	int rc;

	s->repeat[0] = '\0';
	interrupt_clear();
	rc = run_line(s, line, e);
	if (interrupt_pending()) {
		interrupt_clear();
		s->repeat[0] = '\0';
		/* a command that says what its stop left keeps its words */
		if (rc && !strncmp(e->msg, "interrupted", 11))
			return rc;
		return gerr_set(e, "interrupted");
	}
	return rc;
}
