/*
 * image: kernel bytes by address. Four sources, one interface:
 *  - a vmlinux ELF file (section headers through libelf),
 *  - a bzImage, whose payload is found through the boot-protocol header and
 *    decompressed (xz, gzip or zstd) into the vmlinux ELF it carries,
 *  - an arm64 Image: raw bytes from _text on, placed at an address the
 *    symbols give (kimage_place()), with no sections,
 *  - /proc/kcore of the running kernel (read-only, live bytes).
 * Each says which instruction set it holds (an ELF's machine).
 */
#ifndef GILK_IMAGE_H
#define GILK_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "gerr.h"

struct kimage;

enum kimage_kind { KIMAGE_ELF, KIMAGE_BZIMAGE, KIMAGE_KCORE, KIMAGE_ARM64 };

/* Opens path as a bzImage when it carries the boot-protocol signature, as an
 * arm64 Image when it carries that one, as /proc/kcore when it is an ELF core
 * file, as a vmlinux ELF otherwise. */
int kimage_open(const char *path, struct kimage **out, struct gerr *e);
/* Opens an ELF held in memory; the image takes ownership of buf (malloc'd). */
int kimage_open_elf_buffer(uint8_t *buf, size_t len, struct kimage **out,
			   struct gerr *e);
void kimage_close(struct kimage *k);

enum kimage_kind kimage_kind(const struct kimage *k);
enum arch kimage_arch(const struct kimage *k);
/* Puts an arm64 Image's first byte (_text) at base: its bytes have
 * addresses from then on. */
int kimage_place(struct kimage *k, uint64_t base, struct gerr *e);

/* Copies len bytes at kernel address addr. -1 when any byte is not backed. */
int kimage_read(struct kimage *k, uint64_t addr, void *buf, size_t len,
		struct gerr *e);

/* A pointer to len contiguous bytes at addr for file-backed images (ELF and
 * bzImage); NULL for kcore or when the range is not backed. */
const uint8_t *kimage_ptr(const struct kimage *k, uint64_t addr, size_t len);

/* A section by name: address and size. -1 when absent or for kcore. */
int kimage_section(const struct kimage *k, const char *name, uint64_t *addr,
		   uint64_t *size);

/* The ELF bytes of a file-backed image (for a bzImage, the decompressed
 * vmlinux), so tools such as objdump can read the same bytes. */
int kimage_elf_bytes(const struct kimage *k, const uint8_t **buf, size_t *len);

/* A snapshot: an empty buffer-backed image to copy ranges into, so a live
 * kernel's bytes can be planned from while they change underneath. */
int kimage_new_snapshot(struct kimage **out, struct gerr *e);
/* Copies [addr, addr + len) from src into snapshot k as section name; a
 * range copied before is read again in place. */
int kimage_copy_range(struct kimage *k, struct kimage *src, const char *name,
		      uint64_t addr, uint64_t len, struct gerr *e);
/* Overwrites bytes of a snapshot (the original bytes under a splice). */
int kimage_overlay(struct kimage *k, uint64_t addr, const void *bytes,
		   size_t len);

/* Decompresses the payload of a bzImage held in memory. Exposed for tests. */
int bzimage_payload(const uint8_t *bz, size_t len, uint8_t **out,
		    size_t *outlen, struct gerr *e);

#endif
