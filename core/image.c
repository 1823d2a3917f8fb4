/*
 * Kernel images (see image.h). File-backed images are read into memory once;
 * lookups by address go through a small table of allocated sections (ELF) or
 * load segments (kcore, read with pread on demand because kcore is huge).
 */
#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

struct kseg {
	uint64_t addr;
	uint64_t size;
	uint64_t off;     /* file offset (kcore) or offset into buf (ELF) */
	/* a snapshot's bytes, each range its own: one buffer grown by every
	 * module function copied in would be moved and copied whole each
	 * time (the whole kernel's coverage copies thousands) */
	uint8_t *data;
	char name[40];
};

struct kimage {
	enum kimage_kind kind;
	enum arch arch;
	uint8_t *buf;     /* the ELF bytes (ELF, bzImage); a snapshot's bytes */
	size_t len;
	int fd;           /* kcore */
	struct kseg *segs;
	size_t nsegs;
};

static int read_file(const char *path, uint8_t **out, size_t *len,
		     struct gerr *e)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *buf;
	size_t got = 0;

	if (fd < 0)
		return gerr_set(e, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return gerr_set(e, "%s: empty or unreadable", path);
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		close(fd);
		return gerr_set(e, "%s: out of memory", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)	/* a signal: read on */
			continue;
		if (r <= 0) {
			free(buf);
			close(fd);
			return gerr_set(e, "%s: read failed", path);
		}
		got += (size_t)r;
	}
	close(fd);
	*out = buf;
	*len = got;
	return 0;
}

static int add_seg(struct kimage *k, uint64_t addr, uint64_t size,
		   uint64_t off, const char *name)
{
	struct kseg *s = realloc(k->segs, (k->nsegs + 1) * sizeof(*s));

	if (!s)
		return -1;
	k->segs = s;
	s = &k->segs[k->nsegs++];
	s->addr = addr;
	s->size = size;
	s->off = off;
	s->data = NULL;
	snprintf(s->name, sizeof(s->name), "%s", name ? name : "");
	return 0;
}

/* Where a segment's bytes are held in memory (not a kcore's). */
static uint8_t *seg_bytes(const struct kimage *k, const struct kseg *s)
{
	return s->data ? s->data : k->buf + s->off;
}

/* Allocated PROGBITS sections of an in-memory vmlinux become the address map. */
static int index_elf_sections(struct kimage *k, struct gerr *e)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int rc = 0;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)k->buf, k->len);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		rc = gerr_set(e, "not an ELF file");
	else if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		rc = gerr_set(e, "ELF without section names: %s", elf_errmsg(-1));
	if (!rc) {
		GElf_Ehdr eh;

		if (gelf_getehdr(elf, &eh) && eh.e_machine == EM_AARCH64)
			k->arch = ARCH_ARM64;
	}
	while (!rc && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS ||
		    !sh.sh_addr || !sh.sh_size)
			continue;
		if (sh.sh_offset + sh.sh_size > k->len) {
			rc = gerr_set(e, "ELF section past the end of the file");
			break;
		}
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (add_seg(k, sh.sh_addr, sh.sh_size, sh.sh_offset, name))
			rc = gerr_set(e, "out of memory");
	}
	if (!rc && k->nsegs == 0)
		rc = gerr_set(e, "ELF has no allocated sections with contents");
	if (elf)
		elf_end(elf);
	return rc;
}

/* An image of bytes held in memory (it takes buf); NULL when out of memory,
 * buf freed. */
static struct kimage *buffer_image(uint8_t *buf, size_t len, enum kimage_kind kind,
				   struct gerr *e)
{
	struct kimage *k = calloc(1, sizeof(*k));

	if (!k) {
		free(buf);
		gerr_set(e, "out of memory");
		return NULL;
	}
	k->kind = kind;
	k->arch = kind == KIMAGE_ARM64 ? ARCH_ARM64 : ARCH_X86_64;
	k->buf = buf;
	k->len = len;
	k->fd = -1;
	return k;
}

int kimage_open_elf_buffer(uint8_t *buf, size_t len, struct kimage **out,
			   struct gerr *e)
{
	struct kimage *k = buffer_image(buf, len, KIMAGE_ELF, e);

	if (!k)
		return -1;
	if (index_elf_sections(k, e)) {
		kimage_close(k);
		return -1;
	}
	*out = k;
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static bool is_bzimage(const uint8_t *b, size_t len)
{
	return len > 0x250 && memcmp(b + 0x202, "HdrS", 4) == 0;
}

/* arm64's Image (Documentation/arm64/booting.rst): a 64-byte header whose
 * magic is "ARM\x64" at 0x38, then the kernel as it lies in memory from
 * _text on. */
static bool is_arm64_image(const uint8_t *b, size_t len)
{
	return len > 64 && memcmp(b + 0x38, "ARM\x64", 4) == 0;
}

static int unxz(const uint8_t *in, size_t inlen, uint8_t **out, size_t *outlen,
		size_t hint, struct gerr *e)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = hint ? hint : inlen * 4;
	uint8_t *buf = malloc(cap);
	lzma_ret r;

	if (!buf)
		return gerr_set(e, "out of memory");
	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK) {
		free(buf);
		return gerr_set(e, "liblzma: cannot start a decoder");
	}
	s.next_in = in;
	s.avail_in = inlen;
	s.next_out = buf;
	s.avail_out = cap;
	for (;;) {
		r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r == LZMA_OK || (r == LZMA_BUF_ERROR && s.avail_out == 0)) {
			size_t used = cap - s.avail_out;
			uint8_t *nb = realloc(buf, cap * 2);

			if (!nb) {
				r = LZMA_MEM_ERROR;
				break;
			}
			buf = nb;
			s.next_out = buf + used;
			s.avail_out = cap;
			cap *= 2;
			continue;
		}
		break;
	}
	*outlen = cap - s.avail_out;
	lzma_end(&s);
	if (r != LZMA_STREAM_END) {
		free(buf);
		return gerr_set(e, "xz payload is corrupt (liblzma error %d)", (int)r);
	}
	*out = buf;
	return 0;
}

static int gunzip(const uint8_t *in, size_t inlen, uint8_t **out,
		  size_t *outlen, size_t hint, struct gerr *e)
{
	z_stream z;
	size_t cap = hint ? hint : inlen * 4;
	uint8_t *buf = malloc(cap);
	int r;

	if (!buf)
		return gerr_set(e, "out of memory");
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(buf);
		return gerr_set(e, "zlib: cannot start a decoder");
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)inlen;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	for (;;) {
		r = inflate(&z, Z_FINISH);
		if (r == Z_STREAM_END)
			break;
		if ((r == Z_BUF_ERROR || r == Z_OK) && z.avail_out == 0) {
			uint8_t *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			z.next_out = buf + cap;
			z.avail_out = (uInt)cap;
			cap *= 2;
			continue;
		}
		break;
	}
	*outlen = z.total_out;
	inflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(buf);
		return gerr_set(e, "gzip payload is corrupt (zlib error %d)", r);
	}
	*out = buf;
	return 0;
}

static int unzstd(const uint8_t *in, size_t inlen, uint8_t **out,
		  size_t *outlen, size_t hint, struct gerr *e)
{
	unsigned long long sz = ZSTD_getFrameContentSize(in, inlen);
	size_t cap = sz != ZSTD_CONTENTSIZE_UNKNOWN && sz != ZSTD_CONTENTSIZE_ERROR
			     ? (size_t)sz : hint;
	uint8_t *buf;
	size_t r;

	if (!cap)
		return gerr_set(e, "zstd payload does not say its size");
	/* The kernel's build appends the uncompressed size (4 bytes) to the
	 * frame, as for gzip and xz; zstd counts bytes past a frame as a bad
	 * source size, so decompress the frame alone.
	 */
	r = ZSTD_findFrameCompressedSize(in, inlen);
	if (!ZSTD_isError(r) && r < inlen)
		inlen = r;
	buf = malloc(cap);
	if (!buf)
		return gerr_set(e, "out of memory");
	r = ZSTD_decompress(buf, cap, in, inlen);
	if (ZSTD_isError(r)) {
		free(buf);
		return gerr_set(e, "zstd payload is corrupt: %s", ZSTD_getErrorName(r));
	}
	*out = buf;
	*outlen = r;
	return 0;
}

int bzimage_payload(const uint8_t *bz, size_t len, uint8_t **out,
		    size_t *outlen, struct gerr *e)
{
	static const uint8_t xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const uint8_t gz_magic[] = { 0x1f, 0x8b };
	static const uint8_t zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };
	size_t setup_sects, start, plen, hint;
	const uint8_t *p;

	if (!is_bzimage(bz, len))
		return gerr_set(e, "not a bzImage (no HdrS signature)");
	if (le32(bz + 0x206) < 0x208) /* payload fields need protocol 2.08 */
		return gerr_set(e, "bzImage boot protocol too old to locate its payload");
	setup_sects = bz[0x1f1] ? bz[0x1f1] : 4;
	start = (setup_sects + 1) * 512 + le32(bz + 0x248);
	plen = le32(bz + 0x24c);
	if (start >= len || plen > len - start || plen < 8)
		return gerr_set(e, "bzImage payload lies outside the file");
	p = bz + start;
	/* The kernel's build appends the decompressed size as the last 4 bytes. */
	hint = le32(p + plen - 4);
	if (!memcmp(p, xz_magic, sizeof(xz_magic)))
		return unxz(p, plen, out, outlen, hint, e);
	if (!memcmp(p, gz_magic, sizeof(gz_magic)))
		return gunzip(p, plen, out, outlen, hint, e);
	if (!memcmp(p, zstd_magic, sizeof(zstd_magic)))
		return unzstd(p, plen, out, outlen, hint, e);
	return gerr_set(e, "bzImage payload compression not supported (magic %02x %02x %02x %02x); gilk reads xz, gzip and zstd",
			p[0], p[1], p[2], p[3]);
}

static int open_kcore(const char *path, struct kimage **out, struct gerr *e)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t n;
	struct kimage *k;

	if (fd < 0)
		return gerr_set(e, "%s: %s", path, strerror(errno));
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(fd);
		return gerr_set(e, "out of memory");
	}
	k->kind = KIMAGE_KCORE;
	k->fd = fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n) != 0) {
		if (elf)
			elf_end(elf);
		kimage_close(k);
		return gerr_set(e, "%s: not an ELF core file", path);
	}
	{
		GElf_Ehdr eh;

		if (gelf_getehdr(elf, &eh) && eh.e_machine == EM_AARCH64)
			k->arch = ARCH_ARM64;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_filesz)
			if (add_seg(k, ph.p_vaddr, ph.p_filesz, ph.p_offset, "load")) {
				elf_end(elf);
				kimage_close(k);
				return gerr_set(e, "out of memory");
			}
	}
	elf_end(elf);
	if (!k->nsegs) {
		kimage_close(k);
		return gerr_set(e, "%s: no loadable segments (is it /proc/kcore?)", path);
	}
	*out = k;
	return 0;
}

int kimage_open(const char *path, struct kimage **out, struct gerr *e)
{
	uint8_t *buf = NULL, *elf = NULL;
	size_t len = 0, elflen = 0;
	int rc;

	/* kcore reports a huge size and must not be slurped. */
	if (strstr(path, "kcore"))
		return open_kcore(path, out, e);
	if (read_file(path, &buf, &len, e))
		return -1;
	if (is_bzimage(buf, len)) {
		rc = bzimage_payload(buf, len, &elf, &elflen, e);
		free(buf);
		if (rc)
			return -1;
		if (kimage_open_elf_buffer(elf, elflen, out, e))
			return -1;
		(*out)->kind = KIMAGE_BZIMAGE;
		return 0;
	}
	if (is_arm64_image(buf, len)) {
		/* flags bit 0: the kernel's endianness (booting.rst) */
		if (buf[0x30] & 1) {
			free(buf);
			return gerr_set(e, "%s: a big-endian arm64 Image; gilk reads little-endian ones", path);
		}
		/* no addresses until kimage_place() */
		*out = buffer_image(buf, len, KIMAGE_ARM64, e);
		return *out ? 0 : -1;
	}
	if (len >= 18 && !memcmp(buf, ELFMAG, SELFMAG) && buf[16] == ET_CORE) {
		free(buf);
		return open_kcore(path, out, e);
	}
	if (kimage_open_elf_buffer(buf, len, out, e)) {
		char m[sizeof(e->msg)];

		if (e) {
			snprintf(m, sizeof(m), "%s", e->msg);
			gerr_set(e, "%s: %s (expected a vmlinux, a bzImage, an arm64 Image or /proc/kcore)", path, m);
		}
		return -1;
	}
	return 0;
}

void kimage_close(struct kimage *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k->buf);
	for (size_t i = 0; i < k->nsegs; i++)
		free(k->segs[i].data);
	free(k->segs);
	free(k);
}

enum kimage_kind kimage_kind(const struct kimage *k)
{
	return k->kind;
}

enum arch kimage_arch(const struct kimage *k)
{
	return k->arch;
}

int kimage_place(struct kimage *k, uint64_t base, struct gerr *e)
{
	if (k->kind != KIMAGE_ARM64 || k->nsegs)
		return gerr_set(e, "only an arm64 Image is placed, and once");
	if (add_seg(k, base, k->len, 0, "Image"))
		return gerr_set(e, "out of memory");
	return 0;
}

static const struct kseg *find_seg(const struct kimage *k, uint64_t addr,
				   size_t len)
{
	for (size_t i = 0; i < k->nsegs; i++) {
		const struct kseg *s = &k->segs[i];

		if (addr >= s->addr && addr - s->addr <= s->size &&
		    len <= s->size - (addr - s->addr))
			return s;
	}
	return NULL;
}

const uint8_t *kimage_ptr(const struct kimage *k, uint64_t addr, size_t len)
{
	const struct kseg *s;

	if (k->kind == KIMAGE_KCORE)
		return NULL;
	s = find_seg(k, addr, len);
	return s ? seg_bytes(k, s) + (addr - s->addr) : NULL;
}

int kimage_read(struct kimage *k, uint64_t addr, void *buf, size_t len,
		struct gerr *e)
{
	const struct kseg *s = find_seg(k, addr, len);
	ssize_t r;

	if (!s)
		return gerr_set(e, "no image bytes at 0x%llx..0x%llx",
				(unsigned long long)addr,
				(unsigned long long)(addr + len));
	if (k->kind != KIMAGE_KCORE) {
		memcpy(buf, seg_bytes(k, s) + (addr - s->addr), len);
		return 0;
	}
	do	/* a signal (Ctrl-C) interrupts nothing here: read on */
		r = pread(k->fd, buf, len, (off_t)(s->off + (addr - s->addr)));
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)len)
		return gerr_set(e, "kcore read at 0x%llx failed: %s",
				(unsigned long long)addr,
				r < 0 ? strerror(errno) : "short read");
	return 0;
}

int kimage_section(const struct kimage *k, const char *name, uint64_t *addr,
		   uint64_t *size)
{
	if (k->kind == KIMAGE_KCORE)
		return -1;
	for (size_t i = 0; i < k->nsegs; i++)
		if (!strcmp(k->segs[i].name, name)) {
			*addr = k->segs[i].addr;
			*size = k->segs[i].size;
			return 0;
		}
	return -1;
}

int kimage_elf_bytes(const struct kimage *k, const uint8_t **buf, size_t *len)
{
	/* (a snapshot holds ranges, not an ELF file) */
	if (k->kind == KIMAGE_KCORE || k->kind == KIMAGE_ARM64 || !k->buf)
		return -1;
	*buf = k->buf;
	*len = k->len;
	return 0;
}

int kimage_new_snapshot(struct kimage **out, struct gerr *e)
{
	struct kimage *k = calloc(1, sizeof(*k));

	if (!k)
		return gerr_set(e, "out of memory");
	k->kind = KIMAGE_ELF;
	k->fd = -1;
	*out = k;
	return 0;
}

int kimage_copy_range(struct kimage *k, struct kimage *src, const char *name,
		      uint64_t addr, uint64_t len, struct gerr *e)
{
	const struct kseg *have = find_seg(k, addr, len);
	uint8_t *d;

	/* Already held: read it again in place (it may have changed). */
	if (have && have->addr == addr && have->size == len)
		return kimage_read(src, addr, seg_bytes(k, have), len, e);
	d = malloc(len ? len : 1);
	if (!d)
		return gerr_set(e, "out of memory");
	if (kimage_read(src, addr, d, len, e)) {
		free(d);
		return -1;
	}
	if (add_seg(k, addr, len, 0, name)) {
		free(d);
		return gerr_set(e, "out of memory");
	}
	k->segs[k->nsegs - 1].data = d;
	return 0;
}

int kimage_overlay(struct kimage *k, uint64_t addr, const void *bytes,
		   size_t len)
{
	const struct kseg *s = find_seg(k, addr, len);

	if (!s || k->kind == KIMAGE_KCORE)
		return -1;
	memcpy(seg_bytes(k, s) + (addr - s->addr), bytes, len);
	return 0;
}
