/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64's part of gilk_internal.h, included before the rest of it: the
 * kernel's instruction decoder, whose types gilk_ks's insn_decode takes.
 */
#ifndef _GILK_ARCH_DEFS_H
#define _GILK_ARCH_DEFS_H

#include <asm/insn.h>

#endif
