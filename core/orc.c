/* The CFA from the kernel's ORC table (see orc.h). */
#include "orc.h"

#include <string.h>

#define ORC_ENTRY_SIZE 6	/* s16 sp_offset, s16 bp_offset, then the regs' bits */
#define ORC_REG_SP 5		/* sp_reg: the stack pointer (6.1 and 6.12 alike) */

int orc_cfa_offset(const struct orc_table *t, uint64_t addr, int32_t *sp_offset,
		   struct gerr *e)
{
	uint64_t n = (t->ip_stop - t->ip_start) / 4, lo = 0, hi;
	uint8_t entry[ORC_ENTRY_SIZE];
	int16_t off;
	int32_t rel;

	if (t->ip_stop <= t->ip_start)
		return gerr_set(e, "the kernel has no ORC table");
	/* the last ip at or below addr: each is its slot's address plus rel */
	hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, slot = t->ip_start + 4 * mid;

		if (t->read(t->ctx, slot, &rel, 4, e))
			return -1;
		if (slot + (uint64_t)(int64_t)rel <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return gerr_set(e, "no ORC entry at 0x%llx", (unsigned long long)addr);
	if (t->read(t->ctx, t->entries + ORC_ENTRY_SIZE * (lo - 1), entry, sizeof(entry), e))
		return -1;
	if ((entry[4] & 0xf) != ORC_REG_SP)
		return gerr_set(e, "the CFA at 0x%llx is not the stack pointer's",
				(unsigned long long)addr);
	memcpy(&off, entry, 2);
	*sp_offset = off;
	return 0;
}
