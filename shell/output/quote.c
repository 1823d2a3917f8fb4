/* Strings quoted for JSON, text and CSV (see quote.h). */
#include "output/quote.h"

#include <string.h>

void quote_string(FILE *out, const char *s, bool json)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || (!json && c >= 0x7f))
			fprintf(out, json ? "\\u%04x" : "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void quote_csv_cell(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
