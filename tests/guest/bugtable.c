/*
 * The kernel's first BUG()/WARN() sites, as a new gilk process reads them
 * to learn the bug table's layout: which functions hold them (for a test
 * to splice every block of), and how many of their traps are under a
 * splice's jmp now (so that test knows it covered some).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest.h"
#include "image.h"
#include "symtab.h"
#include "textfacts.h"

/* The traps of the first n entries in the kernel's text: their count. */
static size_t first_traps(struct live *lv, uint64_t *trap, size_t n)
{
	uint64_t lo = sym(lv, "__start___bug_table"), hi = sym(lv, "__stop___bug_table");
	const uint8_t *t = lo && hi > lo ? kimage_ptr(lv->k.img, lo, hi - lo) : NULL;
	size_t esz = 0, got = 0;

	if (!t)
		return 0;
	/* the size whose second entry is a site gilk read at start */
	for (size_t sz = 12; sz >= 8 && !esz; sz -= 4) {
		int32_t d;

		memcpy(&d, t + sz, 4);
		if (hi - lo >= 2 * sz &&
		    textfacts_bug(lv->k.facts, lo + sz + (uint64_t)(int64_t)d) != BUG_NONE)
			esz = sz;
	}
	/* init text is freed after boot: its entries are no site now */
	for (size_t o = 0; esz && o + esz <= hi - lo && got < n; o += esz) {
		uint64_t a;
		int32_t d;

		memcpy(&d, t + o, 4);
		a = lo + o + (uint64_t)(int64_t)d;
		if (a >= lv->k.text_start && a < lv->k.text_end)
			trap[got++] = a;
	}
	return got;
}

int bug_functions(struct live *lv, size_t n)
{
	uint64_t *trap = calloc(n, sizeof(*trap)), last = 0;
	size_t got = first_traps(lv, trap, n);

	for (size_t i = 0; i < got; i++) {
		const struct ksym *f;
		uint64_t start, end;

		if (symtab_function(lv->k.syms, trap[i], &f, &start, &end) || start == last)
			continue;
		last = start;
		printf("%s\n", f->name);
	}
	free(trap);
	return got ? 0 : 1;
}

int bug_traps_covered(struct live *lv, size_t n)
{
	uint64_t *trap = calloc(n, sizeof(*trap));
	size_t got = first_traps(lv, trap, n), covered = 0;
	struct gerr e;

	for (size_t i = 0; i < got; i++) {
		uint8_t b[2];

		if (!live_read_mem(lv, trap[i], b, 2, &e) && !(b[0] == 0x0f && b[1] == 0x0b))
			covered++;
	}
	printf("%zu of %zu\n", covered, got);
	free(trap);
	return got ? 0 : 1;
}
