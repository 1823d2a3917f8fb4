/* The architectures' descriptions, by the image's instruction set. */
#include "arch.h"

extern const struct arch_info arch_x86_64, arch_arm64;

const struct arch_info *arch_info(enum arch a)
{
	return a == ARCH_ARM64 ? &arch_arm64 : &arch_x86_64;
}
