/* The kernel's C types from its BTF (see ktypes.h). */
#include "ktypes.h"

#include <bpf/btf.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "editdist.h"

struct ktypes {
	struct btf *btf;
};

int ktypes_open_file(const char *path, struct ktypes **out, struct gerr *e)
{
	struct ktypes *t = calloc(1, sizeof(*t));

	if (!t)
		return gerr_setc(e, ENOMEM, "out of memory");
	t->btf = btf__parse_raw(path);
	if (!t->btf) {
		int err = errno;

		free(t);
		return gerr_setc(e, err ? err : EINVAL, "%s: cannot be read as BTF (%s)", path,
				 strerror(err ? err : EINVAL));
	}
	*out = t;
	return 0;
}

int ktypes_open_image(struct kimage *img, struct ktypes **out, struct gerr *e)
{
	uint64_t addr, size;
	const uint8_t *p;
	struct ktypes *t;

	if (kimage_section(img, ".BTF", &addr, &size) || !(p = kimage_ptr(img, addr, size)))
		return gerr_set(e, "the kernel image has no .BTF section (a kernel built without CONFIG_DEBUG_INFO_BTF)");
	t = calloc(1, sizeof(*t));
	if (!t)
		return gerr_setc(e, ENOMEM, "out of memory");
	t->btf = btf__new(p, (uint32_t)size);
	if (!t->btf) {
		free(t);
		return gerr_set(e, "the kernel image's .BTF section cannot be read as BTF");
	}
	*out = t;
	return 0;
}

void ktypes_close(struct ktypes *t)
{
	if (!t)
		return;
	btf__free(t->btf);
	free(t);
}

/* C's spellings of the integer types, and the names DWARF (so BTF) gives them. */
static const char *const c_names[][2] = {
	{ "unsigned long", "long unsigned int" }, { "unsigned long int", "long unsigned int" },
	{ "long", "long int" }, { "signed long", "long int" },
	{ "unsigned long long", "long long unsigned int" },
	{ "long long", "long long int" }, { "unsigned", "unsigned int" },
	{ "unsigned short", "short unsigned int" }, { "short", "short int" },
	{ "signed char", "signed char" }, { "signed", "int" },
};

static int32_t find_named(const struct btf *btf, const char *name)
{
	static const uint32_t kinds[] = { BTF_KIND_TYPEDEF, BTF_KIND_INT, BTF_KIND_FLOAT,
					   BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_ENUM };
	int32_t id;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((id = btf__find_by_name_kind(btf, name, kinds[i])) > 0)
			return id;
	for (size_t i = 0; i < sizeof(c_names) / sizeof(c_names[0]); i++)
		if (!strcmp(name, c_names[i][0]))
			return btf__find_by_name_kind(btf, c_names[i][1], BTF_KIND_INT);
	return -1;
}

/* "did you mean": named types closest to base ("struct fiel": struct
 * file), of its kind when it names one. */
static void near_types(const struct ktypes *t, const char *base, char *buf, size_t len)
{
	const char *want = base, *prefix = "";
	size_t best = 3, used = 0, shown = 0;
	uint32_t n = btf__type_cnt(t->btf);
	int kind = -1;

	if (!strncmp(base, "struct ", 7))
		want = base + 7, prefix = "struct ", kind = BTF_KIND_STRUCT;
	else if (!strncmp(base, "union ", 6))
		want = base + 6, prefix = "union ", kind = BTF_KIND_UNION;
	else if (!strncmp(base, "enum ", 5))
		want = base + 5, prefix = "enum ", kind = BTF_KIND_ENUM;
	buf[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t id = 1; id < n && used < len && shown < 6; id++) {
			const struct btf_type *b = btf__type_by_id(t->btf, id);
			const char *name = btf__name_by_offset(t->btf, b->name_off);
			size_t d;

			if (!name || !name[0] || (kind >= 0 ? btf_kind(b) != kind :
			    !(btf_is_typedef(b) || btf_is_int(b))))
				continue;
			d = edit_distance(want, name, best);
			if (!pass && d < best)
				best = d;
			if (pass && d == best) {
				used += (size_t)snprintf(buf + used, len - used, "%s%s%s",
							 shown ? ", " : "", prefix, name);
				shown++;
			}
		}
		if (!pass && best == 3)
			break;	/* nothing near */
	}
}

int ktypes_parse(const struct ktypes *t, const char *text, struct ktype *out,
		 struct gerr *e)
{
	char buf[256], base[256] = "", *p, *end, *w;
	size_t n;
	int32_t id = -1;

	memset(out, 0, sizeof(*out));
	snprintf(buf, sizeof(buf), "%s", text);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	if (n && buf[n - 1] == ']') {
		p = strrchr(buf, '[');
		if (!p)
			return gerr_set(e, "'%s' is not a type", text);
		out->array = true;
		out->nelem = (uint32_t)strtoul(p + 1, &end, 10);
		if (*end != ']')
			return gerr_set(e, "'%s': an array's bound is a number", text);
		*p = 0;
		n = strlen(buf);
	}
	while (n && (buf[n - 1] == '*' || isspace((unsigned char)buf[n - 1]))) {
		out->ptr += buf[n - 1] == '*';
		buf[--n] = 0;
	}
	/* the words, qualifiers left out */
	for (w = strtok_r(buf, " \t", &p); w; w = strtok_r(NULL, " \t", &p)) {
		if (!strcmp(w, "const") || !strcmp(w, "volatile") || !strcmp(w, "restrict"))
			continue;
		snprintf(base + strlen(base), sizeof(base) - strlen(base), "%s%s", base[0] ? " " : "", w);
	}
	if (!base[0])
		return gerr_set(e, "'%s' is not a type", text);
	if (!strcmp(base, "void")) {
		out->id = 0;
		return 0;
	}
	if (!strncmp(base, "struct ", 7))
		id = btf__find_by_name_kind(t->btf, base + 7, BTF_KIND_STRUCT);
	else if (!strncmp(base, "union ", 6))
		id = btf__find_by_name_kind(t->btf, base + 6, BTF_KIND_UNION);
	else if (!strncmp(base, "enum ", 5) &&
		 (id = btf__find_by_name_kind(t->btf, base + 5, BTF_KIND_ENUM)) <= 0)
		id = btf__find_by_name_kind(t->btf, base + 5, BTF_KIND_ENUM64);
	else if (strncmp(base, "enum ", 5))
		id = find_named(t->btf, base);
	if (id <= 0) {
		char near[300];

		near_types(t, base, near, sizeof(near));
		if (near[0])
			return gerr_setc(e, ENOENT, "no type '%s' in the kernel's BTF; did you mean %s?", base, near);
		return gerr_setc(e, ENOENT, "no type '%s' in the kernel's BTF", base);
	}
	out->id = (uint32_t)id;
	return 0;
}

/* The base looked through typedefs and qualifiers; a pointer or an array
 * of BTF's own is taken into the ktype's levels. */
struct ktype ktypes_resolve(const struct ktypes *t, const struct ktype *ty)
{
	struct ktype r = *ty;

	for (int guard = 0; guard < 64 && r.id; guard++) {
		const struct btf_type *b = btf__type_by_id(t->btf, r.id);

		if (!b)
			break;
		if (btf_is_typedef(b) || btf_is_mod(b) || btf_is_type_tag(b)) {
			r.id = b->type;
		} else if (btf_is_ptr(b) && !r.array) {
			r.id = b->type;
			r.ptr++;
		} else if (btf_is_array(b) && !r.array && !r.ptr) {
			r.array = true;
			r.nelem = btf_array(b)->nelems;
			r.id = btf_array(b)->type;
		} else {
			break;
		}
	}
	return r;
}

int64_t ktypes_size(const struct ktypes *t, const struct ktype *ty)
{
	struct ktype el = *ty;
	int64_t s;

	if (ty->array) {
		el.array = false;
		s = ktypes_size(t, &el);
		return s < 0 ? -1 : s * (int64_t)ty->nelem;
	}
	if (ty->ptr)
		return 8;
	if (!ty->id)
		return -1;
	s = btf__resolve_size(t->btf, ty->id);
	return s < 0 ? -1 : s;
}

static const struct btf_type *base_of(const struct ktypes *t, const struct ktype *r)
{
	return r->ptr || r->array || !r->id ? NULL : btf__type_by_id(t->btf, r->id);
}

bool ktypes_is_struct(const struct ktypes *t, const struct ktype *ty)
{
	struct ktype r = ktypes_resolve(t, ty);
	const struct btf_type *b = base_of(t, &r);

	return b && btf_is_composite(b);
}

bool ktypes_is_integer(const struct ktypes *t, const struct ktype *ty)
{
	struct ktype r = ktypes_resolve(t, ty);
	const struct btf_type *b = base_of(t, &r);

	return b && (btf_is_int(b) || btf_is_any_enum(b));
}

bool ktypes_is_signed(const struct ktypes *t, const struct ktype *ty)
{
	struct ktype r = ktypes_resolve(t, ty);
	const struct btf_type *b = base_of(t, &r);

	return b && btf_is_int(b) && (btf_int_encoding(b) & BTF_INT_SIGNED);
}

struct ktype ktypes_element(const struct ktypes *t, const struct ktype *ty)
{
	struct ktype r = ktypes_resolve(t, ty);

	if (r.array) {
		r.array = false;
		r.nelem = 0;
	} else if (r.ptr) {
		r.ptr--;
	}
	return r;
}

static int member_in(const struct ktypes *t, uint32_t id, const char *name, uint64_t bits,
		     struct kmember *m)
{
	const struct btf_type *b = btf__type_by_id(t->btf, id);
	const struct btf_member *mem;

	if (!b || !btf_is_composite(b))
		return -1;
	mem = btf_members(b);
	for (uint16_t i = 0; i < btf_vlen(b); i++, mem++) {
		const char *n = btf__name_by_offset(t->btf, mem->name_off);
		uint64_t at = bits + btf_member_bit_offset(b, i);

		if (n && n[0] && !strcmp(n, name)) {
			memset(m, 0, sizeof(*m));
			m->type.id = mem->type;
			m->offset = at / 8;
			m->bits = (uint8_t)btf_member_bitfield_size(b, i);
			m->bit = m->bits ? (uint8_t)(at % 8) : 0;
			return 0;
		}
		if (!n || !n[0]) {	/* an anonymous struct or union: its members are ours */
			struct ktype inner = { mem->type, 0, false, 0 };

			inner = ktypes_resolve(t, &inner);
			if (!inner.ptr && !inner.array && !member_in(t, inner.id, name, at, m))
				return 0;
		}
	}
	return -1;
}

int ktypes_member(const struct ktypes *t, const struct ktype *ty, const char *name,
		  struct kmember *m, struct gerr *e)
{
	struct ktype r = ktypes_resolve(t, ty);
	char tn[256];

	ktypes_name(t, ty, tn, sizeof(tn));
	if (!base_of(t, &r) || !btf_is_composite(base_of(t, &r)))
		return gerr_set(e, "%s is not a struct or union: it has no member '%s'", tn, name);
	if (member_in(t, r.id, name, 0, m))
		return gerr_setc(e, ENOENT, "%s has no member named '%s'", tn, name);
	return 0;
}

int ktypes_return(const struct ktypes *t, const char *func, struct ktype *ret)
{
	int32_t id = btf__find_by_name_kind(t->btf, func, BTF_KIND_FUNC);
	const struct btf_type *fn, *proto;

	if (id <= 0 || !(fn = btf__type_by_id(t->btf, (uint32_t)id)) ||
	    !(proto = btf__type_by_id(t->btf, fn->type)) || !btf_is_func_proto(proto))
		return -1;
	memset(ret, 0, sizeof(*ret));
	ret->id = proto->type;
	return 0;
}

int ktypes_params(const struct ktypes *t, const char *func, char names[6][64],
		  struct ktype *types)
{
	int32_t id = btf__find_by_name_kind(t->btf, func, BTF_KIND_FUNC);
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	int n = 0;

	if (id <= 0 || !(fn = btf__type_by_id(t->btf, (uint32_t)id)) ||
	    !(proto = btf__type_by_id(t->btf, fn->type)) || !btf_is_func_proto(proto))
		return -1;
	p = btf_params(proto);
	for (uint16_t i = 0; i < btf_vlen(proto) && n < 6; i++, p++) {
		struct ktype ty = { p->type, 0, false, 0 };
		struct ktype r = ktypes_resolve(t, &ty);
		const struct btf_type *b = base_of(t, &r);
		const char *name = btf__name_by_offset(t->btf, p->name_off);

		if (!p->type)	/* "..." */
			break;
		if (!r.ptr && (!b || !(btf_is_int(b) || btf_is_any_enum(b)) || b->size > 8))
			break;	/* by value, not in one register: the rest move */
		snprintf(names[n], 64, "%s", name ? name : "");
		if (types)
			types[n] = ty;
		n++;
	}
	return n;
}

static void base_name(const struct ktypes *t, uint32_t id, char *buf, size_t len)
{
	const struct btf_type *b = id ? btf__type_by_id(t->btf, id) : NULL;
	const char *n;

	if (!b) {
		snprintf(buf, len, "void");
		return;
	}
	n = btf__name_by_offset(t->btf, b->name_off);
	if (btf_is_mod(b) || btf_is_type_tag(b)) {
		char inner[200];

		base_name(t, b->type, inner, sizeof(inner));
		snprintf(buf, len, "%s%s", btf_is_const(b) ? "const " : btf_is_volatile(b) ? "volatile " : "",
			 inner);
	} else if (btf_is_ptr(b)) {
		char inner[200];

		base_name(t, b->type, inner, sizeof(inner));
		snprintf(buf, len, "%s%s*", inner, inner[strlen(inner) - 1] == '*' ? "" : " ");
	} else if (btf_is_struct(b) || btf_is_union(b) || btf_is_any_enum(b)) {
		snprintf(buf, len, "%s %s", btf_is_struct(b) ? "struct" : btf_is_union(b) ? "union" : "enum",
			 n && n[0] ? n : "{...}");
	} else if (btf_is_array(b)) {
		char inner[200];

		base_name(t, btf_array(b)->type, inner, sizeof(inner));
		snprintf(buf, len, "%s [%u]", inner, btf_array(b)->nelems);
	} else if (btf_is_func_proto(b)) {
		snprintf(buf, len, "function");
	} else {
		snprintf(buf, len, "%s", n && n[0] ? n : "?");
	}
}

void ktypes_name(const struct ktypes *t, const struct ktype *ty, char *buf, size_t len)
{
	char base[256];
	size_t used;

	base_name(t, ty->id, base, sizeof(base));
	used = (size_t)snprintf(buf, len, "%s", base);
	for (uint8_t i = 0; i < ty->ptr && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s*",
					 i || base[strlen(base) - 1] == '*' ? "" : " ");
	if (ty->array && used < len)
		snprintf(buf + used, len - used, " [%u]", ty->nelem);
}

static void vprint(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
}

void ktypes_print_definition(const struct ktypes *t, const struct ktype *ty, FILE *out)
{
	struct ktype r = ktypes_resolve(t, ty);
	const struct btf_type *b = base_of(t, &r);
	struct btf_dump *d;
	char name[256];

	ktypes_name(t, &r, name, sizeof(name));
	if (!b || !(btf_is_composite(b) || btf_is_any_enum(b))) {
		fprintf(out, "type = %s\n", name);
		return;
	}
	fprintf(out, "type = %s {\n", name);
	if (btf_is_any_enum(b)) {
		for (uint16_t i = 0; i < btf_vlen(b); i++) {
			const char *n;
			int64_t v;

			if (btf_is_enum(b)) {
				n = btf__name_by_offset(t->btf, btf_enum(b)[i].name_off);
				v = btf_enum(b)[i].val;
			} else {
				n = btf__name_by_offset(t->btf, btf_enum64(b)[i].name_off);
				v = (int64_t)btf_enum64_value(&btf_enum64(b)[i]);
			}
			fprintf(out, "    %s = %" PRId64 ",\n", n, v);
		}
		fprintf(out, "}\n");
		return;
	}
	d = btf_dump__new(t->btf, vprint, out, NULL);
	for (uint16_t i = 0; d && i < btf_vlen(b); i++) {
		const struct btf_member *m = &btf_members(b)[i];
		const char *n = btf__name_by_offset(t->btf, m->name_off);
		uint32_t off = btf_member_bit_offset(b, i), bits = btf_member_bitfield_size(b, i);
		LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = n ? n : "", .indent_level = 1);
		int64_t size = btf__resolve_size(t->btf, m->type);

		fprintf(out, "    /* %5u", off / 8);
		if (bits)
			fprintf(out, ":%2u %2u bit%s */ ", off % 8, bits, bits == 1 ? " " : "s");
		else
			fprintf(out, " %5" PRId64 " */ ", size < 0 ? (int64_t)0 : size);
		btf_dump__emit_type_decl(d, m->type, &o);
		if (bits)
			fprintf(out, ": %u", bits);
		fprintf(out, ";\n");
	}
	btf_dump__free(d);
	fprintf(out, "} /* size: %" PRId64 " */\n", (int64_t)btf__resolve_size(t->btf, r.id));
}

static uint64_t load(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n < 8 ? n : 8);	/* little-endian */
	return v;
}

static void print_chars(const uint8_t *p, size_t n, FILE *out)
{
	size_t len = 0;

	while (len < n && p[len])
		len++;
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(out, "\\%c", p[i]);
		else if (isprint(p[i]))
			fputc(p[i], out);
		else
			fprintf(out, "\\%03o", p[i]);
	}
	fputc('"', out);
}

struct printer {
	const struct ktypes *t;
	bool hex;
	void (*name_addr)(void *ctx, uint64_t addr, char *buf, size_t len);
	void *ctx;
	FILE *out;
};

static void print_at(const struct printer *pr, const struct ktype *ty, const uint8_t *p,
		     size_t size, int indent);

/* A struct's or union's members, one a line, as gdb's "set print pretty". */
static void print_members(const struct printer *pr, const struct btf_type *b, const uint8_t *p,
			  size_t size, int indent)
{
	const struct ktypes *t = pr->t;

	fprintf(pr->out, "{\n");
	for (uint16_t i = 0; i < btf_vlen(b); i++) {
		const struct btf_member *m = &btf_members(b)[i];
		const char *n = btf__name_by_offset(t->btf, m->name_off);
		uint32_t off = btf_member_bit_offset(b, i), bits = btf_member_bitfield_size(b, i);
		struct ktype mt = { m->type, 0, false, 0 };
		int64_t ms = ktypes_size(t, &mt);

		fprintf(pr->out, "%*s", 2 * (indent + 1), "");
		if (n && n[0])
			fprintf(pr->out, "%s = ", n);
		if (bits) {
			uint64_t w = 0;
			size_t at = off / 8, nb = (off % 8 + bits + 7) / 8;

			if (at + nb <= size)
				memcpy(&w, p + at, nb < 8 ? nb : 8);
			w = (w >> (off % 8)) & (bits >= 64 ? ~0ull : (1ull << bits) - 1);
			fprintf(pr->out, pr->hex ? "0x%" PRIx64 : "%" PRIu64, w);
		} else if (ms >= 0 && off / 8 + (uint64_t)ms <= size) {
			print_at(pr, &mt, p + off / 8, (size_t)ms, indent + 1);
		} else {
			fprintf(pr->out, "<outside the value>");
		}
		fprintf(pr->out, ",\n");
	}
	fprintf(pr->out, "%*s}", 2 * indent, "");
}

void ktypes_print_value(const struct ktypes *t, const struct ktype *ty, const void *data,
			size_t size, bool hex,
			void (*name_addr)(void *ctx, uint64_t addr, char *buf, size_t len),
			void *ctx, FILE *out)
{
	struct printer pr = { t, hex, name_addr, ctx, out };

	print_at(&pr, ty, data, size, 0);
}

static void print_at(const struct printer *pr, const struct ktype *ty, const uint8_t *p,
		     size_t size, int indent)
{
	const struct ktypes *t = pr->t;
	bool hex = pr->hex;
	FILE *out = pr->out;
	struct ktype r = ktypes_resolve(t, ty);
	const struct btf_type *b = base_of(t, &r);
	char name[256];

	if (r.ptr) {
		uint64_t v = load(p, 8);

		ktypes_name(t, &r, name, sizeof(name));
		if (pr->name_addr && v) {
			char where[320];

			pr->name_addr(pr->ctx, v, where, sizeof(where));
			fprintf(out, "(%s) %s", name, where);
		} else {
			fprintf(out, "(%s) 0x%" PRIx64, name, v);
		}
		return;
	}
	if (r.array) {
		struct ktype el = ktypes_element(t, &r);
		int64_t es = ktypes_size(t, &el);
		const struct btf_type *eb = base_of(t, &el);

		if (es == 1 && eb && btf_is_int(eb)) {
			print_chars(p, size, out);
			return;
		}
		fputc('{', out);
		for (size_t i = 0, shown = 0; es > 0 && (i + 1) * (size_t)es <= size; shown++) {
			size_t same = 1;

			/* a run of equal elements once, as gdb's <repeats N times> */
			while ((i + same + 1) * (size_t)es <= size &&
			       !memcmp(p + i * (size_t)es, p + (i + same) * (size_t)es, (size_t)es))
				same++;
			if (shown == 100) {
				fprintf(out, ", ...");
				break;
			}
			fprintf(out, "%s", shown ? ", " : "");
			print_at(pr, &el, p + i * (size_t)es, (size_t)es, indent);
			if (same >= 10)
				fprintf(out, " <repeats %zu times>", same);
			else
				same = 1;
			i += same;
		}
		fputc('}', out);
		return;
	}
	if (b && btf_is_int(b)) {
		uint8_t enc = btf_int_encoding(b);
		size_t n = b->size;
		uint64_t v = load(p, n);

		if (enc & BTF_INT_BOOL) {
			fprintf(out, "%s", v ? "true" : "false");
		} else if (hex) {
			fprintf(out, "0x%" PRIx64, v);
		} else if (enc & BTF_INT_SIGNED) {
			int64_t s = n >= 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * n)) >> (64 - 8 * n);

			fprintf(out, "%" PRId64, s);
		} else {
			fprintf(out, "%" PRIu64, v);
		}
		if ((enc & BTF_INT_CHAR || n == 1) && !hex && isprint((int)(v & 0xff)))
			fprintf(out, " '%c'", (int)(v & 0xff));
		return;
	}
	if (b && btf_is_any_enum(b)) {
		uint64_t v = load(p, b->size);

		for (uint16_t i = 0; i < btf_vlen(b); i++) {
			uint64_t ev = btf_is_enum(b) ? (uint64_t)(uint32_t)btf_enum(b)[i].val :
				      btf_enum64_value(&btf_enum64(b)[i]);

			if (ev == (b->size < 8 ? v & ((1ull << (8 * b->size)) - 1) : v)) {
				fprintf(out, "%s", btf__name_by_offset(t->btf, btf_is_enum(b) ?
						   btf_enum(b)[i].name_off : btf_enum64(b)[i].name_off));
				return;
			}
		}
		fprintf(out, "%" PRIu64, v);
		return;
	}
	if (b && btf_is_composite(b)) {
		print_members(pr, b, p, size, indent);
		return;
	}
	ktypes_name(t, &r, name, sizeof(name));
	fprintf(out, "(a value of type %s cannot be shown)", name);
}
