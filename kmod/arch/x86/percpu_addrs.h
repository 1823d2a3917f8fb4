/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the trampoline templates read through %gs on x86-64, as addresses
 * relative to the per-CPU base (included by compat.h).
 */
#ifndef _GILK_PERCPU_ADDRS_H
#define _GILK_PERCPU_ADDRS_H

/*
 * The %gs-relative address of the kernel's number of the CPU it runs on
 * (what raw_smp_processor_id() reads): 6.2 moved it into pcpu_hot.
 */
#include <linux/sched.h>
#include <asm/smp.h>
#ifdef GILK_HAVE_PCPU_HOT
#define gilk_cpu_number_addr() ((unsigned long)&pcpu_hot.cpu_number)
#define gilk_preempt_count_addr() ((unsigned long)&pcpu_hot.preempt_count)
#define gilk_current_task_addr() ((unsigned long)&pcpu_hot.current_task)
#else
#include <asm/current.h>
#include <asm/preempt.h>
#define gilk_cpu_number_addr() ((unsigned long)&cpu_number)
#define gilk_preempt_count_addr() ((unsigned long)&__preempt_count)
#define gilk_current_task_addr() ((unsigned long)&current_task)
#endif
/* The tsc template's who (uapi gilk.h): the task's pid at this offset. */
#define gilk_task_pid_offset() offsetof(struct task_struct, pid)

#endif
