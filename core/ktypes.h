/*
 * ktypes: the kernel's C types, from its BTF (libbpf): the running kernel's
 * /sys/kernel/btf/vmlinux, or an image's .BTF section offline. A type here
 * is a BTF type with pointer levels and an array bound on top, since BTF
 * holds only the pointer and array types the kernel's own code uses, and a
 * cast or a variable may need others ("struct file *" always exists,
 * "struct file **" may not).
 */
#ifndef GILK_KTYPES_H
#define GILK_KTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gerr.h"
#include "image.h"

struct ktypes;

struct ktype {
	uint32_t id;            /* the BTF type under the pointers (0: void) */
	uint8_t ptr;            /* levels of pointer on top of it */
	bool array;             /* an array of nelem of (id, ptr) */
	uint32_t nelem;         /* 0: its size left open (char linux_banner[]) */
};

/* A struct or union member, as ktypes_member() finds it. */
struct kmember {
	struct ktype type;
	uint64_t offset;        /* bytes from the start */
	uint8_t bit, bits;      /* a bitfield: its first bit and width (bits 0: none) */
};

int ktypes_open_file(const char *path, struct ktypes **out, struct gerr *e);
int ktypes_open_image(struct kimage *img, struct ktypes **out, struct gerr *e);
void ktypes_close(struct ktypes *t);

/* A type written as C writes it: "struct file", "unsigned long", "u64",
 * "struct list_head *", "char [16]". Qualifiers (const, volatile) are
 * skipped; "unsigned long" finds BTF's "long unsigned int". */
int ktypes_parse(const struct ktypes *t, const char *text, struct ktype *out,
		 struct gerr *e);
/* Its size in bytes (a pointer: 8); -1 when it has none (void, a function). */
int64_t ktypes_size(const struct ktypes *t, const struct ktype *ty);
/* Typedefs and qualifiers of the base looked through. */
struct ktype ktypes_resolve(const struct ktypes *t, const struct ktype *ty);
bool ktypes_is_struct(const struct ktypes *t, const struct ktype *ty);
bool ktypes_is_integer(const struct ktypes *t, const struct ktype *ty);
bool ktypes_is_signed(const struct ktypes *t, const struct ktype *ty);
/* The element of an array or the target of a pointer. */
struct ktype ktypes_element(const struct ktypes *t, const struct ktype *ty);
/* A member of a struct or union by name, in anonymous members too. */
int ktypes_member(const struct ktypes *t, const struct ktype *ty, const char *name,
		  struct kmember *m, struct gerr *e);

/* A function's parameters, from its BTF prototype, as its first six
 * argument registers hold them: names[i] the i-th's name (up to six), and
 * types[i] its type (may be NULL). A parameter not wholly in one register
 * (a struct passed by value) ends the list, since the ones after it are
 * not where their number says. Returns how many, or -1 when BTF has no
 * such function. */
int ktypes_params(const struct ktypes *t, const char *func, char names[6][64],
		  struct ktype *types);
/* A function's return type from its BTF prototype: 0, or -1 when BTF has
 * no such function. void is id 0 with no pointer. */
int ktypes_return(const struct ktypes *t, const char *func, struct ktype *ret);
/* "struct file *" into buf. */
void ktypes_name(const struct ktypes *t, const struct ktype *ty, char *buf, size_t len);
/* ptype: a struct, union or enum with its members, one a line, each with
 * its offset (and a bitfield's bits) as pahole shows them; any other type
 * as whatis names it. */
void ktypes_print_definition(const struct ktypes *t, const struct ktype *ty, FILE *out);
/* A value of type ty held in data (size bytes: ktypes_size()): integers in
 * decimal (hex: hex), enums by name, pointers in hex (a callback names
 * kernel addresses), char arrays as strings, structs, unions and arrays as
 * C initializers, one member a line. */
void ktypes_print_value(const struct ktypes *t, const struct ktype *ty, const void *data,
			size_t size, bool hex,
			void (*name_addr)(void *ctx, uint64_t addr, char *buf, size_t len),
			void *ctx, FILE *out);

#endif
