/*
 * /proc/kcore through core/image, checked against the reference image.
 *   test-kcore live             (in the guest) dump 64 bytes at 60 functions
 *   test-kcore compare FILE [PROFILE]
 *                               (on the host) compare a dump with the image of
 *                               build/cache/PROFILE (ref when not given)
 * The kernel rewrites some bytes at boot (ftrace nops, retpoline and return
 * thunks, static calls, alternatives, jump labels): instructions that are a
 * rel32 call/jmp or touch a reserved or alternatives range are skipped; every
 * other instruction must match byte for byte.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define DUMP 64

static int live(void)
{
	struct kimage *img;
	struct symtab *st;
	const struct ksym **f;
	struct gerr e;
	size_t n;
	const struct ksym *stext;

	if (kimage_open("/proc/kcore", &img, &e) || symtab_load("/proc/kallsyms", &st, &e)) {
		fprintf(stderr, "test-kcore: %s\n", e.msg);
		return 1;
	}
	if (symtab_by_name(st, "_stext", &stext, 1) != 1)
		return 1;
	n = symtab_functions(st, stext->addr, stext->addr + 0xe00000, NULL, 0);
	f = calloc(n, sizeof(*f));
	symtab_functions(st, stext->addr, stext->addr + 0xe00000, f, n);
	for (size_t i = 3; i < n; i += n / 60) {
		uint8_t b[DUMP];

		if (kimage_read(img, f[i]->addr, b, DUMP, &e)) {
			fprintf(stderr, "test-kcore: %s\n", e.msg);
			return 1;
		}
		printf("%016" PRIx64 " ", f[i]->addr);
		for (int k = 0; k < DUMP; k++)
			printf("%02x", b[k]);
		printf("\n");
	}
	/* an address no segment backs must be an error, not garbage */
	{
		uint8_t b[4];

		printf("unbacked: %s\n", kimage_read(img, 0x1000, b, 4, &e) ? "refused" : "read");
	}
	return 0;
}

static int compare(const char *file, const char *profile)
{
	char image[256], symbols[256];
	struct kernel k;
	struct gerr e;
	char line[512];
	size_t funcs = 0, same = 0, skipped = 0, differ = 0;
	bool unbacked_refused = false;
	FILE *f = fopen(file, "r");

	snprintf(image, sizeof(image), "build/cache/%s/vmlinuz", profile);
	snprintf(symbols, sizeof(symbols), "build/cache/%s/kallsyms", profile);
	if (!f || kernel_open(&k, image, symbols, &e)) {
		printf("FAIL kcore: cannot read %s or the %s kernel\n0 passed, 1 failed\n", file, profile);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		uint8_t live[DUMP];
		char *p;
		const uint8_t *img;

		if (!strcmp(line, "unbacked: refused\n"))
			unbacked_refused = true;
		addr = strtoull(line, &p, 16);
		if (*p != ' ' || strlen(p + 1) < DUMP * 2)
			continue;
		for (int i = 0; i < DUMP; i++)
			sscanf(p + 1 + 2 * i, "%2hhx", &live[i]);
		img = kimage_ptr(k.img, addr, DUMP);
		if (!img)
			continue;
		funcs++;
		for (size_t o = 0; o < DUMP;) {
			struct insn in;

			if (decode_one(k.dec, img + o, DUMP - o, addr + o, &in))
				break;
			if (in.kind == IK_CALL || in.kind == IK_JMP || in.kind == IK_CALL_IND ||
			    textfacts_reserved(k.facts, addr + o, addr + o + in.len, RES_NKINDS)) {
				skipped++;
			} else if (memcmp(img + o, live + o, in.len)) {
				if (differ++ < 5)
					printf("  differs at 0x%" PRIx64 "\n", addr + o);
			} else {
				same++;
			}
			o += in.len;
		}
	}
	fclose(f);
	kernel_close(&k);
	printf("kcore: %zu functions, %zu instructions equal to the image, %zu skipped as rewritten at boot, %zu differ\n",
	       funcs, same, skipped, differ);
	printf("%s kcore: live text read through /proc/kcore equals the image\n",
	       funcs >= 50 && same >= 300 && !differ ? "PASS" : "FAIL");
	printf("%s kcore: an unbacked address is refused\n", unbacked_refused ? "PASS" : "FAIL");
	return 0;
}

/* Prints len live bytes at addr as hex: for checks from shell scripts. */
static int peek(const char *addr, const char *len)
{
	struct kimage *img;
	struct gerr e;
	uint8_t b[64];
	size_t n = strtoul(len, NULL, 0);

	if (n > sizeof(b) || kimage_open("/proc/kcore", &img, &e) ||
	    kimage_read(img, strtoull(addr, NULL, 16), b, n, &e))
		return 1;
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
	printf("\n");
	kimage_close(img);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "live"))
		return live();
	if (argc == 4 && !strcmp(argv[1], "peek"))
		return peek(argv[2], argv[3]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "compare"))
		return compare(argv[2], argc == 4 ? argv[3] : "ref");
	fprintf(stderr, "usage: test-kcore live | compare FILE [PROFILE] | peek HEXADDR LEN\n");
	return 2;
}
