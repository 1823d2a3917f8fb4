/* Symbolized addresses (see code_text.h). */
#include "output/code_text.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool near_symbol(struct session *s, uint64_t addr, char *name, size_t len,
			uint64_t *off)
{
	const struct symbolizer y = session_symbolizer(s);

	return symbolizer_near(&y, addr, false, name, len, off);
}

static void addr_text(struct session *s, uint64_t addr, bool per_cpu, char *buf, size_t len)
{
	const struct symbolizer y = session_symbolizer(s);

	symbolizer_addr(&y, addr, per_cpu, buf, len);
}

void code_text_addr(struct session *s, uint64_t addr, char *buf, size_t len)
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

int code_text_insn(struct session *s, const struct insn *in, char *buf, size_t len)
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
			code_text_addr(s, v, sym, sizeof(sym));
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
