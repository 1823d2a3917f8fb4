/* Addresses named (see symbolizer.h). */
#include "output/symbolizer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kernel addresses start at the canonical upper half; per-CPU variables
 * (%gs-relative) sit at small offsets below it. */
#define KERNEL_SPACE 0xffff800000000000ull

/* An address in one of gilk's trampolines is named by its splice. */
static bool in_trampoline(const struct symbolizer *y, uint64_t addr, char *name, size_t len,
			  uint64_t *off)
{
	for (size_t i = 0; y->marks && i < y->nmarks; i++) {
		const struct splice_mark *in = &y->marks[i];

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

bool symbolizer_near(const struct symbolizer *y, uint64_t addr, bool per_cpu,
		     char *name, size_t len, uint64_t *off)
{
	char f[256];
	char *plus;

	if (per_cpu != (addr < KERNEL_SPACE))
		return false;
	if (in_trampoline(y, addr, name, len, off))
		return true;
	symtab_format(y->syms, addr, f, sizeof(f));
	if (!strncmp(f, "0x", 2))
		return false;
	plus = strstr(f, "+0x");
	*off = plus ? strtoull(plus + 3, NULL, 16) : 0;
	if (plus)
		*plus = '\0';
	snprintf(name, len, "%s", f);
	return true;
}

void symbolizer_addr(const struct symbolizer *y, uint64_t addr, bool per_cpu,
		     char *buf, size_t len)
{
	char name[256];
	uint64_t off;

	if (!symbolizer_near(y, addr, per_cpu, name, sizeof(name), &off))
		snprintf(buf, len, "0x%" PRIx64, addr);
	else if (off)
		snprintf(buf, len, "0x%" PRIx64 " <%s+%" PRIu64 ">", addr, name, off);
	else
		snprintf(buf, len, "0x%" PRIx64 " <%s>", addr, name);
}

void symbolizer_where(const struct symbolizer *y, uint64_t addr, char *buf, size_t len)
{
	char sym[128];

	symtab_format(y->syms, addr, sym, sizeof(sym));
	if (sym[0] == '0')
		snprintf(buf, len, "%s", sym);
	else
		snprintf(buf, len, "%s (0x%" PRIx64 ")", sym, addr);
}
