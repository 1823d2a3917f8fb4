/* Command-line words (see parse.h). */
#include "commands/parse.h"

#include <stddef.h>

int parse_words(char *line, char **words, int max, const char **err)
{
	char *r = line, *w = line;
	int n = 0;

	for (;;) {
		char quote = 0;

		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r || *r == '#')
			break;
		if (n == max) {
			*err = "too many words";
			return -1;
		}
		words[n++] = w;
		while (*r && (quote || (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r'))) {
			if (!quote && (*r == '"' || *r == '\'')) {
				quote = *r++;
				continue;
			}
			if (quote && *r == quote) {
				quote = 0;
				r++;
				continue;
			}
			*w++ = *r++;
		}
		if (quote) {
			*err = "unterminated quote";
			return -1;
		}
		if (*r)
			r++;
		*w++ = '\0';
	}
	return n;
}
