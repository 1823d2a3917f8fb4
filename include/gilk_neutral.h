/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What code built both into gilk.ko and into user space needs from its
 * surroundings: the kernel's types and string functions, or the C
 * library's with the kernel's type names over the uapi's. The templates
 * (gilk_tramp.h) are built into gilk.ko, into the planner (lib/), and with
 * the code checker into the tests, which see the kernel's tools tree.
 */
#ifndef _GILK_NEUTRAL_H
#define _GILK_NEUTRAL_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
/* the kernel's tools tree, where the checker is built, names them already */
#ifndef _TOOLS_LINUX_TYPES_H_
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif

#include "uapi/gilk.h"

#endif
