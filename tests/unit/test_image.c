/* Unit tests: kernel images (core/image.c): ELF, and bzImages whose payload
 * is xz, gzip or zstd, built here around a small ELF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "image.h"
#include "unit.h"

static const char *elf_path(void)
{
	const char *p = getenv("GILK_TEST_ELF");

	return p ? p : "build/bin/test-unit";
}

/* Wraps the file payload (already compressed) into a minimal bzImage. */
static char *make_bzimage(const char *payload_path, char *out, size_t len)
{
	FILE *in = fopen(payload_path, "rb"), *f;
	uint8_t hdr[1024] = { 0 };
	uint8_t *p;
	long n;
	uint32_t plen, off = 0, ver = 0x020f;

	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	n = ftell(in);
	fseek(in, 0, SEEK_SET);
	p = malloc((size_t)n);
	assert_int_equal(fread(p, 1, (size_t)n, in), (size_t)n);
	fclose(in);
	hdr[0x1f1] = 1; /* one setup sector: payload area at 2 * 512 */
	memcpy(hdr + 0x202, "HdrS", 4);
	memcpy(hdr + 0x206, &ver, 4);
	memcpy(hdr + 0x248, &off, 4);
	plen = (uint32_t)n;
	memcpy(hdr + 0x24c, &plen, 4);
	snprintf(out, len, "%s.bz", payload_path);
	f = fopen(out, "wb");
	fwrite(hdr, 1, sizeof(hdr), f);
	fwrite(p, 1, (size_t)n, f);
	fclose(f);
	free(p);
	return out;
}

static void same_text(struct kimage *a, struct kimage *b)
{
	uint64_t aa, as, ba, bs;
	uint8_t x[64], y[64];
	struct gerr e;

	assert_int_equal(kimage_section(a, ".text", &aa, &as), 0);
	assert_int_equal(kimage_section(b, ".text", &ba, &bs), 0);
	assert_true(aa == ba && as == bs);
	assert_int_equal(kimage_read(a, aa + as / 2, x, sizeof(x), &e), 0);
	assert_int_equal(kimage_read(b, ba + bs / 2, y, sizeof(y), &e), 0);
	assert_memory_equal(x, y, sizeof(x));
}

static void bzimage_payloads(void **s)
{
	static const char *const tools[] = {
		"xz --check=crc32 -c", "gzip -9 -c", "zstd -q -c",
	};
	struct kimage *ref, *k;
	struct gerr e;

	(void)s;
	assert_int_equal(kimage_open(elf_path(), &ref, &e), 0);
	for (size_t i = 0; i < 3; i++) {
		char cmd[512], comp[] = "/tmp/gilk-unit-XXXXXX", bz[128];
		int fd = mkstemp(comp);

		close(fd);
		/* As the kernel's build does it (size_append): the compressed
		 * payload, then the uncompressed size in 4 bytes. */
		snprintf(cmd, sizeof(cmd), "{ %s %s; printf '\\001\\002\\003\\000'; } > %s",
			 tools[i], elf_path(), comp);
		assert_int_equal(system(cmd), 0);
		make_bzimage(comp, bz, sizeof(bz));
		assert_int_equal(kimage_open(bz, &k, &e), 0);
		assert_int_equal(kimage_kind(k), KIMAGE_BZIMAGE);
		same_text(ref, k);
		kimage_close(k);
		unlink(comp);
		unlink(bz);
	}
	kimage_close(ref);
}

static void bad_images(void **s)
{
	struct kimage *k;
	struct gerr e;
	char path[] = "/tmp/gilk-unit-XXXXXX", bz[128];
	int fd = mkstemp(path);
	uint8_t junk[600];

	(void)s;
	memset(junk, 0x5a, sizeof(junk));
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	assert_int_equal(kimage_open(path, &k, &e), -1);
	assert_non_null(strstr(e.msg, "expected a vmlinux, a bzImage, an arm64 Image or /proc/kcore"));
	/* a bzImage whose payload is not a known compression */
	make_bzimage(path, bz, sizeof(bz));
	assert_int_equal(kimage_open(bz, &k, &e), -1);
	assert_non_null(strstr(e.msg, "compression not supported"));
	unlink(bz);
	unlink(path);
	assert_int_equal(kimage_open("/nonexistent/vmlinux", &k, &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/vmlinux"));
}

static void reads_by_address(void **s)
{
	struct kimage *k;
	struct gerr e;
	uint64_t a, n;
	uint8_t b[4];

	(void)s;
	assert_int_equal(kimage_open(elf_path(), &k, &e), 0);
	assert_int_equal(kimage_section(k, ".text", &a, &n), 0);
	assert_non_null(kimage_ptr(k, a, (size_t)n));
	assert_null(kimage_ptr(k, a, (size_t)n + 0x100000));
	assert_int_equal(kimage_read(k, 0x10, b, 4, &e), -1);
	assert_non_null(strstr(e.msg, "no image bytes"));
	kimage_close(k);
}

/* A snapshot (what live mode reads the kernel into) gains ranges one by
 * one, thousands of them for the whole kernel's coverage: each is readable
 * by address, an earlier one's bytes stay where kimage_ptr() said they are
 * as later ones come, a range copied again is read in place, and an
 * overlay changes the snapshot and not its source. */
static void snapshot_ranges(void **s)
{
	const uint8_t *first, *src;
	struct kimage *k, *snap;
	uint8_t was[16], b[16];
	struct gerr e;
	uint64_t a, n;

	(void)s;
	assert_int_equal(kimage_open(elf_path(), &k, &e), 0);
	assert_int_equal(kimage_section(k, ".text", &a, &n), 0);
	assert_true(n >= 4096 * 16);
	assert_int_equal(kimage_new_snapshot(&snap, &e), 0);
	assert_null(kimage_ptr(snap, a, 16));
	assert_int_equal(kimage_copy_range(snap, k, "first", a, 4096, &e), 0);
	first = kimage_ptr(snap, a, 4096);
	assert_non_null(first);
	memcpy(was, first, sizeof(was));
	for (uint64_t i = 1; i < 16; i++)
		assert_int_equal(kimage_copy_range(snap, k, "module", a + i * 4096 + 8, 200, &e), 0);
	assert_ptr_equal(kimage_ptr(snap, a, 4096), first);
	assert_memory_equal(first, was, sizeof(was));
	src = kimage_ptr(k, a + 15 * 4096 + 8, 200);
	assert_memory_equal(kimage_ptr(snap, a + 15 * 4096 + 8, 200), src, 200);
	assert_null(kimage_ptr(snap, a + 15 * 4096 + 8, 201));
	memset(b, 0xcc, sizeof(b));
	assert_int_equal(kimage_overlay(snap, a + 16, b, sizeof(b)), 0);
	assert_memory_equal(kimage_ptr(snap, a + 16, sizeof(b)), b, sizeof(b));
	assert_memory_not_equal(kimage_ptr(k, a + 16, sizeof(b)), b, sizeof(b));
	/* copied again: read in place, the overlay gone */
	assert_int_equal(kimage_copy_range(snap, k, "first", a, 4096, &e), 0);
	assert_ptr_equal(kimage_ptr(snap, a, 4096), first);
	assert_memory_equal(first + 16, kimage_ptr(k, a + 16, sizeof(b)), sizeof(b));
	/* ranges, not an ELF file */
	assert_int_equal(kimage_elf_bytes(snap, &src, &n), -1);
	kimage_close(snap);
	kimage_close(k);
}

const struct CMUnitTest image_tests[] = {
	cmocka_unit_test(snapshot_ranges),
	cmocka_unit_test(bzimage_payloads),
	cmocka_unit_test(bad_images),
	cmocka_unit_test(reads_by_address),
};
const size_t image_ntests = sizeof(image_tests) / sizeof(image_tests[0]);
