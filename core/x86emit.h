/*
 * x86emit: a writer that emits x86-64 instructions into a buffer that will run
 * at a known address. It knows encodings, nothing about what the code means;
 * reloc.c and splice.c decide what to write. A write that does not fit, or a
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
void xw_call(struct x86w *w, uint64_t target);    /* e8 rel32 */
/* Pushes a 64-bit value without touching flags or any register but rsp. */
void xw_push_u64(struct x86w *w, uint64_t v);
void xw_pushfq(struct x86w *w);
void xw_popfq(struct x86w *w);
void xw_push_rsp_mem(struct x86w *w, int32_t off);   /* push qword [rsp+off] */
void xw_lea_rsp(struct x86w *w, int32_t off);        /* lea rsp, [rsp+off] */
void xw_lea_reg_rsp(struct x86w *w, enum x86reg r, int32_t off);
void xw_store_rsp(struct x86w *w, int32_t off, enum x86reg r); /* mov [rsp+off], r */
void xw_load_rsp(struct x86w *w, enum x86reg r, int32_t off);  /* mov r, [rsp+off] */
void xw_store_rsp_imm(struct x86w *w, int32_t off, int32_t imm); /* mov qword [rsp+off], imm */
void xw_movabs(struct x86w *w, enum x86reg r, uint64_t imm);
void xw_mov_reg(struct x86w *w, enum x86reg dst, enum x86reg src);
void xw_push(struct x86w *w, enum x86reg r);
void xw_pop(struct x86w *w, enum x86reg r);
void xw_xor32(struct x86w *w, enum x86reg r);             /* xor r32, r32 */
void xw_inc_gs_abs(struct x86w *w, int32_t disp);         /* inc qword gs:[disp32] */
void xw_inc_gs_reg(struct x86w *w, enum x86reg r);        /* inc qword gs:[r] */
void xw_call_reg(struct x86w *w, enum x86reg r);
void xw_clac(struct x86w *w);
/* For rax..rdi only (no REX.B/R: a higher register is an XW_RANGE error). */
void xw_rdtsc_ordered(struct x86w *w);                       /* lfence; rdtsc: edx:eax */
void xw_mov32_gs_abs(struct x86w *w, enum x86reg r, int32_t disp); /* mov r32, gs:[disp32] */
void xw_mov64_gs_abs(struct x86w *w, enum x86reg r, int32_t disp); /* mov r64, gs:[disp32] */
/* cmp dword [base + disp32], imm32 */
void xw_cmp32_mem_imm(struct x86w *w, enum x86reg base, int32_t disp, uint32_t imm);
/* cmp qword [base + disp32], src */
void xw_cmp64_mem_reg(struct x86w *w, enum x86reg base, int32_t disp, enum x86reg src);
/* xor dst, qword [base + disp32] */
void xw_xor64_mem(struct x86w *w, enum x86reg dst, enum x86reg base, int32_t disp);
/* setCC r8 (cc: 4 e, 5 ne; r: al, cl, dl or bl) */
void xw_setcc8(struct x86w *w, uint8_t cc, enum x86reg r);
/* inc qword gs:[index * 8 + disp32] */
void xw_inc_gs_index8(struct x86w *w, enum x86reg index, int32_t disp);
/* inc qword gs:[base + index * 8] */
void xw_inc_gs_base_index8(struct x86w *w, enum x86reg base, enum x86reg index);
/* mov dst32, [base + disp32] */
void xw_load32_disp32(struct x86w *w, enum x86reg dst, enum x86reg base, int32_t disp);
void xw_or32(struct x86w *w, enum x86reg dst, enum x86reg src);  /* or dst32, src32 */
void xw_xor64(struct x86w *w, enum x86reg dst, enum x86reg src); /* xor dst, src */
void xw_shl64_imm(struct x86w *w, enum x86reg r, uint8_t n); /* shl r, n */
void xw_shl32_imm(struct x86w *w, enum x86reg r, uint8_t n); /* shl r32, n */
void xw_or64(struct x86w *w, enum x86reg dst, enum x86reg src);  /* or dst, src */
void xw_add64(struct x86w *w, enum x86reg dst, enum x86reg src); /* add dst, src */
void xw_mov32(struct x86w *w, enum x86reg dst, enum x86reg src); /* mov dst32, src32 */
void xw_mov32_imm(struct x86w *w, enum x86reg r, uint32_t imm);  /* mov r32, imm32 */
void xw_and32_imm(struct x86w *w, enum x86reg r, uint32_t imm);  /* and r32, imm32 */
/* lock xadd [base], src: base neither rsp nor rbp */
void xw_lock_xadd64(struct x86w *w, enum x86reg base, enum x86reg src);
/* mov [base + disp8], src: base not rsp */
void xw_store64_disp8(struct x86w *w, enum x86reg base, int8_t disp, enum x86reg src);
void xw_cld(struct x86w *w);

#endif
