/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The registers of gilk_regs.h numbered: GILK_REG_rax..GILK_REG_r15 are
 * their places in struct gilk_regs (field GILK_FF_RAX + GILK_REG_x), and
 * GILK_NREGS counts them.
 */
#ifndef GILK_REG_INDEX_H
#define GILK_REG_INDEX_H

enum gilk_reg {
#define GILK_REG(name, member, dwarf) GILK_REG_##name,
#include "gilk_regs.h"
	GILK_NREGS
};

/* the value a function returns, and the stack pointer */
#define GILK_REG_RETVAL GILK_REG_rax
#define GILK_REG_SP GILK_REG_rsp

#endif
