/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels gilk.ko builds for (Debian's 6.1, its
 * PREEMPT_RT 6.1, the debug 6.1 and Debian's 6.12), in one place. The
 * GILK_HAVE_* macros come from Kbuild, which looks at the kernel's headers:
 * a feature, not a version number, decides.
 */
#ifndef _GILK_COMPAT_H
#define _GILK_COMPAT_H

#include <linux/ring_buffer.h>

/* 6.2 dropped the module argument of kallsyms_on_each_symbol()'s callback. */
struct module;
#ifdef GILK_HAVE_KALLSYMS_EACH_MOD
typedef int (*gilk_each_symbol_t)(int (*fn)(void *, const char *, struct module *,
					    unsigned long), void *data);
/* The parameters of a callback, as this kernel passes them. */
#define GILK_EACH_SYMBOL_PARAMS \
	void *ctx, const char *name, struct module *mod, unsigned long addr
#else
typedef int (*gilk_each_symbol_t)(int (*fn)(void *, const char *, unsigned long),
				  void *data);
#define GILK_EACH_SYMBOL_PARAMS void *ctx, const char *name, unsigned long addr
#endif

/* 6.2 dropped the event argument of ring_buffer_unlock_commit(). */
#ifdef GILK_HAVE_RB_COMMIT_NO_EVENT
#define gilk_rb_unlock_commit(rb, e) ring_buffer_unlock_commit(rb)
#else
#define gilk_rb_unlock_commit(rb, e) ring_buffer_unlock_commit(rb, e)
#endif

/*
 * 6.10 replaced module_alloc()/module_memfree() with execmem_alloc(type,
 * size)/execmem_free(); both hand out memory in the module area, within rel32
 * reach of kernel text. gilk_ks keeps the names module_alloc and
 * module_memfree for whichever pair the kernel has.
 */
#ifdef GILK_HAVE_EXECMEM
#include <linux/execmem.h>
#define GILK_EXEC_ALLOC "execmem_alloc"
#define GILK_EXEC_FREE "execmem_free"
#define gilk_exec_alloc(size) \
	(((void *(*)(enum execmem_type, size_t))(void *)gilk_ks.module_alloc)(EXECMEM_KPROBES, (size)))
#else
#define GILK_EXEC_ALLOC "module_alloc"
#define GILK_EXEC_FREE "module_memfree"
#define gilk_exec_alloc(size) gilk_ks.module_alloc(size)
#endif

/* The per-CPU addresses the templates read: each architecture's own. */
#include "percpu_addrs.h"

#endif
