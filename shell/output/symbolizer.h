/*
 * symbolizer: kernel addresses named the way gdb and objdump print them
 * ("0xffffffff81076650 <__fentry__>", an offset in decimal as in
 * "<tcp_v4_rcv+42>"), from the kernel's symbols and, live, the trampolines
 * of the splices as last read, which no symbol is near. The formats and
 * the commands name addresses with it; it holds no session.
 */
#ifndef GILK_SYMBOLIZER_H
#define GILK_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symtab.h"
#include "uapi/gilk.h"

/* What names an address or a block by its splice (live): a few words of
 * each of the splices, as there may be half a million. */
struct splice_mark {
	uint64_t site, tramp, evict_tramp, hits;
	uint32_t id, tramp_len, evict_len;
};

struct symbolizer {
	const struct symtab *syms;
	const struct splice_mark *marks;	/* live; NULL offline */
	size_t nmarks;
};

/* The symbol near addr (per_cpu: a %gs-relative offset, where per-CPU
 * variables are) and the offset from it; false when none is. */
bool symbolizer_near(const struct symbolizer *y, uint64_t addr, bool per_cpu,
		     char *name, size_t len, uint64_t *off);
/* "0xADDR <sym+off>", or "0xADDR" when no symbol is near. */
void symbolizer_addr(const struct symbolizer *y, uint64_t addr, bool per_cpu,
		     char *buf, size_t len);
/* Where something is, in messages and lists: "sym+0xoff (0xADDR)", or
 * "0xADDR" when no symbol is near. */
void symbolizer_where(const struct symbolizer *y, uint64_t addr, char *buf, size_t len);

#endif
