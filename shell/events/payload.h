/*
 * payload: an instrument's event payload as named fields, by the layout the
 * instrument itself publishes (its fields in struct gilk_instrument_info,
 * read from gilk.ko), so that every output (events, dump as text, CSV, JSON
 * or a Chrome trace) names the same fields, and an instrument built outside
 * this tree needs no change here. A payload its layout does not fit, or one
 * whose instrument publishes none, is shown as its bytes.
 */
#ifndef GILK_PAYLOAD_H
#define GILK_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gerr.h"
#include "live.h"

/* an instrument's fields, then the values its splice fetched */
#define PAYLOAD_FIELDS_MAX (GILK_FIELDS_MAX + GILK_FETCH_MAX)

struct payload_field {
	const char *name;
	uint64_t value;
	bool hex;		/* an address or register, not a count */
	bool is_signed;		/* a fetched signed number (value sign-extended) */
	const char *str;	/* a fetched string (NUL-terminated), or NULL */
	bool fault;		/* a fetched value whose read faulted at the hit */
};

/* A splice's fetch, for the events it appended to. */
struct payload_fetch {
	uint32_t splice;
	struct gilk_fetch f;
};

/* The layouts of the instruments that publish one, by instrument name, and
 * the fetches of the splices that have one, by splice. */
struct payload_layouts {
	struct gilk_instrument_info *ins;
	size_t n;
	struct payload_fetch *fetch;
	size_t nfetch;
};

/*
 * Reads the layouts gilk.ko's instruments publish now into pl, with those of
 * kept (may be NULL) whose instrument is gone since: events drained before
 * its module was unloaded keep their names.
 */
int payload_layouts_read(struct payload_layouts *pl, struct live *lv,
			 const struct payload_layouts *kept, struct gerr *e);
/* A copy of from in to; false when out of memory (to is then empty). */
bool payload_layouts_copy(struct payload_layouts *to, const struct payload_layouts *from);
void payload_layouts_free(struct payload_layouts *pl);

/* Adds the fetches of n splices (those with one), once each: false when
 * out of memory. */
bool payload_fetches_add(struct payload_layouts *pl, const struct gilk_splice_info *in,
			 size_t n);
/* The fetch of a splice, or NULL. */
const struct gilk_fetch *payload_fetch_of(const struct payload_layouts *pl, uint32_t splice);
/* Decodes a fetch's bytes (gilk_fetch_out_len()) into out: one field each. */
size_t payload_fetch_decode(const struct gilk_fetch *f, const uint8_t *p,
			    struct payload_field *out);

/* Decodes len bytes of instrument ins's payload into out (room for
 * PAYLOAD_FIELDS_MAX); 0 when its layout is not known or does not fit. */
size_t payload_decode(const struct payload_layouts *pl, const char *ins, const uint8_t *p,
		      size_t len, struct payload_field *out);
/* "tsc: tsc; regs: rax rbx ...; ...": every field, by instrument. */
void payload_fields_list(const struct payload_layouts *pl, char *buf, size_t len);
/* Whether some layout has a field called name. */
bool payload_field_known(const struct payload_layouts *pl, const char *name);
/* Whether the first layout with a field called name shows it in hex. */
bool payload_field_hex(const struct payload_layouts *pl, const char *name);
/* Whether some splice fetches a value called name. */
bool payload_fetched(const struct payload_layouts *pl, const char *name);
/* Whether name is a fetched string. */
bool payload_field_string(const struct payload_layouts *pl, const char *name);

#endif
