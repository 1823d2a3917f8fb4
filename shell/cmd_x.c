/* x: examine kernel memory as hex bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	uint8_t buf[4096];
	uint64_t addr;
	size_t n = 64;

	if (argc < 2 || argc > 3)
		return gerr_set(e, "usage: %s", cmd_x.usage);
	if (session_resolve(s, argv[1], &addr, e))
		return -1;
	if (argc == 3) {
		char *end;
		unsigned long v = strtoul(argv[2], &end, 0);

		if (*end || !v || v > sizeof(buf))
			return gerr_set(e, "'%s' is not a byte count (1 to %zu)", argv[2], sizeof(buf));
		n = v;
	}
	if (session_read(s, addr, buf, n, e))
		return -1;
	for (size_t i = 0; i < n; i += 16) {
		fprintf(s->out, "0x%016" PRIx64 ":", addr + i);
		for (size_t k = i; k < i + 16 && k < n; k++)
			fprintf(s->out, " %02x", buf[k]);
		fprintf(s->out, "\n");
	}
	return 0;
}

const struct command cmd_x = {
	.name = "x",
	.run = run,
	.usage = "x LOCATION [BYTES]",
	.help = "Shows BYTES (default 64, at most 4096) of kernel memory at LOCATION in\n"
		"hex. Live, through gilk.ko (an unmapped address is an error, not an\n"
		"oops), so spliced bytes show as they are now; offline, from the image.",
	.complete = COMPLETE_SYMBOL,
};
