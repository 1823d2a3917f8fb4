/* print (p): the value of an expression, as gdb's print shows it. With the
 * kernel's BTF, a C expression over kernel memory (cexpr.h): "jiffies",
 * "init_task.comm", "*(struct file *)0x...", "current->pid". Without it,
 * symbols' addresses and numbers added and subtracted, "&init_task - 0x10". */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "session/cexpr.h"
#include "intexpr.h"
#include "commands/commands.h"
#include "output/code_text.h"
#include "session/types.h"
#include "output/xformat.h"

/* One term at *p (a number, or a symbol with an optional '&'), its value in
 * *v; *p moves past it. */
static int term(struct session *s, const char **p, uint64_t *v, bool *symbol,
		struct gerr *e)
{
	const char *t = *p + (**p == '&');
	size_t n = strcspn(t, " \t+-");
	char word[512];
	char *end;

	if (!n)
		return gerr_set(e, "print: a number or a symbol expected at '%s'", *p);
	if (n >= sizeof(word))
		return gerr_set(e, "print: '%.40s...' is too long", t);
	snprintf(word, sizeof(word), "%.*s", (int)n, t);
	*p = t + n;
	if (isdigit((unsigned char)word[0]) || word[0] == '(') {
		*v = strtoull(word, &end, 0);
		/* or numbers worked out: 39*8 */
		if (*end && intexpr_eval(word, v))
			return gerr_set(e, "print: '%s' is not a number (decimal or 0x-hex, or "
					"numbers with * / %% ( ))", word);
		return 0;
	}
	*symbol = true;
	return session_resolve(s, word, v, e);
}

/*
 * expr: [-] term (('+' | '-') term)*, in 64-bit arithmetic as the CPU's.
 * *address: whether it is an address (one symbol more added than taken
 * away), not a number ("a - b" is a distance).
 */
static int evaluate(struct session *s, const char *expr, uint64_t *v, bool *address,
		    struct gerr *e)
{
	const char *p = expr;
	bool neg = false;
	int symbols = 0;

	*v = 0;
	for (;;) {
		bool symbol = false;
		uint64_t t;

		p += strspn(p, " \t");
		if (*p == '-') {	/* a leading minus */
			neg = !neg;
			p++;
			continue;
		}
		if (term(s, &p, &t, &symbol, e))
			return -1;
		*v += neg ? -t : t;
		symbols += symbol ? (neg ? -1 : 1) : 0;
		p += strspn(p, " \t");
		*address = symbols == 1;
		if (!*p)
			return 0;
		if (*p != '+' && *p != '-')
			return gerr_set(e, "print: '+' or '-' expected at '%s'", p);
		neg = *p++ == '-';
	}
}

static int print_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	const char *slash = strchr(argv[0], '/');
	char expr[1024] = "", where[320];
	struct xfmt f = { 1, 0, 8 };
	struct ktypes *types;
	struct gerr te;
	bool address;
	uint64_t v;

	if (slash && xfmt_parse("print", slash + 1, "xduotca", 8, &f, e))
		return -1;
	if (f.count != 1)
		return gerr_set(e, "print/%s: a count means nothing to print (x/N does)", slash + 1);
	for (int i = 1; i < argc; i++)
		snprintf(expr + strlen(expr), sizeof(expr) - strlen(expr), "%s%s", i > 1 ? " " : "",
			 argv[i]);
	/* with the kernel's BTF, a C expression with types; without it,
	 * addresses and numbers */
	if (!types_get(s, &types, &te)) {
		struct cval cv;

		if (cexpr_eval(s, expr, &cv, e))
			return -1;
		if (!slash)
			return cexpr_print(s, &cv, false, e);
		/* a format prints a number; a struct or an array, in hex */
		if (cv.typed && cv.lvalue && (cv.type.array || ktypes_is_struct(types, &cv.type)))
			return cexpr_print(s, &cv, true, e);
		if (cexpr_scalar(s, &cv, e))
			return -1;
		xfmt_value(s, &f, cv.v, false);
		fputc('\n', s->out);
		return 0;
	}
	/* without types: an address (one symbol more added than taken away)
	 * with its symbol, any other value as a number; what needs a type
	 * says why there is none */
	if (evaluate(s, expr, &v, &address, e)) {
		char msg[sizeof(e->msg)];

		snprintf(msg, sizeof(msg), "%s", e->msg);
		return gerr_set(e, "%s (print reads no C types here: %s)", msg, te.msg);
	}
	if (slash) {
		xfmt_value(s, &f, v, false);
	} else if (address) {
		code_text_addr(s, v, where, sizeof(where));
		fputs(where, s->out);
	} else {
		f.fmt = 'd';
		xfmt_value(s, &f, v, false);
	}
	fputc('\n', s->out);
	return 0;
}

const struct command cmd_print = {
	.name = "print",
	.group = GROUP_CODE,
	.alias = "p",
	.run = print_command,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.flags = CMD_FORMAT,
	.complete = COMPLETE_SYMBOL,
	.usage = "print[/F] EXPR",
	.help = "The value of EXPR, as gdb's print. With the kernel's BTF (the running\n"
		"kernel's, or the image's offline) EXPR is C over kernel memory: a\n"
		"variable's value (jiffies; its type from the kernel's line index),\n"
		"members (init_task.comm, p->f), subscripts, *p, &x, casts (*(struct\n"
		"file *)0xffff...), numbers, * / % between numbers (p 39*8) and + -\n"
		"(a pointer steps by its target's\n"
		"size), live \"current\", gilk's own task (current->pid), and $rax..$r15,\n"
		"$rip, $rflags, $arg0..$arg5, $retval ($pc, $sp, $fp): the registers of\n"
		"the last event \"events\" showed with them (a regs splice's), as gdb's\n"
		"$rax is the selected frame's; x, info symbol and locations take them too\n"
		"(info symbol $rip, x/4gx $rsp). Integers\n"
		"print in decimal, enums by name, pointers in hex with their symbol,\n"
		"char arrays as strings, structs one member a line. A function's name\n"
		"is its address. Memory is read through gilk.ko live, from the image\n"
		"offline: an address nothing maps is an error. Without BTF: symbols'\n"
		"addresses and numbers with + and -. /F gives the format, as x's: x,\n"
		"d, u, o, t, c or a, with a size (b, h, w, g; g unless given); a struct\n"
		"with /x shows its members in hex. \"p\" is print; ptype and whatis\n"
		"show types.",
};
