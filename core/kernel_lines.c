/* A kernel's line index, found by its build id (kernel_lines.h). */
#include "kernel_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT_GNU_BUILD_ID_TYPE 3

/* The GNU build id among ELF notes. */
static int notes_build_id(const uint8_t *p, size_t len, uint8_t *id, size_t size)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		desc_off = name_off + ((namesz + 3u) & ~3u);
		if (namesz > len || descsz > len || desc_off + descsz > len)
			return -1;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 &&
		    !memcmp(p + name_off, "GNU", 4) && descsz && descsz <= size) {
			memcpy(id, p + desc_off, descsz);
			return (int)descsz;
		}
		off = desc_off + ((descsz + 3u) & ~3u);
	}
	return -1;
}

int kernel_build_id(struct kernel *k, bool live, uint8_t *id, size_t size,
		    struct gerr *e)
{
	const uint8_t *elf_buf;
	size_t elf_len;
	uint8_t buf[4096];
	Elf_Scn *scn = NULL;
	Elf *elf;
	int n = -1;

	if (live) {
		int fd = open("/sys/kernel/notes", O_RDONLY);
		ssize_t r;

		if (fd < 0)
			return gerr_setc(e, errno, "/sys/kernel/notes: %s", strerror(errno));
		r = read(fd, buf, sizeof(buf));
		close(fd);
		if (r > 0)
			n = notes_build_id(buf, (size_t)r, id, size);
		if (n < 0)
			return gerr_set(e, "the running kernel's notes (/sys/kernel/notes) carry no GNU build id");
		return n;
	}
	if (kimage_elf_bytes(k->img, &elf_buf, &elf_len))
		return gerr_set(e, "this kernel image carries no ELF notes, so no build id to match debug information with");
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)elf_buf, elf_len);
	while (elf && n < 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (d = elf_getdata(scn, NULL)) && d->d_buf)
			n = notes_build_id(d->d_buf, d->d_size, id, size);
	}
	if (elf)
		elf_end(elf);
	if (n < 0)
		return gerr_set(e, "the kernel image's notes carry no GNU build id");
	return n;
}

void kernel_lines_dirs(const char *image, char *buf, size_t size)
{
	const char *env = getenv("GILK_DEBUG_DIR");
	const char *slash = image ? strrchr(image, '/') : NULL;
	size_t used = 0;

	buf[0] = 0;
	if (env && env[0])
		used += (size_t)snprintf(buf + used, size - used, "%s:", env);
	if (image && used < size)
		used += (size_t)snprintf(buf + used, size - used, "%.*s%sdebug:",
					 slash ? (int)(slash - image) : 0, image, slash ? "/" : "");
	if (used < size)
		snprintf(buf + used, size - used, "/var/cache/gilk/debug");
}

static void hex(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* The source tree an index names, relative to the index's folder. */
static void resolve_source(struct kernel_lines *kl)
{
	const char *src = lineindex_source(kl->li), *slash = strrchr(kl->path, '/');

	if (!src[0])
		kl->source[0] = 0;
	else if (src[0] == '/' || !slash)
		snprintf(kl->source, sizeof(kl->source), "%s", src);
	else
		snprintf(kl->source, sizeof(kl->source), "%.*s/%s",
			 (int)(slash - kl->path), kl->path, src);
}

int kernel_lines_open(struct kernel_lines *kl, struct kernel *k, bool live,
		      const char *image, struct gerr *e)
{
	uint8_t id[LINEINDEX_BUILD_ID_MAX];
	const uint8_t *lid;
	char dirs[4 * PATH_MAX], idhex[2 * LINEINDEX_BUILD_ID_MAX + 1];
	const struct ksym *text = NULL;
	size_t lidn;
	int n;

	memset(kl, 0, sizeof(*kl));
	n = kernel_build_id(k, live, id, sizeof(id), e);
	if (n < 0)
		return -1;
	hex(id, (size_t)n, idhex);
	kernel_lines_dirs(image, dirs, sizeof(dirs));
	for (char *d = dirs, *next; d && !kl->li; d = next) {
		next = strchr(d, ':');
		if (next)
			*next++ = 0;
		if ((size_t)snprintf(kl->path, sizeof(kl->path), "%.*s/%s.lines",
				     (int)(sizeof(kl->path) - sizeof(idhex) - 8), d, idhex) >= sizeof(kl->path) ||
		    access(kl->path, F_OK))
			continue;
		if (lineindex_open(kl->path, &kl->li, e))
			return -1;
	}
	if (!kl->li) {
		kernel_lines_dirs(image, dirs, sizeof(dirs));
		return gerr_setc(e, ENOENT,
				 "no line index for this kernel (build id %s) in %s. "
				 "Make one from its -dbg package's vmlinux: gilk --index VMLINUX -o DIR "
				 "--source TREE (scripts/setup does, for its profiles; docs/kernels.md)",
				 idhex, dirs);
	}
	lid = lineindex_build_id(kl->li, &lidn);
	if (lidn != (size_t)n || memcmp(lid, id, lidn)) {
		char other[2 * LINEINDEX_BUILD_ID_MAX + 1];

		hex(lid, lidn, other);
		gerr_set(e, "%s was made from another build of the kernel (build id %s, this one's is %s): its lines would be wrong",
			 kl->path, other, idhex);
		kernel_lines_close(kl);
		return -1;
	}
	if (symtab_by_name(k->syms, "_text", &text, 1) != 1) {
		kernel_lines_close(kl);
		return gerr_set(e, "the kernel's symbols have no _text, so the index's addresses cannot be placed");
	}
	kl->slide = (int64_t)(text->addr - lineindex_text(kl->li));
	resolve_source(kl);
	return 0;
}

void kernel_lines_close(struct kernel_lines *kl)
{
	lineindex_close(kl->li);
	kl->li = NULL;
}

int64_t kernel_lines_row_at(const struct kernel_lines *kl, uint64_t addr,
			    struct line_row *r)
{
	int64_t i = lineindex_row_at(kl->li, addr - (uint64_t)kl->slide);

	if (i >= 0)
		lineindex_row(kl->li, (size_t)i, r);
	return i;
}

uint64_t kernel_lines_row_end(const struct kernel_lines *kl, size_t i)
{
	struct line_row a, b;
	size_t n = lineindex_nrows(kl->li);

	lineindex_row(kl->li, i, &a);
	for (size_t j = i + 1; j < n; j++) {
		lineindex_row(kl->li, j, &b);
		if (b.addr > a.addr)
			return b.addr + (uint64_t)kl->slide;
	}
	return a.addr + 1 + (uint64_t)kl->slide;
}

bool kernel_lines_extent(const void *ctx, uint64_t addr, uint64_t *start, uint64_t *size)
{
	const struct kernel_lines *kl = ctx;

	if (!lineindex_extent(kl->li, addr - (uint64_t)kl->slide, start, size))
		return false;
	*start += (uint64_t)kl->slide;
	return true;
}
