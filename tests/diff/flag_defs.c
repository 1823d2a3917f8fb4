#include "flag_defs.h"

#include <stdlib.h>
#include <string.h>

#define NSLOTS 65536u	/* a power of two */

/* Capstone's effect bits for each arithmetic flag, with its EFLAGS bit. */
static const struct {
	uint64_t written, undef;
	uint16_t bit;
} flags[] = {
	{ X86_EFLAGS_MODIFY_CF | X86_EFLAGS_RESET_CF | X86_EFLAGS_SET_CF, X86_EFLAGS_UNDEFINED_CF, 1u << 0 },
	{ X86_EFLAGS_MODIFY_PF | X86_EFLAGS_RESET_PF | X86_EFLAGS_SET_PF, X86_EFLAGS_UNDEFINED_PF, 1u << 2 },
	{ X86_EFLAGS_MODIFY_AF | X86_EFLAGS_RESET_AF | X86_EFLAGS_SET_AF, X86_EFLAGS_UNDEFINED_AF, 1u << 4 },
	{ X86_EFLAGS_MODIFY_ZF | X86_EFLAGS_RESET_ZF | X86_EFLAGS_SET_ZF, X86_EFLAGS_UNDEFINED_ZF, 1u << 6 },
	{ X86_EFLAGS_MODIFY_SF | X86_EFLAGS_RESET_SF | X86_EFLAGS_SET_SF, X86_EFLAGS_UNDEFINED_SF, 1u << 7 },
	{ X86_EFLAGS_MODIFY_OF | X86_EFLAGS_RESET_OF | X86_EFLAGS_SET_OF, X86_EFLAGS_UNDEFINED_OF, 1u << 11 },
};

int flag_defs_open(struct flag_defs *f)
{
	memset(f, 0, sizeof(*f));
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &f->cs) != CS_ERR_OK)
		return -1;
	cs_option(f->cs, CS_OPT_DETAIL, CS_OPT_ON);
	f->slots = calloc(NSLOTS, sizeof(*f->slots));
	if (!f->slots) {
		cs_close(&f->cs);
		return -1;
	}
	f->nslots = NSLOTS;
	return 0;
}

void flag_defs_close(struct flag_defs *f)
{
	free(f->slots);
	cs_close(&f->cs);
}

static void decode(struct flag_defs *f, struct flag_def_slot *s)
{
	cs_insn *insn;

	s->written = s->undef = 0;
	if (cs_disasm(f->cs, s->bytes, s->len, s->addr, 1, &insn) != 1)
		return;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		uint64_t e = insn->detail->x86.eflags;

		if (e & (flags[i].written | flags[i].undef))
			s->written |= flags[i].bit;
		if (e & flags[i].undef)
			s->undef |= flags[i].bit;
	}
	cs_free(insn, 1);
}

void flag_defs_of(struct flag_defs *f, uint64_t addr, const uint8_t *b, size_t n,
		  uint16_t *written, uint16_t *undef)
{
	struct flag_def_slot *s = &f->slots[(addr ^ (addr >> 16)) & (f->nslots - 1)];

	if (n > sizeof(s->bytes))
		n = sizeof(s->bytes);
	/* Generated code reuses addresses: the bytes are part of the key. */
	if (!s->len || s->addr != addr || s->len != n || memcmp(s->bytes, b, n)) {
		s->addr = addr;
		s->len = (uint8_t)n;
		memcpy(s->bytes, b, n);
		decode(f, s);
	}
	*written = s->written;
	*undef = s->undef;
}
