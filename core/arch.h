/*
 * arch: the instruction sets gilk reads. x86-64 kernels are planned and
 * spliced; arm64 kernels are read (decoded, their blocks and edges found),
 * and their sites are not planned yet.
 */
#ifndef GILK_ARCH_H
#define GILK_ARCH_H

enum arch { ARCH_X86_64, ARCH_ARM64 };

static inline const char *arch_name(enum arch a)
{
	return a == ARCH_ARM64 ? "arm64" : "x86-64";
}

#endif
