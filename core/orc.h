/*
 * orc: the x86-64 kernel's ORC unwind table (arch/x86/include/asm/orc_types.h),
 * read for one fact: where the canonical frame address is at an address,
 * as the stack pointer plus an offset. DWARF puts a local in the frame at
 * the CFA plus an offset (DW_OP_fbreg over DW_OP_call_frame_cfa); the ORC
 * table, which objtool made from the code and the kernel unwinds by, says
 * what the CFA is there, so gilk need not walk the function's pushes.
 */
#ifndef GILK_ORC_H
#define GILK_ORC_H

#include <stddef.h>
#include <stdint.h>

#include "gerr.h"

/* Reads len bytes at a kernel address (the image offline, memory live). */
typedef int (*orc_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len, struct gerr *e);

struct orc_table {
	uint64_t ip_start, ip_stop;	/* __start_orc_unwind_ip, __stop_orc_unwind_ip */
	uint64_t entries;		/* __start_orc_unwind */
	orc_read_fn read;
	void *ctx;
};

/* The CFA at addr is rsp + *sp_offset: 0, or -1 when the table has no
 * entry there or its CFA is not the stack pointer's (a frame pointer's,
 * undefined, an entry's). */
int orc_cfa_offset(const struct orc_table *t, uint64_t addr, int32_t *sp_offset,
		   struct gerr *e);

#endif
