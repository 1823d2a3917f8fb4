/*
 * intexpr: an integer constant in C's notation, as a location's offset
 * takes it (sys_call_table+39*8): numbers (decimal, 0x-hex, 0-octal), + -
 * * / % << >> & | ^ ~ and parentheses, with C's precedence, in 64-bit
 * two's complement (a division by 0 is an error).
 */
#ifndef GILK_INTEXPR_H
#define GILK_INTEXPR_H

#include <stdint.h>

/* 0 with *v, or -1: text is not such a constant, or divides by 0. */
int intexpr_eval(const char *text, uint64_t *v);

#endif
