/* Edit distance (see editdist.h). */
#include "editdist.h"

#include <string.h>

size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), row[128];

	if (la >= 127 || lb >= 127 || (la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best;

		row[0] = best = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], d = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < d)
				d = up + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			diag = up;
			row[j] = d;
			if (d < best)
				best = d;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
}
