/* Random instruction sequences (see gen.h). */
#include "gen.h"

#include <string.h>

#include "emu.h"

/* Registers a generated instruction may write: all but rsp. */
static const uint8_t regs[] = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

struct gi {
	uint8_t b[16];
	uint8_t len;
	uint8_t rel;      /* 0, 1 or 4: size of a displacement to patch */
	int target;       /* instruction index, or -1: outside */
};

static uint8_t reg(uint64_t *rng)
{
	return regs[rng_next(rng) % sizeof(regs)];
}

static void put(struct gi *g, const uint8_t *p, size_t n)
{
	memcpy(g->b + g->len, p, n);
	g->len += (uint8_t)n;
}

static void put32(struct gi *g, uint32_t v)
{
	put(g, (const uint8_t *)&v, 4);
}

/* A RIP-relative displacement to somewhere in the data area (the code sits
 * at GEN_BASE; data 1 GiB below that is still within ±2 GiB). */
static uint32_t ripdisp(uint64_t *rng)
{
	return (uint32_t)(-(int32_t)0x20000000 + (int32_t)(rng_next(rng) & 0xfff8));
}

static void gen_one(uint64_t *rng, struct gi *g, int n)
{
	uint8_t r = reg(rng), s = reg(rng);
	uint8_t rexw = (uint8_t)(0x48 | (r >= 8 ? 1 : 0));
	uint64_t k = rng_next(rng);

	memset(g, 0, sizeof(*g));
	g->target = -1;
	switch (k % 24) {
	case 0: /* mov r, imm32 */
		put(g, (uint8_t[]){ rexw, 0xc7, (uint8_t)(0xc0 | (r & 7)) }, 3);
		put32(g, (uint32_t)rng_next(rng));
		break;
	case 1: case 2: { /* alu r, s */
		static const uint8_t ops[] = { 0x01, 0x29, 0x31, 0x21, 0x09, 0x39, 0x85, 0x11, 0x19 };
		put(g, (uint8_t[]){ (uint8_t)(0x48 | (s >= 8 ? 4 : 0) | (r >= 8 ? 1 : 0)),
				    ops[rng_next(rng) % sizeof(ops)],
				    (uint8_t)(0xc0 | (s & 7) << 3 | (r & 7)) }, 3);
		break;
	}
	case 3: /* lea r, [rip+d] */
		put(g, (uint8_t[]){ (uint8_t)(0x48 | (r >= 8 ? 4 : 0)), 0x8d, (uint8_t)(0x05 | (r & 7) << 3) }, 3);
		put32(g, ripdisp(rng));
		break;
	case 4: /* mov r, [rip+d] */
		put(g, (uint8_t[]){ (uint8_t)(0x48 | (r >= 8 ? 4 : 0)), 0x8b, (uint8_t)(0x05 | (r & 7) << 3) }, 3);
		put32(g, ripdisp(rng));
		break;
	case 5: /* mov [rip+d], r */
		put(g, (uint8_t[]){ (uint8_t)(0x48 | (r >= 8 ? 4 : 0)), 0x89, (uint8_t)(0x05 | (r & 7) << 3) }, 3);
		put32(g, ripdisp(rng));
		break;
	case 6: /* cmp qword [rip+d], imm8: an immediate after the displacement */
		put(g, (uint8_t[]){ 0x48, 0x83, 0x3d }, 3);
		put32(g, ripdisp(rng));
		put(g, (uint8_t[]){ (uint8_t)rng_next(rng) }, 1);
		break;
	case 7: /* add dword [rip+d], imm32 */
		put(g, (uint8_t[]){ 0x81, 0x05 }, 2);
		put32(g, ripdisp(rng));
		put32(g, (uint32_t)rng_next(rng));
		break;
	case 8: /* inc / neg / not r */
		put(g, (uint8_t[]){ rexw, (uint8_t)(k & 64 ? 0xff : 0xf7),
				    (uint8_t)((k & 64 ? 0xc0 : (k & 128 ? 0xd8 : 0xd0)) | (r & 7)) }, 3);
		break;
	case 9: /* push r; or pop r */
		if (r >= 8)
			put(g, (uint8_t[]){ 0x41 }, 1);
		put(g, (uint8_t[]){ (uint8_t)((k & 64 ? 0x50 : 0x58) | (r & 7)) }, 1);
		break;
	case 10: case 11: /* jcc rel8 / rel32 */
		if (k & 64) {
			put(g, (uint8_t[]){ (uint8_t)(0x70 | (k >> 8 & 15)), 0 }, 2);
			g->rel = 1;
		} else {
			put(g, (uint8_t[]){ 0x0f, (uint8_t)(0x80 | (k >> 8 & 15)) }, 2);
			put32(g, 0);
			g->rel = 4;
		}
		g->target = (int)(rng_next(rng) % (unsigned)(n + 2)) - 1;
		break;
	case 12: /* jmp rel8 / rel32, mostly forward */
		if (k & 64) {
			put(g, (uint8_t[]){ 0xeb, 0 }, 2);
			g->rel = 1;
		} else {
			put(g, (uint8_t[]){ 0xe9 }, 1);
			put32(g, 0);
			g->rel = 4;
		}
		g->target = (int)(rng_next(rng) % (unsigned)(n + 2)) - 1;
		break;
	case 13: { /* loop family */
		static const uint8_t ops[] = { 0xe0, 0xe1, 0xe2, 0xe3 };
		if ((k & 0x300) == 0x300)
			put(g, (uint8_t[]){ 0x67 }, 1); /* jecxz / 32-bit counter */
		put(g, (uint8_t[]){ ops[(k >> 4) & 3], 0 }, 2);
		g->rel = 1;
		g->target = (int)(rng_next(rng) % (unsigned)(n + 2)) - 1;
		break;
	}
	case 14: /* call rel32: leaves the function */
		put(g, (uint8_t[]){ 0xe8 }, 1);
		put32(g, 0);
		g->rel = 4;
		g->target = -1;
		break;
	case 15: /* call [rip+d] / jmp [rip+d] */
		put(g, (uint8_t[]){ 0xff, (uint8_t)(k & 64 ? 0x15 : 0x25) }, 2);
		put32(g, ripdisp(rng));
		break;
	case 16: /* call r */
		if (r >= 8)
			put(g, (uint8_t[]){ 0x41 }, 1);
		put(g, (uint8_t[]){ 0xff, (uint8_t)(0xd0 | (r & 7)) }, 2);
		break;
	case 17: /* mov r, [s + disp8] */
		put(g, (uint8_t[]){ (uint8_t)(0x48 | (r >= 8 ? 4 : 0) | (s >= 8 ? 1 : 0)), 0x8b,
				    (uint8_t)(0x40 | (r & 7) << 3 | (s & 7)) }, 3);
		if ((s & 7) == 4)
			put(g, (uint8_t[]){ 0x24 }, 1);
		put(g, (uint8_t[]){ (uint8_t)(rng_next(rng) & 0x78) }, 1);
		break;
	case 18: /* mov [rsp+8], r / mov r, [rsp+8] */
		put(g, (uint8_t[]){ (uint8_t)(0x48 | (r >= 8 ? 4 : 0)), (uint8_t)(k & 64 ? 0x89 : 0x8b),
				    (uint8_t)(0x44 | (r & 7) << 3), 0x24, 0x08 }, 5);
		break;
	case 19: /* cmovcc r, s */
		put(g, (uint8_t[]){ (uint8_t)(0x48 | (r >= 8 ? 4 : 0) | (s >= 8 ? 1 : 0)), 0x0f,
				    (uint8_t)(0x40 | (k >> 8 & 15)),
				    (uint8_t)(0xc0 | (r & 7) << 3 | (s & 7)) }, 4);
		break;
	case 20: /* setcc r8 (with REX so sil/dil/r8b.. are the low bytes) */
		put(g, (uint8_t[]){ (uint8_t)(0x40 | (r >= 8 ? 1 : 0)), 0x0f,
				    (uint8_t)(0x90 | (k >> 8 & 15)), (uint8_t)(0xc0 | (r & 7)) }, 4);
		break;
	case 21: /* nops of 1, 3 and 5 bytes */
		if (k & 64)
			put(g, (uint8_t[]){ 0x90 }, 1);
		else if (k & 128)
			put(g, (uint8_t[]){ 0x0f, 0x1f, 0x00 }, 3);
		else
			put(g, (uint8_t[]){ 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5);
		break;
	case 22: /* ret */
		put(g, (uint8_t[]){ 0xc3 }, 1);
		break;
	default: /* shl/sar r, imm8 */
		put(g, (uint8_t[]){ rexw, 0xc1, (uint8_t)((k & 64 ? 0xe0 : 0xf8) | (r & 7)),
				    (uint8_t)(rng_next(rng) & 63) }, 4);
		break;
	}
}

size_t gen_function(uint64_t *rng, uint8_t *buf)
{
	struct gi ins[40];
	uint32_t off[41];
	int n = 4 + (int)(rng_next(rng) % 24);
	size_t len = 0;

	for (int i = 0; i < n; i++)
		gen_one(rng, &ins[i], n);
	for (int i = 0; i < n; i++) {
		off[i] = (uint32_t)len;
		len += ins[i].len;
	}
	off[n] = (uint32_t)len; /* the final ret */
	for (int i = 0; i < n; i++) {
		struct gi *g = &ins[i];
		uint64_t end = GEN_BASE + off[i] + g->len, to;

		if (!g->rel)
			continue;
		/* Outside targets: somewhere past the function, a clean exit. */
		to = g->target >= 0 ? GEN_BASE + off[g->target] : GEN_BASE + 0x800 + (uint64_t)i * 16;
		if (g->rel == 1) {
			int64_t d = (int64_t)(to - end);

			if (d < -128 || d > 127) {
				/* Out of rel8 reach: aim at the next instruction. */
				d = 0;
			}
			g->b[g->len - 1] = (uint8_t)d;
		} else {
			uint32_t d = (uint32_t)(to - end);

			memcpy(g->b + g->len - 4, &d, 4);
		}
	}
	len = 0;
	for (int i = 0; i < n; i++) {
		memcpy(buf + len, ins[i].b, ins[i].len);
		len += ins[i].len;
	}
	buf[len++] = 0xc3;
	memset(buf + len, 0xcc, 16); /* padding a bounce may use */
	return len + 16;
}
