/* Symbolized addresses (see symbolize.h). */
#include "symbolize.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kernel addresses start at the canonical upper half. */
#define KERNEL_SPACE 0xffff800000000000ull

/* The symbol near addr and the offset: false when none is. Per-CPU
 * variables (gs-relative) sit at small offsets, other symbols above
 * KERNEL_SPACE. */
/* Live, an address in one of gilk's trampolines (as the splice list last
 * read them) is named by its splice: no kernel symbol is near it. */
static bool in_trampoline(const struct session *s, uint64_t addr, char *name, size_t len,
			  uint64_t *off)
{
	for (size_t i = 0; s->live && i < s->nspliced; i++) {
		const struct gilk_splice_info *in = &s->spliced[i];

		if (addr >= in->tramp && addr < in->tramp + in->tramp_len) {
			snprintf(name, len, "gilk trampoline of splice %u", in->id);
			*off = addr - in->tramp;
			return true;
		}
		if (addr >= in->evict_tramp && addr < in->evict_tramp + in->evict_len) {
			snprintf(name, len, "gilk trampoline of splice %u's evicted block", in->id);
			*off = addr - in->evict_tramp;
			return true;
		}
	}
	return false;
}

static bool near_symbol_in(struct session *s, uint64_t addr, bool per_cpu, char *name,
			   size_t len, uint64_t *off)
{
	char f[256];
	char *plus;

	if (per_cpu != (addr < KERNEL_SPACE))
		return false;
	if (in_trampoline(s, addr, name, len, off))
		return true;
	symtab_format(s->k->syms, addr, f, sizeof(f));
	if (!strncmp(f, "0x", 2))
		return false;
	plus = strstr(f, "+0x");
	*off = plus ? strtoull(plus + 3, NULL, 16) : 0;
	if (plus)
		*plus = '\0';
	snprintf(name, len, "%s", f);
	return true;
}

static bool near_symbol(struct session *s, uint64_t addr, char *name, size_t len,
			uint64_t *off)
{
	return near_symbol_in(s, addr, false, name, len, off);
}

static void addr_text(struct session *s, uint64_t addr, bool per_cpu, char *buf, size_t len)
{
	char name[256];
	uint64_t off;

	if (!near_symbol_in(s, addr, per_cpu, name, sizeof(name), &off))
		snprintf(buf, len, "0x%" PRIx64, addr);
	else if (off)
		snprintf(buf, len, "0x%" PRIx64 " <%s+%" PRIu64 ">", addr, name, off);
	else
		snprintf(buf, len, "0x%" PRIx64 " <%s>", addr, name);
}

void symbolize_addr(struct session *s, uint64_t addr, char *buf, size_t len)
{
	addr_text(s, addr, false, buf, len);
}

/* What a target named name is, when it is more than a function: a thunk,
 * ftrace's entry, a static call trampoline (and where it jumps now). */
static void what_is(struct session *s, uint64_t addr, const char *name, char *buf,
		    size_t len)
{
	buf[0] = '\0';
	if (!strcmp(name, "__x86_return_thunk")) {
		snprintf(buf, len, "return thunk");
	} else if (!strncmp(name, "__x86_indirect_thunk_", 21)) {
		snprintf(buf, len, "retpoline thunk through %s", name + 21);
	} else if (!strncmp(name, "__x86_indirect_call_thunk_", 26) ||
		   !strncmp(name, "__x86_indirect_jump_thunk_", 26)) {
		snprintf(buf, len, "indirect branch thunk through %s", name + 26);
	} else if (!strcmp(name, "__fentry__")) {
		snprintf(buf, len, "ftrace entry");
	} else if (!strncmp(name, "__SCT__", 7)) {
		uint8_t code[INSN_MAX];
		struct insn in;
		struct gerr e;
		char to[256];
		uint64_t off;

		snprintf(buf, len, "static call %s", name + 7);
		/* The trampoline is "jmp FUNC" (or a ret when NULL); live it
		 * is what the kernel set last. */
		if (session_read(s, addr, code, sizeof(code), &e) ||
		    decode_one(s->k->dec, code, sizeof(code), addr, &in))
			return;
		if (in.kind == IK_RET || (in.kind == IK_JMP &&
					  near_symbol(s, in.target, to, sizeof(to), &off) &&
					  !strcmp(to, "__x86_return_thunk")))
			snprintf(buf + strlen(buf), len - strlen(buf), ", now a return");
		else if (in.kind == IK_JMP && near_symbol(s, in.target, to, sizeof(to), &off) && !off)
			snprintf(buf + strlen(buf), len - strlen(buf), ", now %s", to);
	}
}

static void append(char *buf, size_t len, size_t *n, const char *fmt, const char *arg)
{
	if (*n < len)
		*n += (size_t)snprintf(buf + *n, len - *n, fmt, arg);
}

/* A number in the text at p ("0x..." or "-0x..."): its value as an
 * address (negatives sign-extended, as the CPU does) and its length. */
static bool number_at(const char *text, const char *p, uint64_t *v, size_t *n)
{
	bool neg = *p == '-';
	const char *h = p + neg;
	char *end;

	if (h[0] != '0' || h[1] != 'x' || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
		return false;
	*v = strtoull(h + 2, &end, 16);
	if (end == h + 2)
		return false;
	if (neg)
		*v = (uint64_t)(-(int64_t)*v);
	*n = (size_t)(end - p);
	return true;
}

int symbolize_insn(struct session *s, const struct insn *in, char *buf, size_t len)
{
	char text[160], note[640] = "", sym[320];
	size_t n = 0;
	uint64_t rip_target = 0;

	if (decode_text(s->k->dec, in, text, sizeof(text))) {
		snprintf(buf, len, "(bad)");
		return -1;
	}
	buf[0] = '\0';
	for (const char *p = text; *p;) {
		uint64_t v, off;
		size_t k;
		char name[256];

		if ((*p == '0' || *p == '-') && number_at(text, p, &v, &k) &&
		    near_symbol(s, v, name, sizeof(name), &off)) {
			symbolize_addr(s, v, sym, sizeof(sym));
			append(buf, len, &n, "%s", sym);
			if (!note[0] && !off)
				what_is(s, v, name, note, sizeof(note));
			p += k;
			continue;
		}
		if (n + 1 < len) {
			buf[n++] = *p;
			buf[n] = '\0';
		}
		p++;
	}
	if (in->disp_off) {
		int32_t d;

		memcpy(&d, in->bytes + in->disp_off, sizeof(d));
		rip_target = in->addr + in->len + (uint64_t)(int64_t)d;
		/* gs:[rip + X] wraps to a per-CPU variable's offset */
		addr_text(s, rip_target, strstr(text, "gs:[rip") != NULL, sym, sizeof(sym));
		append(buf, len, &n, "        # %s", sym);
	}
	if (note[0])
		append(buf, len, &n, rip_target ? " (%s)" : "        # %s", note);
	return 0;
}
