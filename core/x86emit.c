/* x86-64 instruction writer (see x86emit.h). */
#include "x86emit.h"

#include <string.h>

void xw_init(struct x86w *w, uint8_t *buf, size_t cap, uint64_t base)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->base = base;
	w->err = XW_OK;
}

uint64_t xw_pc(const struct x86w *w)
{
	return w->base + w->len;
}

bool rel32_fits(uint64_t from_end, uint64_t to)
{
	int64_t d = (int64_t)(to - from_end);

	return d >= INT32_MIN && d <= INT32_MAX;
}

bool rel8_fits(uint64_t from_end, uint64_t to)
{
	int64_t d = (int64_t)(to - from_end);

	return d >= INT8_MIN && d <= INT8_MAX;
}

bool imm32_sext_fits(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)v == v;
}

void xw_bytes(struct x86w *w, const void *p, size_t n)
{
	if (w->err)
		return;
	if (w->cap - w->len < n) {
		w->err = XW_NOSPACE;
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put1(struct x86w *w, uint8_t b)
{
	xw_bytes(w, &b, 1);
}

static void put4(struct x86w *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	xw_bytes(w, b, 4);
}

static void put8(struct x86w *w, uint64_t v)
{
	put4(w, (uint32_t)v);
	put4(w, (uint32_t)(v >> 32));
}

void xw_fill_int3(struct x86w *w, size_t n)
{
	while (n--)
		put1(w, 0xcc);
}

/* A relative branch whose displacement field of size sz ends the instruction. */
static void put_rel(struct x86w *w, uint64_t target, unsigned sz)
{
	uint64_t end = xw_pc(w) + sz;

	if (sz == 1 ? !rel8_fits(end, target) : !rel32_fits(end, target)) {
		if (!w->err)
			w->err = XW_RANGE;
		return;
	}
	if (sz == 1)
		put1(w, (uint8_t)(target - end));
	else
		put4(w, (uint32_t)(target - end));
}

void xw_jmp(struct x86w *w, uint64_t target)
{
	put1(w, 0xe9);
	put_rel(w, target, 4);
}

void xw_jmp8(struct x86w *w, uint64_t target)
{
	put1(w, 0xeb);
	put_rel(w, target, 1);
}

void xw_jcc(struct x86w *w, unsigned cc, uint64_t target)
{
	put1(w, 0x0f);
	put1(w, (uint8_t)(0x80 | (cc & 15)));
	put_rel(w, target, 4);
}

void xw_call(struct x86w *w, uint64_t target)
{
	put1(w, 0xe8);
	put_rel(w, target, 4);
}

void xw_push_u64(struct x86w *w, uint64_t v)
{
	if (imm32_sext_fits(v)) {
		put1(w, 0x68); /* push imm32, sign-extended to 64 bits */
		put4(w, (uint32_t)v);
		return;
	}
	/* lea keeps flags; two dword stores build the value. */
	xw_lea_rsp(w, -8);
	put1(w, 0xc7); put1(w, 0x04); put1(w, 0x24); put4(w, (uint32_t)v);
	put1(w, 0xc7); put1(w, 0x44); put1(w, 0x24); put1(w, 4); put4(w, (uint32_t)(v >> 32));
}

void xw_pushfq(struct x86w *w)
{
	put1(w, 0x9c);
}

void xw_popfq(struct x86w *w)
{
	put1(w, 0x9d);
}

/* ModRM + SIB + displacement for [rsp+off] with reg field r. */
static void put_rsp_mem(struct x86w *w, unsigned r, int32_t off)
{
	if (off >= -128 && off <= 127) {
		put1(w, (uint8_t)(0x44 | (r & 7) << 3));
		put1(w, 0x24);
		put1(w, (uint8_t)off);
	} else {
		put1(w, (uint8_t)(0x84 | (r & 7) << 3));
		put1(w, 0x24);
		put4(w, (uint32_t)off);
	}
}

void xw_push_rsp_mem(struct x86w *w, int32_t off)
{
	put1(w, 0xff);
	put_rsp_mem(w, 6, off);
}

void xw_lea_rsp(struct x86w *w, int32_t off)
{
	xw_lea_reg_rsp(w, R_RSP, off);
}

void xw_lea_reg_rsp(struct x86w *w, enum x86reg r, int32_t off)
{
	put1(w, (uint8_t)(0x48 | (r >= R_R8 ? 4 : 0)));
	put1(w, 0x8d);
	put_rsp_mem(w, r, off);
}

void xw_store_rsp(struct x86w *w, int32_t off, enum x86reg r)
{
	put1(w, (uint8_t)(0x48 | (r >= R_R8 ? 4 : 0)));
	put1(w, 0x89);
	put_rsp_mem(w, r, off);
}

void xw_load_rsp(struct x86w *w, enum x86reg r, int32_t off)
{
	put1(w, (uint8_t)(0x48 | (r >= R_R8 ? 4 : 0)));
	put1(w, 0x8b);
	put_rsp_mem(w, r, off);
}

void xw_store_rsp_imm(struct x86w *w, int32_t off, int32_t imm)
{
	put1(w, 0x48);
	put1(w, 0xc7);
	put_rsp_mem(w, 0, off);
	put4(w, (uint32_t)imm);
}

void xw_movabs(struct x86w *w, enum x86reg r, uint64_t imm)
{
	put1(w, (uint8_t)(0x48 | (r >= R_R8 ? 1 : 0)));
	put1(w, (uint8_t)(0xb8 | (r & 7)));
	put8(w, imm);
}

void xw_mov_reg(struct x86w *w, enum x86reg dst, enum x86reg src)
{
	put1(w, (uint8_t)(0x48 | (src >= R_R8 ? 4 : 0) | (dst >= R_R8 ? 1 : 0)));
	put1(w, 0x89);
	put1(w, (uint8_t)(0xc0 | (src & 7) << 3 | (dst & 7)));
}

void xw_push(struct x86w *w, enum x86reg r)
{
	if (r >= R_R8)
		put1(w, 0x41);
	put1(w, (uint8_t)(0x50 | (r & 7)));
}

void xw_xor32(struct x86w *w, enum x86reg r)
{
	if (r >= R_R8)
		put1(w, 0x45);
	put1(w, 0x31);
	put1(w, (uint8_t)(0xc0 | (r & 7) << 3 | (r & 7)));
}

void xw_inc_gs_abs(struct x86w *w, int32_t disp)
{
	/* ModRM /0 with a SIB of no base and no index: disp32 alone */
	put1(w, 0x65); put1(w, 0x48); put1(w, 0xff); put1(w, 0x04); put1(w, 0x25);
	put4(w, (uint32_t)disp);
}

void xw_inc_gs_reg(struct x86w *w, enum x86reg r)
{
	/* rsp, rbp, r12 and r13 need a SIB or a displacement: not offered */
	put1(w, 0x65);
	put1(w, (uint8_t)(0x48 | (r >= R_R8 ? 1 : 0)));
	put1(w, 0xff);
	put1(w, (uint8_t)(r & 7));
}

void xw_pop(struct x86w *w, enum x86reg r)
{
	if (r >= R_R8)
		put1(w, 0x41);
	put1(w, (uint8_t)(0x58 | (r & 7)));
}

void xw_call_reg(struct x86w *w, enum x86reg r)
{
	if (r >= R_R8)
		put1(w, 0x41);
	put1(w, 0xff);
	put1(w, (uint8_t)(0xd0 | (r & 7)));
}

void xw_clac(struct x86w *w)
{
	put1(w, 0x0f); put1(w, 0x01); put1(w, 0xca);
}

void xw_cld(struct x86w *w)
{
	put1(w, 0xfc);
}

/* Whether an operand is one the encoder writes; if not, XW_RANGE. */
static bool encodable(struct x86w *w, bool ok)
{
	if (!ok && w->err == XW_OK)
		w->err = XW_RANGE;
	return ok;
}

/* The few encodings of the inline tsc template, on the eight low registers. */
static bool low_regs(struct x86w *w, enum x86reg a, enum x86reg b)
{
	return encodable(w, a < R_R8 && b < R_R8);
}

static void op_rr(struct x86w *w, bool wide, uint8_t op, enum x86reg dst, enum x86reg src)
{
	if (!low_regs(w, dst, src))
		return;
	if (wide)
		put1(w, 0x48);
	put1(w, op);
	put1(w, (uint8_t)(0xc0 | src << 3 | dst));
}

void xw_rdtsc_ordered(struct x86w *w)
{
	put1(w, 0x0f); put1(w, 0xae); put1(w, 0xe8);	/* lfence */
	put1(w, 0x0f); put1(w, 0x31);			/* rdtsc */
}

static void mov_gs_abs(struct x86w *w, bool wide, enum x86reg r, int32_t disp)
{
	if (!low_regs(w, r, R_RAX))
		return;
	/* ModRM mod 00 rm 100, SIB of no base and no index: disp32 alone */
	put1(w, 0x65);
	if (wide)
		put1(w, 0x48);
	put1(w, 0x8b); put1(w, (uint8_t)(0x04 | r << 3)); put1(w, 0x25);
	put4(w, (uint32_t)disp);
}

void xw_mov32_gs_abs(struct x86w *w, enum x86reg r, int32_t disp)
{
	mov_gs_abs(w, false, r, disp);
}

void xw_mov64_gs_abs(struct x86w *w, enum x86reg r, int32_t disp)
{
	mov_gs_abs(w, true, r, disp);
}

void xw_cmp32_mem_imm(struct x86w *w, enum x86reg base, int32_t disp, uint32_t imm)
{
	/* [rsp] needs a SIB byte */
	if (!low_regs(w, base, base) || !encodable(w, base != R_RSP))
		return;
	put1(w, 0x81);
	put1(w, (uint8_t)(0x80 | 7 << 3 | base));	/* /7, mod 10: [base + disp32] */
	put4(w, (uint32_t)disp);
	put4(w, imm);
}

/* op reg, [base + disp32] (or op [base + disp32], reg), 64-bit if wide */
static void op_mem_disp32(struct x86w *w, bool wide, uint8_t op, enum x86reg reg,
			  enum x86reg base, int32_t disp)
{
	/* [rsp] needs a SIB byte */
	if (!low_regs(w, reg, base) || !encodable(w, base != R_RSP))
		return;
	if (wide)
		put1(w, 0x48);
	put1(w, op);
	put1(w, (uint8_t)(0x80 | reg << 3 | base));	/* mod 10: [base + disp32] */
	put4(w, (uint32_t)disp);
}

void xw_cmp64_mem_reg(struct x86w *w, enum x86reg base, int32_t disp, enum x86reg src)
{
	op_mem_disp32(w, true, 0x39, src, base, disp);
}

void xw_xor64_mem(struct x86w *w, enum x86reg dst, enum x86reg base, int32_t disp)
{
	op_mem_disp32(w, true, 0x33, dst, base, disp);
}

void xw_setcc8(struct x86w *w, uint8_t cc, enum x86reg r)
{
	/* al, cl, dl, bl: the byte registers without a REX prefix */
	if (!encodable(w, r <= R_RBX))
		return;
	put1(w, 0x0f);
	put1(w, (uint8_t)(0x90 | (cc & 0xf)));
	put1(w, (uint8_t)(0xc0 | r));
}

void xw_inc_gs_index8(struct x86w *w, enum x86reg index, int32_t disp)
{
	if (!low_regs(w, index, R_RAX) || !encodable(w, index != R_RSP))
		return;
	/* ModRM /0 with a SIB: scale 8, no base (mod 00, base 101): disp32 */
	put1(w, 0x65); put1(w, 0x48); put1(w, 0xff); put1(w, 0x04);
	put1(w, (uint8_t)(0xc0 | index << 3 | 5));
	put4(w, (uint32_t)disp);
}

void xw_inc_gs_base_index8(struct x86w *w, enum x86reg base, enum x86reg index)
{
	/* rbp as a base needs a displacement, rsp is no index: not offered */
	if (!low_regs(w, base, index) || !encodable(w, base != R_RBP && index != R_RSP))
		return;
	put1(w, 0x65); put1(w, 0x48); put1(w, 0xff); put1(w, 0x04);
	put1(w, (uint8_t)(0xc0 | index << 3 | base));
}

void xw_load32_disp32(struct x86w *w, enum x86reg dst, enum x86reg base, int32_t disp)
{
	op_mem_disp32(w, false, 0x8b, dst, base, disp);
}

void xw_xor64(struct x86w *w, enum x86reg dst, enum x86reg src)
{
	op_rr(w, true, 0x31, dst, src);
}

static void shl_imm(struct x86w *w, bool wide, enum x86reg r, uint8_t n)
{
	if (!low_regs(w, r, R_RAX))
		return;
	if (wide)
		put1(w, 0x48);
	put1(w, 0xc1);
	put1(w, (uint8_t)(0xe0 | r));	/* /4 */
	put1(w, n);
}

void xw_shl64_imm(struct x86w *w, enum x86reg r, uint8_t n)
{
	shl_imm(w, true, r, n);
}

void xw_shl32_imm(struct x86w *w, enum x86reg r, uint8_t n)
{
	shl_imm(w, false, r, n);
}

void xw_or64(struct x86w *w, enum x86reg dst, enum x86reg src)
{
	op_rr(w, true, 0x09, dst, src);
}

void xw_or32(struct x86w *w, enum x86reg dst, enum x86reg src)
{
	op_rr(w, false, 0x09, dst, src);
}

void xw_add64(struct x86w *w, enum x86reg dst, enum x86reg src)
{
	op_rr(w, true, 0x01, dst, src);
}

void xw_mov32(struct x86w *w, enum x86reg dst, enum x86reg src)
{
	op_rr(w, false, 0x89, dst, src);
}

void xw_mov32_imm(struct x86w *w, enum x86reg r, uint32_t imm)
{
	if (!low_regs(w, r, R_RAX))
		return;
	put1(w, (uint8_t)(0xb8 | r));
	put4(w, imm);
}

void xw_and32_imm(struct x86w *w, enum x86reg r, uint32_t imm)
{
	if (!low_regs(w, r, R_RAX))
		return;
	put1(w, 0x81);
	put1(w, (uint8_t)(0xe0 | r));	/* /4 */
	put4(w, imm);
}

void xw_lock_xadd64(struct x86w *w, enum x86reg base, enum x86reg src)
{
	/* [rsp] needs a SIB byte, [rbp] with mod 00 is rip-relative */
	if (!low_regs(w, base, src) || !encodable(w, base != R_RSP && base != R_RBP))
		return;
	put1(w, 0xf0); put1(w, 0x48); put1(w, 0x0f); put1(w, 0xc1);
	put1(w, (uint8_t)(src << 3 | base));	/* mod 00: [base] */
}

void xw_store64_disp8(struct x86w *w, enum x86reg base, int8_t disp, enum x86reg src)
{
	if (!low_regs(w, base, src) || !encodable(w, base != R_RSP))
		return;
	put1(w, 0x48);
	put1(w, 0x89);
	put1(w, (uint8_t)(0x40 | src << 3 | base));	/* mod 01: [base + disp8] */
	put1(w, (uint8_t)disp);
}
