/* Event payloads as fields (see payload.h). */
#include "payload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return 0;
}

bool payload_layouts_copy(struct payload_layouts *to, const struct payload_layouts *from)
{
	memset(to, 0, sizeof(*to));
	if (!from->n)
		return true;
	to->ins = malloc(from->n * sizeof(*to->ins));
	if (!to->ins)
		return false;
	memcpy(to->ins, from->ins, from->n * sizeof(*to->ins));
	to->n = from->n;
	return true;
}

void payload_layouts_free(struct payload_layouts *pl)
{
	free(pl->ins);
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
	return field_named(pl, name) != NULL;
}

bool payload_field_hex(const struct payload_layouts *pl, const char *name)
{
	const struct gilk_field_info *f = field_named(pl, name);

	return f && (f->flags & GILK_FIELD_HEX);
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
		out[i].name = in->fields[i].name;
		memcpy(&out[i].value, p + 8 * i, 8);
		out[i].hex = in->fields[i].flags & GILK_FIELD_HEX;
	}
	return n;
}
