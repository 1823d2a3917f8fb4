/*
 * bench-complete: make bench's offline figures of the shell itself. Tab
 * completion of kernel symbols (the shell's own completion function, as
 * Tab calls it after "disas ") timed over many prefixes of the full symbol
 * table (median and 99th percentile), against a linear scan of the distinct names for the same prefixes
 * in the same run; the two must agree on how many names each prefix
 * matches, or the run fails. And the offline shell's peak RSS with all of
 * the symbols loaded, against the size of the symbol file.
 *
 *   bench-complete IMAGE SYMBOLS [SAMPLES]    (2000 symbols sampled; the
 *                                             prefixes are their first 1 to 4
 *                                             characters)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "complete/complete.h"
#include "report.h"
#include "session/session.h"

#define PREFIX_MAX 4

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every distinct symbol name, sorted: what a completer without an index
 * would scan. */
static const char **distinct_names(const struct symtab *st, size_t *n)
{
	size_t count = symtab_count(st), k = 0;
	const char **names = malloc(count * sizeof(*names));

	if (!names)
		return NULL;
	for (size_t i = 0; i < count; i++)
		names[i] = symtab_at(st, i)->name;
	qsort(names, count, sizeof(*names), by_name);
	for (size_t i = 0; i < count; i++)
		if (!k || strcmp(names[k - 1], names[i]))
			names[k++] = names[i];
	*n = k;
	return names;
}

static size_t scan(const char **names, size_t n, const char *prefix)
{
	size_t len = strlen(prefix), hits = 0;

	for (size_t i = 0; i < n; i++)
		hits += !strncmp(names[i], prefix, len);
	return hits;
}

int main(int argc, char **argv)
{
	static struct session s;
	size_t samples = argc > 3 ? strtoul(argv[3], NULL, 10) : 2000, nnames, nt = 0;
	double *tab, *lin;
	const char **names;
	struct rusage ru;
	struct stat st;
	struct gerr e;

	if (argc < 3 || argc > 4 || samples < 1) {
		fprintf(stderr, "usage: bench-complete IMAGE SYMBOLS [SAMPLES (1 or more)]\n");
		return 2;
	}
	if (session_open_offline(&s, argv[1], argv[2], &e)) {
		fprintf(stderr, "bench-complete: %s\n", e.msg);
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	names = distinct_names(s.k->syms, &nnames);
	tab = calloc(samples * PREFIX_MAX, sizeof(*tab));
	lin = calloc(samples * PREFIX_MAX, sizeof(*lin));
	if (!names || !tab || !lin || stat(argv[2], &st)) {
		fprintf(stderr, "bench-complete: out of memory, or %s is gone\n", argv[2]);
		return 1;
	}
	for (size_t i = 0; i < samples; i++) {
		const char *name = symtab_at(s.k->syms, i * symtab_count(s.k->syms) / samples)->name;
		char prefix[PREFIX_MAX + 1];

		for (size_t len = 1; len <= PREFIX_MAX && len <= strlen(name); len++) {
			double t0;
			long tabbed;
			size_t scanned;

			snprintf(prefix, sizeof(prefix), "%.*s", (int)len, name);
			t0 = now_us();
			tabbed = complete_candidates(&s, "disas ", prefix);
			tab[nt] = now_us() - t0;
			t0 = now_us();
			scanned = scan(names, nnames, prefix);
			lin[nt++] = now_us() - t0;
			if (tabbed < 0 || (size_t)tabbed != scanned) {
				fprintf(stderr, "bench-complete: Tab completes '%s' to %ld names, a scan finds %zu\n",
					prefix, tabbed, scanned);
				return 1;
			}
		}
	}
	printf("complete: %zu prefixes of %zu sampled symbols (%zu distinct names)\n",
	       nt, samples, nnames);
	bench_line(stdout, "complete-symbols-median", bench_median(tab, nt), "us",
		   "linear scan", bench_median(lin, nt));
	/* bench_median() sorted them; a max is one preemption of the host */
	bench_line(stdout, "complete-symbols-p99", tab[nt * 99 / 100], "us", "linear scan, p99",
		   lin[nt * 99 / 100]);
	bench_line(stdout, "shell-rss-offline", (double)ru.ru_maxrss / 1024, "MiB",
		   "symbol file", (double)st.st_size / (1024 * 1024));
	free(tab);
	free(lin);
	free(names);
	session_close(&s);
	return 0;
}
