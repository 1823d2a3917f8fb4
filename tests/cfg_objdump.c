/*
 * CFG cross-check: for a deterministic sample of reference-kernel functions,
 * instruction boundaries, block starts and block successors computed by
 * core/cfg from core/decode (Zydis) must equal those computed here from `objdump -d`,
 * an independent decoder, with the same leader rules (entry, branch targets,
 * external targets, after jumps/returns/ud2; int3 runs and nops nothing falls
 * into are padding).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"

struct oinsn {
	uint64_t addr, target;
	char mn[32];
};

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static size_t objdump_insns(const char *elf, uint64_t lo, uint64_t hi,
			    struct oinsn *out, size_t max)
{
	char cmd[512], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn --start-address=0x%" PRIx64
		 " --stop-address=0x%" PRIx64 " %s", lo, hi, elf);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p) && n < max) {
		char *q = line, *end;
		uint64_t a;
		struct oinsn *o;

		while (*q == ' ')
			q++;
		a = strtoull(q, &end, 16);
		if (end == q || *end != ':' || end[1] != '\t' || a < lo || a >= hi)
			continue;
		o = &out[n++];
		memset(o, 0, sizeof(*o));
		o->addr = a;
		q = end + 2;
		/* prefixes objdump prints as words: skip to the mnemonic */
		while (starts(q, "bnd ") || starts(q, "notrack ") || starts(q, "ds ") ||
		       starts(q, "cs ") || starts(q, "data16 ") || starts(q, "rex.") ||
		       starts(q, "lock ") || starts(q, "rep ") || starts(q, "repz ") ||
		       starts(q, "repnz "))
			q = strchr(q, ' ') + 1;
		sscanf(q, "%31s", o->mn);
		end = q + strlen(o->mn);
		while (*end == ' ')
			end++;
		if (!strcmp(o->mn, "xchg") && starts(end, "%ax,%ax"))
			strcpy(o->mn, "nop"); /* 66 90, the 2-byte nop */
		if (o->mn[0] == 'j' || starts(o->mn, "loop") || starts(o->mn, "call") ||
		    starts(o->mn, "xbegin"))
			if (*end != '*')
				o->target = strtoull(end, NULL, 16);
	}
	pclose(p);
	return n;
}

static bool is_jump(const char *m) { return m[0] == 'j' || starts(m, "loop"); }
static bool no_fall(const struct oinsn *o)
{
	return starts(o->mn, "jmp") || starts(o->mn, "ret") || starts(o->mn, "ud2") ||
	       starts(o->mn, "int3") || starts(o->mn, "iret") || starts(o->mn, "sysret") ||
	       starts(o->mn, "ljmp") || starts(o->mn, "lret");
}
static bool ends_block(const struct oinsn *o)
{
	return is_jump(o->mn) || no_fall(o) || starts(o->mn, "xbegin") ||
	       starts(o->mn, "int") || starts(o->mn, "sysexit");
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool in_set(const uint64_t *s, size_t n, uint64_t v)
{
	return bsearch(&v, s, n, sizeof(*s), cmp64) != NULL;
}

/*
 * The planner keeps each core kernel function's branch targets for its
 * neighbours' CFGs (kernel.c, memo_targets()). Over a run of consecutive
 * functions, around assembly that jumps between its symbols, the CFGs
 * built in a row (the memo warm) must equal those another struct kernel
 * builds with it forgotten before each one.
 */
static int memo_check(struct kernel *k, const struct ksym **funcs, size_t nfunc,
		      const char *image, const char *symbols)
{
	size_t first = nfunc / 2, same = 0, differ = 0, nt = 0;
	struct cfg warm, cold;
	struct kernel k2;
	struct gerr e;

	if (kernel_open(&k2, image, symbols, &e)) {
		printf("FAIL neighbour memo: cannot load the kernel again: %s\n", e.msg);
		return 0;
	}
	for (size_t i = 0; i < nfunc; i++)
		if (!strcmp(funcs[i]->name, "copy_user_short_string"))
			first = i;
	first = first > 300 ? first - 300 : 0;
	memset(&warm, 0, sizeof(warm));
	memset(&cold, 0, sizeof(cold));
	for (size_t i = first; i < nfunc && i < first + 600; i++) {
		int rw = kernel_cfg(k, funcs[i]->addr, &warm, &e);
		int rc;

		kernel_text_changed(&k2);
		rc = kernel_cfg(&k2, funcs[i]->addr, &cold, &e);
		if (rw || rc) {
			differ += rw != rc;
			continue;
		}
		nt += warm.ntargets;
		if (warm.ntargets == cold.ntargets && warm.nblocks == cold.nblocks &&
		    warm.misaligned == cold.misaligned &&
		    !memcmp(warm.targets, cold.targets, warm.ntargets * sizeof(*warm.targets)))
			same++;
		else
			differ++;
	}
	cfg_free(&warm);
	cfg_free(&cold);
	kernel_close(&k2);
	if (differ || !same) {
		printf("FAIL neighbour memo: %zu of %zu CFGs differ with the memo warm and cold\n",
		       differ, same + differ);
		return 0;
	}
	printf("PASS neighbour memo: %zu CFGs (%zu targets) the same with the memo warm and cold\n",
	       same, nt);
	return 1;
}

int main(int argc, char **argv)
{
	const char *image = argc > 1 ? argv[1] : "build/cache/ref/vmlinuz";
	const char *symbols = argc > 2 ? argv[2] : "build/cache/ref/kallsyms";
	char elf[] = "/tmp/gilk-cfg-vmlinux.XXXXXX";
	static struct oinsn oi[200000];
	static uint64_t targets[200000], starts_o[200000];
	int passed = 0, failed = 0;
	const struct ksym **funcs;
	size_t nfunc, checked = 0, blocks = 0;
	struct kernel k;
	struct gerr e;
	struct cfg g;
	const uint8_t *buf;
	size_t len;
	FILE *f;
	int fd;

	memset(&g, 0, sizeof(g));
	if (kernel_open(&k, image, symbols, &e)) {
		fprintf(stderr, "cfg-objdump: %s\n", e.msg);
		printf("FAIL cfg matches objdump: cannot load the reference kernel\n0 passed, 1 failed\n");
		return 1;
	}
	fd = mkstemp(elf);
	f = fdopen(fd, "wb");
	kimage_elf_bytes(k.img, &buf, &len);
	fwrite(buf, 1, len, f);
	fclose(f);
	nfunc = symtab_functions(k.syms, k.text_start, k.text_end, NULL, 0);
	funcs = calloc(nfunc, sizeof(*funcs));
	symtab_functions(k.syms, k.text_start, k.text_end, funcs, nfunc);
	for (size_t fi = 7; fi < nfunc; fi += nfunc / 150) {
		size_t n, nt = 0, ns = 0, bad = 0;
		bool fall = true;
		char why[256] = "";

		if (kernel_cfg(&k, funcs[fi]->addr, &g, &e) || g.bad_addr || g.misaligned)
			continue;
		n = objdump_insns(elf, g.start, g.end, oi, sizeof(oi) / sizeof(oi[0]));
		/* targets: objdump's direct jumps, plus the same external ones */
		for (size_t i = 0; i < n; i++)
			if (is_jump(oi[i].mn) && oi[i].target >= g.start && oi[i].target < g.end)
				targets[nt++] = oi[i].target;
		for (size_t i = 0; i < g.ntargets; i++)
			if (cfg_insn_at(&g, g.targets[i]) >= 0) {
				bool direct = false;

				for (size_t j = 0; j < n && !direct; j++)
					direct = is_jump(oi[j].mn) && oi[j].target == g.targets[i];
				if (!direct)
					targets[nt++] = g.targets[i]; /* external */
			}
		qsort(targets, nt, sizeof(*targets), cmp64);
		for (size_t i = 0; i < n; i++) {
			bool tgt = in_set(targets, nt, oi[i].addr);
			bool filler = starts(oi[i].mn, "int3") ||
				      (!fall && strstr(oi[i].mn, "nop"));

			if (!tgt && filler)
				continue;
			if (i == 0 || tgt || (i > 0 && ns && ends_block(&oi[i - 1])) ||
			    (ns && starts(oi[i - 1].mn, "int3")) ||
			    (ns && !fall && strstr(oi[i - 1].mn, "nop")))
				starts_o[ns++] = oi[i].addr;
			fall = !no_fall(&oi[i]);
		}
		/* compare instruction boundaries */
		if (n != g.ninsn) {
			snprintf(why, sizeof(why), "%zu instructions by objdump, %zu by gilk", n, g.ninsn);
			bad = 1;
		}
		for (size_t i = 0; !bad && i < n; i++)
			if (oi[i].addr != g.insns[i].addr) {
				snprintf(why, sizeof(why), "instruction boundary 0x%" PRIx64 " vs 0x%" PRIx64,
					 oi[i].addr, g.insns[i].addr);
				bad = 1;
			}
		if (!bad && ns != g.nblocks) {
			snprintf(why, sizeof(why), "%zu blocks by objdump, %zu by gilk", ns, g.nblocks);
			bad = 1;
		}
		for (size_t i = 0; !bad && i < ns; i++)
			if (starts_o[i] != g.blocks[i].start) {
				snprintf(why, sizeof(why), "block start 0x%" PRIx64 " vs 0x%" PRIx64,
					 starts_o[i], g.blocks[i].start);
				bad = 1;
			}
		/* successors: a block's direct jump target per objdump is one
		 * of the edges gilk found */
		for (size_t b = 0; !bad && b < g.nblocks; b++) {
			const struct block *bl = &g.blocks[b];
			const struct oinsn *last = NULL;
			bool found = false;

			for (size_t i = 0; i < n; i++)
				if (oi[i].addr < bl->end)
					last = &oi[i];
			if (!last || !is_jump(last->mn) || last->target < g.start || last->target >= g.end)
				continue;
			for (size_t s = 0; s < bl->nsucc; s++)
				found |= g.blocks[g.edges[bl->edge_first + s].to].start == last->target;
			if (!found) {
				snprintf(why, sizeof(why), "block 0x%" PRIx64 ": no edge to 0x%" PRIx64,
					 bl->start, last->target);
				bad = 1;
			}
		}
		checked++;
		blocks += g.nblocks;
		if (bad) {
			failed++;
			printf("FAIL cfg of %s matches objdump: %s\n", funcs[fi]->name, why);
		} else {
			passed++;
		}
	}
	printf("cfg-objdump: %zu functions, %zu blocks compared\n", checked, blocks);
	if (memo_check(&k, funcs, nfunc, image, symbols))
		passed++;
	else
		failed++;
	printf("%d passed, %d failed\n", passed, failed);
	unlink(elf);
	cfg_free(&g);
	free(funcs);
	kernel_close(&k);
	return failed ? 1 : 0;
}
