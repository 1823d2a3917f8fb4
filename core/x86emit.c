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

void xw_push_u64(struct x86w *w, uint64_t v)
{
	if (imm32_sext_fits(v)) {
		put1(w, 0x68); /* push imm32, sign-extended to 64 bits */
		put4(w, (uint32_t)v);
		return;
	}
	/* lea rsp, [rsp - 8] keeps flags; two dword stores build the value. */
	put1(w, 0x48);
	put1(w, 0x8d);
	put_rsp_mem(w, R_RSP, -8);
	put1(w, 0xc7); put1(w, 0x04); put1(w, 0x24); put4(w, (uint32_t)v);
	put1(w, 0xc7); put1(w, 0x44); put1(w, 0x24); put1(w, 4); put4(w, (uint32_t)(v >> 32));
}
