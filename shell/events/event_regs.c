/* The registers of the last event shown (see event_regs.h). */
#include "events/event_regs.h"

#include <stdlib.h>
#include <string.h>

#include "events/event_fields.h"

/* What an event can give, as events and filters name it; gdb's $pc, $sp,
 * $fp and $eflags stand for rip, rsp, rbp and rflags. */
static const char *const names[] = {
#define GILK_REG(name, member, dwarf) #name,
#define GILK_STATE(name, member, field) #name,
#include "gilk_regs.h"
#define GILK_ARG(i, name, member) "arg" #i,
#include "gilk_regs.h"
	"retval",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

struct event_regs {
	uint32_t splice;
	uint64_t v[NNAMES];
	uint32_t have;		/* bit i: names[i] is in v[i] */
};

static const char *canonical(const char *name)
{
	static const char *const alias[][2] = {
		{ "pc", "rip" }, { "sp", "rsp" }, { "fp", "rbp" }, { "eflags", "rflags" },
	};

	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(name, alias[i][0]))
			return alias[i][1];
	return name;
}

void event_regs_keep(struct session *s, const struct event_log *log, size_t n)
{
	for (size_t i = n; i-- > 0; ) {
		struct event_field_src src = { log, &log->ev[i] };
		struct event_regs r = { .splice = log->ev[i].splice };
		const char *str;

		for (size_t k = 0; k < NNAMES; k++) {
			str = NULL;
			if (event_field_value(&src, names[k], &r.v[k], &str) && !str)
				r.have |= 1u << k;
		}
		if (!(r.have & (1u << 16)))	/* no rip: no registers */
			continue;
		if (!s->regs && !(s->regs = malloc(sizeof(*s->regs))))
			return;
		*s->regs = r;
		return;
	}
}

int event_regs_value(const struct session *s, const char *name, uint64_t *v, struct gerr *e)
{
	const char *want = canonical(name);

	for (size_t k = 0; k < NNAMES; k++) {
		if (strcmp(names[k], want))
			continue;
		if (!s->regs)
			return gerr_set(e, "$%s: no event with registers shown yet: $NAME reads the "
					"last one \"events\" showed (a regs splice's)", name);
		if (!(s->regs->have & (1u << k)))
			return gerr_set(e, "$%s: the last event with registers (splice %u) has no %s",
					name, s->regs->splice, want);
		*v = s->regs->v[k];
		return 0;
	}
	return gerr_set(e, "$%s: no such register (rax..r15, rip, rflags, arg0..arg5, retval; "
			"$pc, $sp, $fp as gdb's)", name);
}

void event_regs_free(struct session *s)
{
	free(s->regs);
	s->regs = NULL;
}
