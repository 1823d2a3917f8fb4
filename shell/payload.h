/*
 * payload: what an instrument's event payload holds, as named fields, so
 * every output (events, dump as text, CSV, JSON or a Chrome trace) says the
 * same thing. The built-ins (tsc, regs) and the instruments of instruments/
 * (argfilter, hello, latency, skb, stack) are known; any other
 * instrument's payload is shown as its bytes.
 */
#ifndef GILK_PAYLOAD_H
#define GILK_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAYLOAD_FIELDS_MAX 18

struct payload_field {
	const char *name;
	uint64_t value;
	bool hex;		/* an address or register, not a count */
};

/* Decodes len bytes of instrument ins's payload into out (room for
 * PAYLOAD_FIELDS_MAX); 0 when the layout is not known. */
size_t payload_decode(const char *ins, const uint8_t *p, size_t len,
		      struct payload_field *out);
/* "tsc: tsc; regs: rax rbx ...; ...": every known field, by instrument. */
void payload_fields_list(char *buf, size_t len);
/* Whether some known payload has a field called name. */
bool payload_field_known(const char *name);
/* Whether the first payload with a field called name shows it in hex. */
bool payload_field_hex(const char *name);

#endif
