/* Event payloads as fields (see payload.h). */
#include "payload.h"

#include <string.h>

/* One layout per instrument: the payload is n 64-bit words, in this order. */
static const struct layout {
	const char *instrument;
	size_t n;
	bool hex;
	const char *const names[PAYLOAD_FIELDS_MAX];
} layouts[] = {
	{ "tsc", 1, false, { "tsc" } },
	{ "regs", 18, true, { "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8",
			      "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
			      "rflags" } },
	{ "argfilter", 6, true, { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" } },
};

bool payload_field_known(const char *name)
{
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++)
		for (size_t i = 0; i < layouts[l].n; i++)
			if (!strcmp(layouts[l].names[i], name))
				return true;
	return false;
}

size_t payload_decode(const char *ins, const uint8_t *p, size_t len,
		      struct payload_field *out)
{
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		const struct layout *ly = &layouts[l];

		if (strcmp(ins, ly->instrument) || len != ly->n * 8)
			continue;
		for (size_t i = 0; i < ly->n; i++) {
			out[i].name = ly->names[i];
			memcpy(&out[i].value, p + 8 * i, 8);
			out[i].hex = ly->hex;
		}
		return ly->n;
	}
	return 0;
}
