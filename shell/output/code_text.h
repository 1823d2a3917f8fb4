/*
 * symbolize: kernel addresses the way gdb and objdump print them, wherever
 * the shell shows code: "0xffffffff81076650 <__fentry__>", an operand's
 * offset in decimal ("<tcp_v4_rcv+42>"). An instruction's branch and call
 * targets, RIP-relative addresses (as a "# 0xADDR <sym>" comment, as gdb)
 * and immediates that are kernel addresses ("mov rsi, -0x7e1ff730") are
 * named; thunks, ftrace's entry and static call trampolines say what they
 * are, and a static call trampoline where it goes now.
 */
#ifndef GILK_SYMBOLIZE_H
#define GILK_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "session/session.h"
#include "output/symbolizer.h"

/* "0xADDR <sym+off>", or "0xADDR" when no symbol is near. */
void code_text_addr(struct session *s, uint64_t addr, char *buf, size_t len);
/* in's text with every kernel address symbolized; -1 when it does not
 * decode ("(bad)" in buf). */
int code_text_insn(struct session *s, const struct insn *in, char *buf, size_t len);

#endif
