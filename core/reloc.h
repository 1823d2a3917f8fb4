/*
 * reloc: how a relocation of one instruction came out, for every
 * instruction set's relocator (reloc_x86_64.h, reloc_arm64.h).
 */
#ifndef GILK_RELOC_H
#define GILK_RELOC_H

enum reloc_status {
	RELOC_OK,
	RELOC_RIP_RANGE,      /* a PC-relative operand out of reach (x86: ±2 GiB) */
	RELOC_BRANCH_RANGE,   /* a branch target out of reach */
	RELOC_NOSPACE,        /* the output buffer is too small */
	RELOC_UNSUPPORTED,    /* cannot run elsewhere (int3, ud2, xbegin, ...) */
};

#endif
