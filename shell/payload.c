/* Event payloads as fields (see payload.h). */
#include "payload.h"

#include <stdio.h>
#include <string.h>

/* One layout per instrument: the payload is n 64-bit words, in this order;
 * hex says which are addresses (bit i for field i); a payload of at least
 * min words holds the first that many (stack: as many frames as found). */
#define ALL_HEX 0xffffffffu
static const struct layout {
	const char *instrument;
	size_t n, min;
	uint32_t hex;
	const char *const names[PAYLOAD_FIELDS_MAX];
} layouts[] = {
	{ "tsc", 1, 1, 0, { "tsc" } },
	{ "regs", 18, 18, ALL_HEX, { "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8",
				     "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
				     "rflags" } },
	{ "argfilter", 6, 6, ALL_HEX, { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" } },
	{ "hello", 1, 1, 0, { "pid" } },
	{ "latency", 5, 5, 0, { "ns", "pid", "depth", "overflows", "unmatched" } },
	{ "skb", 5, 5, 1u | 1u << 2, { "skb", "len", "protocol", "tstamp", "unreadable" } },
	{ "stack", 17, 1, ALL_HEX & ~1u, { "suppressed", "frame0", "frame1", "frame2", "frame3",
					   "frame4", "frame5", "frame6", "frame7", "frame8",
					   "frame9", "frame10", "frame11", "frame12", "frame13",
					   "frame14", "frame15" } },
};

void payload_fields_list(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]) && used < len; l++) {
		used += (size_t)snprintf(buf + used, len - used, "%s%s: ", l ? "; " : "",
					 layouts[l].instrument);
		for (size_t i = 0; i < layouts[l].n && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
						 layouts[l].names[i]);
	}
}

bool payload_field_known(const char *name)
{
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++)
		for (size_t i = 0; i < layouts[l].n; i++)
			if (!strcmp(layouts[l].names[i], name))
				return true;
	return false;
}

bool payload_field_hex(const char *name)
{
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++)
		for (size_t i = 0; i < layouts[l].n; i++)
			if (!strcmp(layouts[l].names[i], name))
				return layouts[l].hex >> i & 1;
	return false;
}

size_t payload_decode(const char *ins, const uint8_t *p, size_t len,
		      struct payload_field *out)
{
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		const struct layout *ly = &layouts[l];
		size_t n = len / 8;

		if (strcmp(ins, ly->instrument) || len % 8 || n < ly->min || n > ly->n)
			continue;
		for (size_t i = 0; i < n; i++) {
			out[i].name = ly->names[i];
			memcpy(&out[i].value, p + 8 * i, 8);
			out[i].hex = ly->hex >> i & 1;
		}
		return n;
	}
	return 0;
}
