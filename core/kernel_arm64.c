/* An arm64 kernel's image opened for planning (kernel.h, arch.h). */
#include "kernel_internal.h"

#include <stdlib.h>
#include <string.h>

/* arm64's linker script puts _stext at the first 64 KiB boundary after the
 * Image's header (.head.text, a few KiB): _text, the Image's first byte, is
 * 64 KiB below it. kallsyms without KALLSYMS_ALL (Debian's) lists no _text. */
#define ARM64_SEGMENT_ALIGN 0x10000ull

/* An arm64 function starts with a hint (bti, paciasp, or the nops ftrace
 * patches) far more often than not; with the Image placed wrong, words at
 * symbols are anything. Half of 64 functions taken evenly across the text
 * (its start is assembly, which starts otherwise) is the bar. */
static bool arm64_placed_right(struct kernel *k)
{
	size_t n = symtab_functions(k->syms, k->text_start, k->text_end, NULL, 0), hints = 0, m;
	const struct ksym **f = malloc((n ? n : 1) * sizeof(*f));

	if (!f)
		return false;
	symtab_functions(k->syms, k->text_start, k->text_end, f, n);
	m = n < 64 ? n : 64;
	for (size_t i = 0; i < m; i++) {
		const uint8_t *b = kimage_ptr(k->img, f[i * n / m]->addr, 4);
		uint32_t w;

		if (!b)
			break;
		memcpy(&w, b, 4);
		hints += (w & 0xfffff01fu) == 0xd503201fu;
	}
	free(f);
	return m > 0 && hints * 2 >= m;
}


/* An arm64 kernel is linked to run at any address (RELOCATABLE): in the
 * Image its absolute pointers (the ftrace and kprobe blacklist tables among
 * them) are zero, and the boot code writes each from .rela.dyn, whose
 * R_AARCH64_RELATIVE entries (where, type, value) hold them. Done here as
 * the boot code does it with nokaslr's offset of 0. (RELR's relocations keep
 * their value in place: with that offset they change nothing.) */
static int arm64_relocate(struct kernel *k, struct gerr *e)
{
	const struct ksym *a, *b;
	const uint8_t *p;
	size_t len;

	if (symtab_by_name(k->syms, "__rela_start", &a, 1) != 1 ||
	    symtab_by_name(k->syms, "__rela_end", &b, 1) != 1 || b->addr <= a->addr)
		return 0;
	len = (size_t)(b->addr - a->addr);
	p = kimage_ptr(k->img, a->addr, len);
	if (!p)
		return gerr_set(e, "the Image holds no bytes for __rela_start..__rela_end");
	for (size_t o = 0; o + 24 <= len; o += 24) {
		uint64_t where, info, value;

		memcpy(&where, p + o, 8);
		memcpy(&info, p + o + 8, 8);
		memcpy(&value, p + o + 16, 8);
		/* (one into .bss, past the Image's bytes, changes nothing
		 * the planner reads) */
		if ((uint32_t)info == 1027 /* R_AARCH64_RELATIVE */)
			kimage_overlay(k->img, where, &value, 8);
	}
	return 0;
}

/* An arm64 kernel (an Image, or a vmlinux ELF): its text bounds, and its
 * tables where the symbols bound them. Debian's arm64 kallsyms does not
 * (no KALLSYMS_ALL): then the kernel is read, and its sites are refused. */
int kernel_arm64_open(struct kernel *k, const char *image, struct gerr *e)
{
	const struct ksym *s;
	uint64_t size;

	if (kimage_kind(k->img) != KIMAGE_ARM64) {
		if (kimage_section(k->img, ".text", &k->text_start, &size))
			return gerr_set(e, "%s has no .text section", image);
		k->text_end = k->text_start + size;
	} else {
		if (kernel_symbol_addr(k->syms, "_stext", &k->text_start, e) ||
		    kernel_symbol_addr(k->syms, "_etext", &k->text_end, e) ||
		    kimage_place(k->img, k->text_start - ARM64_SEGMENT_ALIGN, e))
			return -1;
		if (!kimage_ptr(k->img, k->text_start, k->text_end - k->text_start) ||
		    !arm64_placed_right(k))
			return gerr_set(e, "%s does not hold the code the symbols name at _stext (0x%llx): do they belong to this Image, booted with nokaslr?",
					image, (unsigned long long)k->text_start);
		if (arm64_relocate(k, e))
			return -1;
	}
	if (symtab_by_name(k->syms, "__start___jump_table", &s, 1) != 1)
		return kernel_no_facts(k, e);
	k->facts = textfacts_new();
	if (!k->facts)
		return gerr_set(e, "out of memory");
	if (textfacts_load(k->facts, k->img, k->syms, k->dec, e))
		return -1;
	return 0;
}
