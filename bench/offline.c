/*
 * make bench-offline: plans a splice at every block start of every function in
 * the reference kernel's .text, and times that scan against `objdump -d` over
 * the same .text in the same run (on an arm64 Image, binutils' objdump for
 * aarch64; read with its System.map, whose data symbols bound the kernel's
 * tables). Prints coverage by mode and refusals by reason; then the summary
 * the README quotes, and make bench's line for the scan (report.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel.h"
#include "report.h"
#include "splice.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* arm64's Image is raw bytes: objdump for aarch64 reads its text as such,
 * placed as gilk places it (_text 64 KiB below _stext, core/kernel.c). */
static double time_objdump_arm64(const struct kernel *k, const char *image)
{
	char cmd[512];
	double t0;

	snprintf(cmd, sizeof(cmd),
		 "aarch64-linux-gnu-objdump -D -b binary -m aarch64 --adjust-vma=0x%" PRIx64
		 " --start-address=0x%" PRIx64 " --stop-address=0x%" PRIx64 " %s >/dev/null",
		 k->text_start - 0x10000, k->text_start, k->text_end, image);
	t0 = now();
	return system(cmd) == 0 ? now() - t0 : -1;
}

/* objdump reads files: write the image's ELF bytes to a temporary file. */
static double time_objdump(const struct kernel *k)
{
	char path[] = "/tmp/gilk-bench-vmlinux.XXXXXX";
	const uint8_t *buf;
	size_t len;
	int fd = mkstemp(path);
	char cmd[256];
	double t0, t;
	FILE *f;

	if (fd < 0 || kimage_elf_bytes(k->img, &buf, &len))
		return -1;
	f = fdopen(fd, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		unlink(path);
		return -1;
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "objdump -d --section=.text %s >/dev/null", path);
	t0 = now();
	if (system(cmd) != 0)
		t0 = -1;
	t = now() - t0;
	unlink(path);
	return t0 < 0 ? -1 : t;
}

int main(int argc, char **argv)
{
	const char *image = argc > 1 ? argv[1] : "build/cache/ref/vmlinuz";
	const char *symbols = argc > 2 ? argv[2] : "build/cache/ref/kallsyms";
	static struct cfg_window w;
	size_t nfunc, nblocks = 0, ninsn = 0, by_mode[3] = { 0 }, bounce[4] = { 0 }, bugs[3] = { 0 };
	size_t switches = 0, switches_read = 0;	/* table jumps, and those whose table was read */
	size_t refused[SR_NREASONS] = { 0 }, limits[SR_NREASONS] = { 0 };
	const struct ksym **funcs;
	struct kernel k;
	struct gerr e;
	double t0, scan, objdump;
	char jump[32];
	size_t ok;

	if (kernel_open(&k, image, symbols, &e)) {
		fprintf(stderr, "bench-offline: %s\n", e.msg);
		return 1;
	}
	nfunc = symtab_functions(k.syms, k.text_start, k.text_end, NULL, 0);
	funcs = calloc(nfunc, sizeof(*funcs));
	symtab_functions(k.syms, k.text_start, k.text_end, funcs, nfunc);

	t0 = now();
	for (size_t f = 0; f < nfunc; f++) {
		struct splice_env env;
		const struct cfg *g;

		if (kernel_window(&k, funcs[f]->addr, 160, &w, &e)) {
			fprintf(stderr, "bench-offline: %s: %s\n", funcs[f]->name, e.msg);
			continue;
		}
		kernel_env(&k, &w, &env);
		g = w.view[0];
		ninsn += cfg_insn_count(g);
		for (size_t i = 0; i < g->ninsn; i++) {
			ssize_t b = g->insns[i].table_jump ? cfg_block_at(g, g->insns[i].addr) : -1;

			switches += b >= 0;
			switches_read += b >= 0 && g->blocks[b].nsucc;
		}
		for (size_t b = 0; b < g->nblocks; b++) {
			struct splice_plan p;
			uint64_t site = splice_site_for_block(&env, g->blocks[b].start);

			nblocks++;
			if (splice_plan(&env, site, &p) == 0) {
				by_mode[p.mode]++;
				bugs[p.bug]++;
				if (p.mode == SPLICE_BOUNCE)
					bounce[p.bounce_kind]++;
			} else {
				refused[p.reason]++;
				if (p.reason == SR_NO_BOUNCE_SLOT || p.reason == SR_TOO_SHORT)
					limits[p.limit]++;
			}
		}
	}
	scan = now() - t0;
	objdump = kimage_kind(k.img) == KIMAGE_ARM64 ? time_objdump_arm64(&k, image)
						       : time_objdump(&k);

	ok = by_mode[SPLICE_JMP] + by_mode[SPLICE_BOUNCE];
	printf("reference kernel: %s (%zu instructions in %zu functions)\n", image, ninsn, nfunc);
	printf("blocks:              %zu\n", nblocks);
	snprintf(jump, sizeof(jump), "%s:", arch_info(k.arch)->jump_encoding);
	printf("  %-19s%zu (%.2f%%)\n", jump, by_mode[SPLICE_JMP], 100.0 * (double)by_mode[SPLICE_JMP] / (double)nblocks);
	printf("  bounce, padding:   %zu (%.2f%%)\n", bounce[BOUNCE_PADDING], 100.0 * (double)bounce[BOUNCE_PADDING] / (double)nblocks);
	printf("  bounce, evicted:   %zu (%.2f%%)\n", bounce[BOUNCE_EVICT], 100.0 * (double)bounce[BOUNCE_EVICT] / (double)nblocks);
	printf("  of which BUG/WARN sites gilk.ko replays: %zu BUG, %zu WARN (%.2f%%)\n", bugs[BUG_BUG], bugs[BUG_WARN],
	       100.0 * (double)(bugs[BUG_BUG] + bugs[BUG_WARN]) / (double)nblocks);
	printf("refused:             %zu (%.2f%%)\n", nblocks - ok, 100.0 * (double)(nblocks - ok) / (double)nblocks);
	for (int r = 1; r < SR_NREASONS; r++)
		if (refused[r])
			printf("  %-18s %zu\n", splice_reason_name((enum splice_reason)r), refused[r]);
	if (refused[SR_TOO_SHORT] || refused[SR_NO_BOUNCE_SLOT])
		printf("short blocks refused, by what cut the region short:\n");
	for (int r = 1; r < SR_NREASONS; r++)
		if (limits[r])
			printf("  %-18s %zu\n", r == SR_TOO_SHORT ? "branch target/end" : splice_reason_name((enum splice_reason)r), limits[r]);
	{
		/* What the engine itself leaves: refusals other than code the
		 * kernel forbids patching (BUG/WARN, jump labels, static calls,
		 * ftrace, extable, blacklist/noinstr) and, on arm64, the inside
		 * of an exclusive sequence, which no instrumentation that
		 * stores (nor a kprobe's trap) may interrupt. */
		size_t policy = refused[SR_UD2] + refused[SR_JUMP_LABEL] +
				refused[SR_STATIC_CALL] + refused[SR_FTRACE] +
				refused[SR_EXTABLE] + refused[SR_BLACKLIST] +
				refused[SR_INT3] + refused[SR_EXCLUSIVE];

		printf("engine: %.3f%% of the %zu blocks outside code the kernel reserves\n",
		       100.0 * (double)ok / (double)(nblocks - policy), nblocks - policy);
	}
	printf("switch tables: %zu of %zu read\n", switches_read, switches);
	printf("scan: %.2f s; objdump -d over the same .text: %.2f s\n", scan, objdump);
	printf("offline: %zu functions, %zu blocks, %.1f%% spliceable, scan/objdump %.2f\n",
	       nfunc, nblocks, 100.0 * (double)ok / (double)nblocks,
	       objdump > 0 ? scan / objdump : -1.0);
	bench_line(stdout, "offline-scan", scan, "s", "objdump -d", objdump > 0 ? objdump : NAN);
	window_free(&w);
	free(funcs);
	kernel_close(&k);
	return 0;
}
