/*
 * gilk.ko calls the kernel helpers it resolves through kallsyms by way of
 * stubs of its own (kmod/arch/x86/ksym_stubs.S), because an IBT CPU faults on an
 * indirect call that does not land on ENDBR and the kernel seals most of
 * those helpers. QEMU's TCG does not enforce IBT, so what is checked here is
 * what would make it hold: every stub starts with ENDBR wherever gilk.ko's
 * own functions do (the kernel is built with IBT), and jumps directly to its
 * helper, at its entry or just past its ENDBR.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest.h"

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const uint8_t sealed[] = { 0x66, 0x0f, 0x1f, 0x00 };

/* The kernel's names for a stub's helper where gilk's field differs. */
static const char *const *helper_names(const char *field)
{
	static const char *const alloc[] = { "execmem_alloc", "module_alloc", NULL };
	static const char *const memfree[] = { "execmem_free", "module_memfree", NULL };
	static const char *const address[] = { "__module_address", NULL };
	static const char *const warn[] = { "__warn", NULL };

	if (!strcmp(field, "module_alloc"))
		return alloc;
	if (!strcmp(field, "module_memfree"))
		return memfree;
	if (!strcmp(field, "module_address"))
		return address;
	if (!strcmp(field, "warn"))
		return warn;
	return NULL;
}

static int read4(struct live *lv, uint64_t a, uint8_t *b)
{
	struct gerr e;

	return live_read_mem(lv, a, b, 4, &e);
}

static void check_stub(struct live *lv, const char *field, int ibt, int *nsealed)
{
	char stub_name[96];
	const char *const *names = helper_names(field);
	const char *only[] = { field, NULL };
	uint64_t stub, target, want = 0;
	uint8_t b[16], entry[4];
	struct gerr e;
	int32_t rel;
	size_t at = 0;
	const char *name = NULL;

	snprintf(stub_name, sizeof(stub_name), "gilk_stub_%s", field);
	stub = sym(lv, stub_name);
	if (!stub || live_read_mem(lv, stub, b, sizeof(b), &e)) {
		check(0, "ibt: gilk.ko's stub %s is in kallsyms and readable", stub_name);
		return;
	}
	for (names = names ? names : only; *names && !want; names++)
		want = sym(lv, name = *names);
	if (!memcmp(b, endbr64, 4))
		at = 4;
	memcpy(&rel, b + at + 1, 4);
	target = stub + at + 5 + (int64_t)rel;
	check((at == 4) == ibt && b[at] == 0xe9 && want &&
	      (target == want || target == want + 4),
	      "ibt: %s %s ENDBR, then jmp 0x%" PRIx64 " (%s at 0x%" PRIx64 ")",
	      stub_name, at ? "starts with" : "has no", target, name, want);
	if (want && !read4(lv, want, entry) && !memcmp(entry, sealed, 4))
		(*nsealed)++;
}

void test_ibt(struct live *lv)
{
	uint8_t entry[4];
	int ibt, nsealed = 0, n = 0;
	uint64_t e = sym(lv, "gilk_entry");

	/* gilk_entry has its address taken: ENDBR iff the build has IBT. */
	if (!e || read4(lv, e, entry)) {
		check(0, "ibt: gilk_entry is in kallsyms and readable");
		return;
	}
	ibt = !memcmp(entry, endbr64, 4);
#define GILK_KSYM_STUB(f) check_stub(lv, #f, ibt, &nsealed), n++
#include "../../kmod/ksym_stubs.list"
#undef GILK_KSYM_STUB
	printf("ibt: the kernel %s IBT; %d of gilk.ko's %d helpers have a sealed entry\n",
	       ibt ? "is built with" : "is built without", nsealed, n);
}
