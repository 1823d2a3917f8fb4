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

#define PAYLOAD_FIELDS_MAX GILK_FIELDS_MAX

struct payload_field {
	const char *name;
	uint64_t value;
	bool hex;		/* an address or register, not a count */
};

/* The layouts of the instruments that publish one, by instrument name. */
struct payload_layouts {
	struct gilk_instrument_info *ins;
	size_t n;
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

#endif
