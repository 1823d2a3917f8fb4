/* How a block leaves its function (see exits.h). */
#include "exits.h"

#include <string.h>

/* Return thunks are named for what they are: __x86_return_thunk, and the
 * retbleed, SRSO and ITS variants alternatives patch in; call depth
 * tracking's __x86_return_skl. */
static bool is_return_thunk(const char *name)
{
	size_t n = strlen(name), k = strlen("return_thunk");

	return (n >= k && !strcmp(name + n - k, "return_thunk")) ||
	       !strcmp(name, "__x86_return_skl");
}

static bool is_indirect_thunk(const char *name)
{
	return !strncmp(name, "__x86_indirect_", 15);
}

/* Where a direct branch out of the function lands: a return thunk, a
 * retpoline, another function's start, or the function's .cold part. */
static enum exit_kind kind_of_target(const struct symtab *st, uint64_t target)
{
	const struct ksym *sym = symtab_by_addr(st, target);

	if (!sym)
		return EXIT_TAIL_CALL;
	if (is_return_thunk(sym->name))
		return EXIT_RETURN_THUNK;
	if (is_indirect_thunk(sym->name))
		return EXIT_TAIL_INDIRECT;
	if (strstr(sym->name, ".cold"))
		return EXIT_COLD;
	return EXIT_TAIL_CALL;
}

/* A block that would run past the function's end, as one does after a
 * call that never returns (the compiler puts no ret after it, maybe
 * alignment nops): the last call, followed by nothing but nops. */
static void noreturn_call(const struct cfg *g, const struct block *bl, struct block_exit *x)
{
	for (uint32_t i = bl->first + bl->count; i-- > bl->first;) {
		const struct insn *in = &g->insns[i];

		if (in->kind == IK_CALL || in->kind == IK_CALL_IND) {
			x->kind = EXIT_NORETURN;
			x->addr = in->addr;
			x->target = in->kind == IK_CALL ? in->target : 0;
			return;
		}
		if (!in->nop)
			return;
	}
}

struct block_exit exit_of_block(const struct cfg *g, size_t b,
				const struct symtab *st)
{
	const struct block *bl = &g->blocks[b];
	const struct insn *last = &g->insns[bl->first + bl->count - 1];
	struct block_exit x = { EXIT_NONE, last->addr, 0 };
	bool out = insn_has_target(last) && last->kind != IK_CALL &&
		   (last->target < g->start || last->target >= g->end);

	switch (last->kind) {
	case IK_RET:
		x.kind = EXIT_RET;
		break;
	case IK_JMP:
		if (out) {
			x.target = last->target;
			x.kind = kind_of_target(st, last->target);
		}
		break;
	case IK_JCC:
		if (out) {
			x.target = last->target;
			x.kind = kind_of_target(st, last->target) == EXIT_COLD ? EXIT_NONE
									       : EXIT_CONDITIONAL;
		}
		break;
	case IK_JMP_IND:
		/* jmp [table + index] is a switch; through a register, a
		 * tail call (cfg.c says why) */
		x.kind = last->table_jump ? EXIT_NONE : EXIT_TAIL_INDIRECT;
		break;
	case IK_UD2:
	case IK_TRAP_EXIT:
		x.kind = EXIT_BUG;
		break;
	default:
		if (!bl->nsucc && insn_falls_through(last))
			noreturn_call(g, bl, &x);
		break;
	}
	if (x.kind == EXIT_NONE)
		x.addr = 0;
	return x;
}

bool exit_is_return_point(enum exit_kind kind)
{
	return kind == EXIT_RET || kind == EXIT_RETURN_THUNK ||
	       kind == EXIT_TAIL_CALL || kind == EXIT_TAIL_INDIRECT;
}

const char *exit_kind_str(enum exit_kind kind)
{
	static const char *const names[EXIT_NKINDS] = {
		[EXIT_NONE] = "none",
		[EXIT_RET] = "ret",
		[EXIT_RETURN_THUNK] = "return thunk",
		[EXIT_TAIL_CALL] = "tail call",
		[EXIT_TAIL_INDIRECT] = "indirect tail call",
		[EXIT_CONDITIONAL] = "conditional exit",
		[EXIT_NORETURN] = "noreturn call",
		[EXIT_COLD] = "on in .cold",
		[EXIT_BUG] = "trap",
	};

	return kind < EXIT_NKINDS ? names[kind] : "?";
}
