/*
 * ptype and whatis: the kernel's C types from its BTF, as gdb's: ptype
 * shows a struct, union or enum whole (each member with its offset and
 * size, as pahole), whatis names the type; either takes a type ("struct
 * file", "u64") or an expression whose type it is ("init_task.comm").
 */
#include <stdio.h>
#include <string.h>

#include "session/cexpr.h"
#include "commands/commands.h"
#include "session/types.h"

/* A type written as such, or an expression's type. */
static int type_of(struct session *s, int argc, char **argv, struct ktype *ty, struct gerr *e)
{
	char text[1024] = "";
	struct ktypes *t;
	struct cval v;
	struct gerr as_type;

	for (int i = 1; i < argc; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", i > 1 ? " " : "", argv[i]);
	if (types_get(s, &t, e))
		return -1;
	if (!ktypes_parse(t, text, ty, &as_type))
		return 0;
	/* "struct nosuch" is a type that is not there, not an expression */
	if (!strncmp(text, "struct ", 7) || !strncmp(text, "union ", 6) || !strncmp(text, "enum ", 5))
		return gerr_set(e, "%s", as_type.msg);
	if (cexpr_eval(s, text, &v, e))
		return -1;
	if (!v.typed)
		return gerr_set(e, "%s has no type (a function's symbol, or a variable the debug information gives none)", text);
	*ty = v.type;
	return 0;
}

static int ptype_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct ktypes *t;
	struct ktype ty;

	if (type_of(s, argc, argv, &ty, e) || types_get(s, &t, e))
		return -1;
	ktypes_print_definition(t, &ty, s->out);
	return 0;
}

static int whatis_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	struct ktypes *t;
	struct ktype ty;
	char name[512];

	if (type_of(s, argc, argv, &ty, e) || types_get(s, &t, e))
		return -1;
	ktypes_name(t, &ty, name, sizeof(name));
	fprintf(s->out, "type = %s\n", name);
	return 0;
}

const struct command cmd_ptype = {
	.name = "ptype",
	.group = GROUP_CODE,
	.run = ptype_command,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.complete = COMPLETE_SYMBOL,
	.usage = "ptype TYPE|EXPR",
	.help = "The definition of a type, from the kernel's BTF, as gdb's ptype: a\n"
		"struct or union with each member's offset and size in bytes (a\n"
		"bitfield's first bit and width), as pahole shows them, and its size;\n"
		"an enum's values. TYPE is written as in C (struct file, u64, unsigned\n"
		"long); an EXPR (init_task.se, *init_task.thread_pid) gives its type.\n"
		"Offline the image's .BTF is read, live the running kernel's.",
};

const struct command cmd_whatis = {
	.name = "whatis",
	.group = GROUP_CODE,
	.run = whatis_command,
	.min_args = 1,
	.max_args = ARGS_ANY,
	.complete = COMPLETE_SYMBOL,
	.usage = "whatis TYPE|EXPR",
	.help = "The type of an expression (whatis init_task.comm: char [16]), or what\n"
		"a type name stands for, as gdb's whatis.",
};
