/*
 * arm64 decode cross-check: every word of an arm64 Image's text, as gilk's
 * decoder reads it (Capstone, and decode_arm64.c's own for what Capstone 4
 * does not know), against binutils' objdump for aarch64, an independent
 * decoder:
 *  - a word gilk decodes, objdump decodes too (gilk invents nothing);
 *  - a branch to an address (b, b.cond, bl, cbz, cbnz, tbz, tbnz) is one for
 *    both, to the same target, and of the same kind (jmp, conditional, call);
 *  - br, blr, ret and eret are indirect jumps, indirect calls, returns and
 *    exception returns for gilk;
 *  - the text of what decode_arm64.c decodes itself (ARMv8.1's atomics, udf)
 *    is objdump's, character for character.
 * Words objdump decodes and gilk does not (SVE, MTE) are counted, not
 * failed: their functions' blocks are refused as undecodable.
 *   test-arm64-objdump IMAGE KALLSYMS
 * prints PASS/FAIL lines, then "N passed, N failed".
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"

static bool is_one_of(const char *mn, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(mn, *set))
			return true;
	return false;
}

/* objdump's kind for a mnemonic: the same enum as gilk's */
static int objdump_kind(const char *mn)
{
	static const char *const cond[] = { "cbz", "cbnz", "tbz", "tbnz", NULL };

	if (!strcmp(mn, "b"))
		return IK_JMP;
	if (!strncmp(mn, "b.", 2) || is_one_of(mn, cond))
		return IK_JCC;
	if (!strcmp(mn, "bl"))
		return IK_CALL;
	if (!strcmp(mn, "br"))
		return IK_JMP_IND;
	if (!strcmp(mn, "blr"))
		return IK_CALL_IND;
	if (!strcmp(mn, "ret"))
		return IK_RET;
	if (!strcmp(mn, "eret"))
		return IK_TRAP_EXIT;
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long long words = 0, bad = 0, branches = 0, own = 0, unknown = 0;
	unsigned long long first_bad = 0, first_branch = 0, first_own = 0;
	char cmd[1024], line[512], text[128], why[256] = "";
	struct kernel k;
	struct gerr e;
	FILE *p;
	int pass = 0, fail = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: test-arm64-objdump IMAGE KALLSYMS\n");
		return 2;
	}
	if (kernel_open(&k, argv[1], argv[2], &e)) {
		fprintf(stderr, "test-arm64-objdump: %s\n", e.msg);
		return 1;
	}
	/* the Image's first byte is 64 KiB below _stext (core/kernel.c) */
	snprintf(cmd, sizeof(cmd),
		 "aarch64-linux-gnu-objdump -z -D -b binary -m aarch64 --adjust-vma=0x%" PRIx64
		 " --start-address=0x%" PRIx64 " --stop-address=0x%" PRIx64 " %s",
		 k.text_start - 0x10000, k.text_start, k.text_end, argv[1]);
	p = popen(cmd, "r");
	if (!p) {
		perror("popen");
		return 1;
	}
	while (fgets(line, sizeof(line), p)) {
		char *f[4] = { NULL }, *s = line, *c;
		unsigned long long addr;
		struct insn in;
		const uint8_t *b;
		int n = 0, ok, ok_obj, kind;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, " %llx:", &addr) != 1 || !strchr(line, '\t'))
			continue;
		while (n < 4 && (c = strsep(&s, "\t")))
			f[n++] = c;
		if (n < 3)
			continue;
		if (f[3]) {	/* objdump's comment ("// b.any") and the spaces before it */
			if ((c = strstr(f[3], "//")))
				*c = '\0';
			for (c = f[3] + strlen(f[3]); c > f[3] && c[-1] == ' '; c--)
				c[-1] = '\0';
		}
		words++;
		b = kimage_ptr(k.img, addr, 4);
		ok = b && decode_one(k.dec, b, 4, addr, &in) == 0;
		ok_obj = strcmp(f[2], ".inst") != 0 && !strstr(line, "undefined");
		if (ok && !ok_obj) {
			if (!bad++)
				first_bad = addr;
			continue;
		}
		if (!ok) {
			unknown += ok_obj;
			continue;
		}
		kind = objdump_kind(f[2]);
		if (kind >= 0 || insn_has_target(&in) || in.kind == IK_JMP_IND ||
		    in.kind == IK_CALL_IND || in.kind == IK_RET) {
			unsigned long long t = 0;
			char *last = f[3] ? strrchr(f[3], ' ') : NULL;

			if (kind == IK_JMP || kind == IK_JCC || kind == IK_CALL)
				t = strtoull(last ? last + 1 : f[3] ? f[3] : "0", NULL, 16);
			if (kind != in.kind || (insn_has_target(&in) && t != in.target)) {
				if (!branches++) {
					first_branch = addr;
					snprintf(why, sizeof(why), "%s %s: gilk's kind %d target 0x%" PRIx64,
						 f[2], f[3] ? f[3] : "", in.kind, in.target);
				}
			}
		}
		if (in.id == 0) {	/* decoded by decode_arm64.c itself */
			snprintf(text, sizeof(text), "%s%s%s", f[2], f[3] ? " " : "", f[3] ? f[3] : "");
			for (c = text; *c; c++)
				if (*c == '\t')
					*c = ' ';
			if (decode_text(k.dec, &in, cmd, sizeof(cmd)) || strcmp(cmd, text)) {
				if (!own++)
					first_own = addr;
			}
		}
	}
	pclose(p);
#define CHECK(cond, ...) do { printf("%s ", (cond) ? "PASS" : "FAIL"); printf(__VA_ARGS__); \
		putchar('\n'); (cond) ? pass++ : fail++; } while (0)
	CHECK(words == (k.text_end - k.text_start) / 4,
	      "objdump read every word of the text (%llu)", words);
	CHECK(!bad, "no word gilk decodes is undefined to objdump (%llu are; first at 0x%llx)", bad, first_bad);
	CHECK(!branches, "every branch has objdump's kind and target (%llu differ; first at 0x%llx: %s)",
	      branches, first_branch, why);
	CHECK(!own, "the atomics and udf gilk decodes itself read as objdump's (%llu differ; first at 0x%llx)",
	      own, first_own);
	printf("(%llu words objdump decodes and gilk does not: SVE and MTE)\n", unknown);
	printf("%d passed, %d failed\n", pass, fail);
	kernel_close(&k);
	return fail ? 1 : 0;
}
