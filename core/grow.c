/* Arrays grown by doubling (see grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

int grow_room(void **arr, size_t *room, size_t need, size_t size, size_t first)
{
	size_t r = *room ? *room : (first ? first : 1);
	void *p;

	if (need <= *room)
		return 0;
	while (r < need) {
		if (r > SIZE_MAX / 2 / size)
			return -1;
		r *= 2;
	}
	p = realloc(*arr, r * size);
	if (!p)
		return -1;
	*arr = p;
	*room = r;
	return 0;
}
