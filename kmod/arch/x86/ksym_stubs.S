/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One stub per helper in ksym_stubs.list: ENDBR (where the kernel has IBT),
 * then a jmp rel32 that gilk_resolve_ksyms() points at the helper before
 * anything calls the stub. Until then it reaches gilk_stub_unresolved, a
 * ud2: a call before resolution is a bug in gilk.ko, and says so loudly.
 * The jmp is spelled out so that it is always rel32, and each stub is
 * 16-byte aligned so that its rel32 never straddles a page.
 */
#include <linux/linkage.h>

	.text

SYM_FUNC_START(gilk_stub_unresolved)
	ud2
SYM_FUNC_END(gilk_stub_unresolved)

.macro GILK_STUB name
	.p2align 4
SYM_FUNC_START(gilk_stub_\name)
	.byte 0xe9
	.long gilk_stub_unresolved - (. + 4)
	int3
SYM_FUNC_END(gilk_stub_\name)
.endm

#define GILK_KSYM_STUB(f) GILK_STUB f
#include "ksym_stubs.list"
