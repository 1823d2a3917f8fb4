/*
 * The decoder's state, shared by the generic decoder (decode.c) and each
 * architecture's (decode_x86_64.c, decode_arm64.c), which arch.h's
 * description of the instruction set names.
 */
#ifndef GILK_DECODE_INTERNAL_H
#define GILK_DECODE_INTERNAL_H

#include <Zydis/Zydis.h>
#include <capstone/capstone.h>

#include "decode.h"

struct decoder {
	enum arch arch;
	const struct arch_info *ai;
	ZydisDecoder zy;	/* x86-64's decoding */
	csh cs;		/* x86-64's text; arm64's decoding and text */
	cs_insn *ci;
	struct insn *cache;	/* DECODE_CACHE, by address; len 0: empty */
};

/* Capstone's text of the instruction in p[0..n) at a: "mnemonic operands" */
int decode_cs_text(struct decoder *d, const uint8_t *p, size_t n, uint64_t a, char *buf,
		   size_t len);

/* x86-64's steps (arch_x86_64.c names them) */
int decode_x86_64_open(struct decoder *d, struct gerr *e);
int decode_x86_64(struct decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		  struct insn *out);
bool decode_x86_64_keeps(const struct insn *in);
bool decode_x86_64_is_idle(const struct insn *in);
bool decode_x86_64_is_trap_or_sys(const struct insn *in);
int decode_x86_64_text(struct decoder *d, const struct insn *in, char *buf, size_t len);

/* arm64's (arch_arm64.c names them; decode_arm64.h has the rest) */
int decode_arm64_open(struct decoder *d, struct gerr *e);
int decode_arm64(struct decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		 struct insn *out);
int decode_arm64_text(struct decoder *d, const struct insn *in, char *buf, size_t len);
uint32_t decode_arm64_writes_of(struct decoder *d, const struct insn *in);

#endif
