/*
 * x86emit: a writer that emits x86-64 instructions into a buffer that will run
 * at a known address. It knows encodings, nothing about what the code means;
 * reloc_x86_64.c and splice_x86_64.c decide what to write. A write that does not fit, or a
 * branch out of rel32 reach, sets a sticky error the caller checks once.
 */
#ifndef GILK_X86EMIT_H
#define GILK_X86EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum x86reg {
	R_RAX, R_RCX, R_RDX, R_RBX, R_RSP, R_RBP, R_RSI, R_RDI,
	R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15
};

enum xw_error { XW_OK, XW_NOSPACE, XW_RANGE };

struct x86w {
	uint8_t *buf;
	size_t cap, len;
	uint64_t base;       /* address of buf[0] when it runs */
	enum xw_error err;
};

void xw_init(struct x86w *w, uint8_t *buf, size_t cap, uint64_t base);
uint64_t xw_pc(const struct x86w *w);

bool rel32_fits(uint64_t from_end, uint64_t to);
bool rel8_fits(uint64_t from_end, uint64_t to);
/* Whether v survives as a sign-extended 32-bit immediate. */
bool imm32_sext_fits(uint64_t v);

void xw_bytes(struct x86w *w, const void *p, size_t n);
void xw_fill_int3(struct x86w *w, size_t n);
void xw_jmp(struct x86w *w, uint64_t target);     /* e9 rel32 */
void xw_jmp8(struct x86w *w, uint64_t target);    /* eb rel8 */
void xw_jcc(struct x86w *w, unsigned cc, uint64_t target); /* 0f 8x rel32 */
/* Pushes a 64-bit value without touching flags or any register but rsp. */
void xw_push_u64(struct x86w *w, uint64_t v);

#endif
