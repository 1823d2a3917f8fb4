/* help: the list of commands, or one command's usage and help; and the two
 * tables a refused splice is explained by. */
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "errnos.h"
#include "splice.h"

/* Why the planner refuses a site: the names blocks, plan and coverage say;
 * live, how many functions gilk.ko found of the classes it finds at load. */
static void refusals(struct session *s)
{
	struct gilk_stats st;
	struct gerr e;

	fprintf(s->out, "Why a site is refused, by the name blocks, plan and coverage give:\n");
	for (int r = SPLICE_OK + 1; r < SR_NREASONS; r++)
		fprintf(s->out, "  %-18s %s\n", splice_reason_name(r), splice_reason_str(r));
	if (s->live && !live_stats(&s->lv, &st, &e))
		fprintf(s->out, "\nIn this kernel gilk.ko found %u functions with early-cpu code and %u with rcu-idle code.\n",
			st.early_cpu_fns, st.rcu_idle_fns);
}

/* What gilk.ko's errnos mean, beside the message strerror() gives them. */
static void errors(FILE *out)
{
	const struct gilk_errno *g;

	const struct gilk_refusal_row *r;

	fprintf(out, "What gilk.ko's errors mean (a refused splice also says why):\n");
	for (size_t i = 0; (g = gilk_errno_at(i)); i++)
		fprintf(out, "  %-14s %s: %s\n", g->name, strerror(g->err), g->meaning);
	fprintf(out, "\nWhy gilk.ko refuses a splice, by the name its message gives, with its errno:\n");
	for (size_t i = 0; (r = gilk_refusal_at(i)); i++)
		fprintf(out, "  %-22s %-14s %s\n", r->name, r->err_name, r->meaning);
}

/* "Needs live mode: info splices, info instruments." from the rows. */
static void live_subcommands(FILE *out, const struct command *c)
{
	int n = 0;

	for (const struct subcommand *u = c->subs; u && u->name; u++)
		if (u->flags & CMD_LIVE)
			fprintf(out, "%s%s %s", n++ ? ", " : "Needs live mode: ", c->name, u->name);
	if (n)
		fprintf(out, ".\n");
}

static int help_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	const struct command *c;

	if (argc == 2 && !strcmp(argv[1], "refusals")) {
		refusals(s);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "errors")) {
		errors(s->out);
		return 0;
	}
	if (argc == 2) {
		c = command_find(argv[1]);
		if (!c)
			return gerr_set(e, "no command \"%s\"; \"help\" lists them", argv[1]);
		char buf[512];

		fprintf(s->out, "usage: %s\n%s\n", command_usage_str(c, buf, sizeof(buf)), c->help);
		if (c->more_help)
			c->more_help(s->out);
		fprintf(s->out, "%s", (c->flags & CMD_LIVE) ? "Needs live mode.\n" : "");
		live_subcommands(s->out, c);
		return 0;
	}
	fprintf(s->out, "gilk commands (%s mode; \"help COMMAND\" for more):\n",
		s->live ? "live" : "offline");
	for (int g = GROUP_CODE; g < GROUP_END; g++) {
		fprintf(s->out, "%s:\n", command_group_title(g));
		for (size_t i = 0; (c = command_at(i)); i++) {
			char buf[512];

			if ((int)c->group != g)
				continue;
			fprintf(s->out, "  %s%s\n", command_usage_str(c, buf, sizeof(buf)),
				(c->flags & CMD_LIVE) ? "   (live)" : "");
		}
	}
	fprintf(s->out, "A LOCATION is a symbol, symbol+offset (decimal or 0x-hex) or a 0x-address.\n"
		"Any command's output goes to a file with \"> FILE\" (\">> FILE\" appends),\n"
		"or through a shell command with \"| COMMAND\". At the terminal, Enter on\n"
		"an empty line repeats disas and x where they stopped, and Ctrl-C\n"
		"interrupts a command. \"help refusals\" says why a site can be refused,\n"
		"\"help errors\" what gilk.ko's errors mean.\n");
	return 0;
}

const struct command cmd_help = {
	.name = "help",
	.group = GROUP_SESSION,
	.run = help_command,
	.min_args = 0,
	.max_args = 1,
	.usage = "help [COMMAND|refusals|errors]",
	.help = "Lists the commands, or shows how to use one. A unique prefix of a\n"
		"command's name also names it (\"dis\" is \"disas\").\n"
		"help refusals: every reason a site can be refused, by the name blocks,\n"
		"plan and coverage give it. help errors: every error gilk.ko returns,\n"
		"with the message it prints as and what it means, then every kind of\n"
		"reason gilk.ko refuses a splice for, by the name its message gives.",
	.complete = COMPLETE_COMMAND,
};
