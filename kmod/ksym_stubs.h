/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where IBT is enforced, an indirect call must land on ENDBR, and the kernel
 * seals (turns into a nop) the ENDBR of every function it never calls
 * indirectly itself: most of the helpers gilk.ko finds through kallsyms.
 * So gilk.ko calls each through a stub of its own (ksym_stubs.S) that starts
 * with ENDBR and reaches the helper by a direct jmp, which IBT does not
 * check. The helpers are listed in ksym_stubs.list.
 */
#ifndef _GILK_KSYM_STUBS_H
#define _GILK_KSYM_STUBS_H

#define GILK_KSYM_STUB(f) extern char gilk_stub_##f[]
#include "ksym_stubs.list"
#undef GILK_KSYM_STUB

#endif
