/* Event payloads as fields (see payload.h). */
#include "events/payload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gilk_field_info *field_named(const struct payload_layouts *pl,
						 const char *name);
static bool payload_fetches_add_kept(struct payload_layouts *pl,
				     const struct payload_layouts *kept);

static const struct gilk_instrument_info *find(const struct payload_layouts *pl,
					       const char *name)
{
	for (size_t i = 0; i < pl->n; i++)
		if (!strcmp(pl->ins[i].name, name))
			return &pl->ins[i];
	return NULL;
}

/* gilk.ko's copy is trusted no further than its bounds and NULs. */
static bool usable(struct gilk_instrument_info *in)
{
	if (!in->nfields || in->nfields > GILK_FIELDS_MAX)
		return false;
	in->name[sizeof(in->name) - 1] = '\0';
	for (uint32_t k = 0; k < in->nfields; k++)
		in->fields[k].name[sizeof(in->fields[k].name) - 1] = '\0';
	return true;
}

static const struct payload_fetch *fetch_find(const struct payload_layouts *pl, uint32_t splice)
{
	for (size_t i = 0; i < pl->nfetch; i++)
		if (pl->fetch[i].splice == splice)
			return &pl->fetch[i];
	return NULL;
}

static bool fetch_add(struct payload_layouts *pl, uint32_t splice, const struct gilk_fetch *f)
{
	struct payload_fetch *more;

	if (!f->len || fetch_find(pl, splice))
		return true;
	more = realloc(pl->fetch, (pl->nfetch + 1) * sizeof(*more));
	if (!more)
		return false;
	pl->fetch = more;
	more[pl->nfetch].splice = splice;
	more[pl->nfetch].f = *f;
	/* gilk.ko's copy is trusted no further than its bounds and NULs */
	if (more[pl->nfetch].f.len > GILK_FETCH_MAX)
		more[pl->nfetch].f.len = GILK_FETCH_MAX;
	for (uint32_t i = 0; i < GILK_FETCH_MAX; i++) {
		struct gilk_fetch_value *v = &more[pl->nfetch].f.value[i];

		v->name[sizeof(v->name) - 1] = '\0';
		if (v->nsteps > GILK_FETCH_STEPS)
			v->nsteps = GILK_FETCH_STEPS;
	}
	more[pl->nfetch].f.text[sizeof(more[pl->nfetch].f.text) - 1] = '\0';
	pl->nfetch++;
	return true;
}

static bool payload_fetches_add_kept(struct payload_layouts *pl, const struct payload_layouts *kept)
{
	for (size_t i = 0; i < kept->nfetch; i++)
		if (!fetch_add(pl, kept->fetch[i].splice, &kept->fetch[i].f))
			return false;
	return true;
}

bool payload_fetches_add(struct payload_layouts *pl, const struct gilk_splice_info *in,
			 size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!fetch_add(pl, in[i].id, &in[i].fetch))
			return false;
	return true;
}

const struct gilk_fetch *payload_fetch_of(const struct payload_layouts *pl, uint32_t splice)
{
	const struct payload_fetch *f = fetch_find(pl, splice);

	return f ? &f->f : NULL;
}

size_t payload_fetch_decode(const struct gilk_fetch *f, const uint8_t *p,
			    struct payload_field *out)
{
	uint64_t faults;
	size_t at = 8;

	memcpy(&faults, p, 8);
	for (uint32_t i = 0; i < f->len; i++) {
		const struct gilk_fetch_value *v = &f->value[i];
		size_t len = gilk_fetch_value_len(v);
		uint64_t x;

		out[i] = (struct payload_field){ .name = v->name, .fault = (faults >> i) & 1 };
		if (v->show == GILK_FSHOW_STRING) {
			/* a string gilk.ko did not end is not shown */
			out[i].str = memchr(p + at, 0, len) ? (const char *)p + at : "";
			out[i].fault |= !memchr(p + at, 0, len);
		} else {
			memcpy(&x, p + at, 8);
			if (v->size && v->size < 8) {
				x &= (1ull << (8 * v->size)) - 1;
				if (v->show == GILK_FSHOW_SIGNED && (x >> (8 * v->size - 1)) & 1)
					x |= ~0ull << (8 * v->size);
			}
			out[i].value = x;
			out[i].hex = v->show == GILK_FSHOW_HEX;
			out[i].is_signed = v->show == GILK_FSHOW_SIGNED;
		}
		at += len;
	}
	return f->len;
}

int payload_layouts_read(struct payload_layouts *pl, struct live *lv,
			 const struct payload_layouts *kept, struct gerr *e)
{
	struct gilk_instrument_info *list;
	size_t n, have = 0, room;

	memset(pl, 0, sizeof(*pl));
	if (live_instruments(lv, &list, &n, e))
		return -1;
	room = n + (kept ? kept->n : 0);
	pl->ins = room ? calloc(room, sizeof(*pl->ins)) : NULL;
	if (room && !pl->ins) {
		free(list);
		return gerr_set(e, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		if (usable(&list[i]))
			pl->ins[have++] = list[i];
	pl->n = have;	/* find() looks among gilk.ko's own */
	for (size_t i = 0; kept && i < kept->n; i++)
		if (!find(pl, kept->ins[i].name))
			pl->ins[have++] = kept->ins[i];
	pl->n = have;
	free(list);
	if (kept && kept->nfetch && !payload_fetches_add_kept(pl, kept))
		return gerr_set(e, "out of memory");
	return 0;
}

bool payload_layouts_copy(struct payload_layouts *to, const struct payload_layouts *from)
{
	memset(to, 0, sizeof(*to));
	if (!payload_fetches_add_kept(to, from)) {
		payload_layouts_free(to);
		return false;
	}
	if (!from->n)
		return true;
	to->ins = malloc(from->n * sizeof(*to->ins));
	if (!to->ins) {
		payload_layouts_free(to);
		return false;
	}
	memcpy(to->ins, from->ins, from->n * sizeof(*to->ins));
	to->n = from->n;
	return true;
}

void payload_layouts_free(struct payload_layouts *pl)
{
	free(pl->ins);
	free(pl->fetch);
	memset(pl, 0, sizeof(*pl));
}

void payload_fields_list(const struct payload_layouts *pl, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t l = 0; l < pl->n && used < len; l++) {
		used += (size_t)snprintf(buf + used, len - used, "%s%s: ", l ? "; " : "",
					 pl->ins[l].name);
		for (uint32_t i = 0; i < pl->ins[l].nfields && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
						 pl->ins[l].fields[i].name);
	}
	for (size_t k = 0; k < pl->nfetch && used < len; k++)
		for (uint32_t i = 0; i < pl->fetch[k].f.len && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", !k && !i ?
						 "; fetched: " : " ", pl->fetch[k].f.value[i].name);
}

/* The first fetched value called name. */
static const struct gilk_fetch_value *fetched_named(const struct payload_layouts *pl,
						    const char *name)
{
	for (size_t k = 0; k < pl->nfetch; k++)
		for (uint32_t i = 0; i < pl->fetch[k].f.len; i++)
			if (!strcmp(pl->fetch[k].f.value[i].name, name))
				return &pl->fetch[k].f.value[i];
	return NULL;
}

bool payload_fetched(const struct payload_layouts *pl, const char *name)
{
	return fetched_named(pl, name) != NULL;
}

bool payload_field_string(const struct payload_layouts *pl, const char *name)
{
	const struct gilk_fetch_value *v = fetched_named(pl, name);

	return v && v->show == GILK_FSHOW_STRING && !field_named(pl, name);
}

static const struct gilk_field_info *field_named(const struct payload_layouts *pl,
						 const char *name)
{
	for (size_t l = 0; l < pl->n; l++)
		for (uint32_t i = 0; i < pl->ins[l].nfields; i++)
			if (!strcmp(pl->ins[l].fields[i].name, name))
				return &pl->ins[l].fields[i];
	return NULL;
}

bool payload_field_known(const struct payload_layouts *pl, const char *name)
{
	return field_named(pl, name) || fetched_named(pl, name);
}

bool payload_field_hex(const struct payload_layouts *pl, const char *name)
{
	const struct gilk_field_info *f = field_named(pl, name);
	const struct gilk_fetch_value *v = f ? NULL : fetched_named(pl, name);

	return f ? (f->flags & GILK_FIELD_HEX) : v && v->show == GILK_FSHOW_HEX;
}

/* How many fields a payload of n words must hold: up to its first optional one. */
static size_t required(const struct gilk_instrument_info *in)
{
	size_t k = 0;

	while (k < in->nfields && !(in->fields[k].flags & GILK_FIELD_OPTIONAL))
		k++;
	return k;
}

size_t payload_decode(const struct payload_layouts *pl, const char *ins, const uint8_t *p,
		      size_t len, struct payload_field *out)
{
	const struct gilk_instrument_info *in = find(pl, ins);
	size_t n = len / 8;

	if (!in || len % 8 || n < required(in) || n > in->nfields)
		return 0;
	for (size_t i = 0; i < n; i++) {
		out[i] = (struct payload_field){ .name = in->fields[i].name,
						 .hex = in->fields[i].flags & GILK_FIELD_HEX };
		memcpy(&out[i].value, p + 8 * i, 8);
	}
	return n;
}
