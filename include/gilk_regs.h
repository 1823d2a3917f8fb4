/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The registers a hit gives, one row each, written once and expanded
 * wherever they are listed: gilk.ko's hit path (filters, fetches,
 * aggregation keys) and regs instrument, the skb instrument, the shell's
 * filters, events, fetches and the names it takes from DWARF. Included
 * with any of GILK_ARG, GILK_REG and GILK_STATE defined (an undefined one expands to
 * nothing), arguments first.
 *
 * GILK_ARG(I, NAME, MEMBER): the calling convention's argument registers,
 * arg0..arg5 (fields GILK_FF_ARG0 + I), by name and struct pt_regs member.
 * GILK_REG(NAME, MEMBER, DWARF): each general register in struct
 * gilk_regs order, the i-th being field GILK_FF_RAX + i: NAME as gilk and
 * gdb write it, MEMBER its struct pt_regs member (as kprobe events write
 * it, after a %), DWARF its number in DWARF's register mapping.
 * gilk_reg_index.h numbers them.
 * GILK_STATE(NAME, MEMBER, FIELD): the program counter and the flags, after
 * the general registers in a regs event, by name, struct pt_regs member and
 * field number.
 */
#ifndef GILK_ARG
#define GILK_ARG(i, name, member)
#endif
#ifndef GILK_REG
#define GILK_REG(name, member, dwarf)
#endif
#ifndef GILK_STATE
#define GILK_STATE(name, member, field)
#endif
GILK_ARG(0, rdi, di)
GILK_ARG(1, rsi, si)
GILK_ARG(2, rdx, dx)
GILK_ARG(3, rcx, cx)
GILK_ARG(4, r8, r8)
GILK_ARG(5, r9, r9)
GILK_REG(rax, ax, 0)
GILK_REG(rbx, bx, 3)
GILK_REG(rcx, cx, 2)
GILK_REG(rdx, dx, 1)
GILK_REG(rsi, si, 4)
GILK_REG(rdi, di, 5)
GILK_REG(rbp, bp, 6)
GILK_REG(rsp, sp, 7)
GILK_REG(r8, r8, 8)
GILK_REG(r9, r9, 9)
GILK_REG(r10, r10, 10)
GILK_REG(r11, r11, 11)
GILK_REG(r12, r12, 12)
GILK_REG(r13, r13, 13)
GILK_REG(r14, r14, 14)
GILK_REG(r15, r15, 15)
GILK_STATE(rip, ip, GILK_FF_RIP)
GILK_STATE(rflags, flags, GILK_FF_FLAGS)
#undef GILK_ARG
#undef GILK_REG
#undef GILK_STATE
