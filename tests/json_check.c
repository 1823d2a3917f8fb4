/*
 * test-json FILE [KEY]: exits 0 when FILE is one JSON value (RFC 8259) and
 * nothing else, 1 otherwise. Prints how many elements the array named KEY
 * in the top-level object has (without KEY: the top-level array's). For the
 * tests of dump, on the host and in the guest, where no JSON tool is.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p;
	const char *key;	/* counted array's name, NULL: top level */
	long count;
};

static int value(struct parser *j, int depth, int counted);

static void ws(struct parser *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int string(struct parser *j, char *out, size_t outlen)
{
	size_t n = 0;

	if (*j->p++ != '"')
		return -1;
	for (; *j->p != '"'; j->p++) {
		unsigned char c = (unsigned char)*j->p;

		if (c < 0x20)
			return -1;	/* also the end of the text */
		if (c == '\\') {
			c = (unsigned char)*++j->p;
			if (c == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)j->p[i]))
						return -1;
				j->p += 4;
				continue;
			}
			if (!c || !strchr("\"\\/bfnrt", c))
				return -1;
		}
		if (out && n + 1 < outlen)
			out[n++] = (char)c;
	}
	j->p++;
	if (out)
		out[n] = 0;
	return 0;
}

static int digits(struct parser *j)
{
	if (!isdigit((unsigned char)*j->p))
		return -1;
	while (isdigit((unsigned char)*j->p))
		j->p++;
	return 0;
}

static int number(struct parser *j)
{
	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (digits(j))
		return -1;
	if (*j->p == '.') {
		j->p++;
		if (digits(j))
			return -1;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (digits(j))
			return -1;
	}
	return 0;
}

/* counted: this value is the array whose elements are counted */
static int array(struct parser *j, int depth, int counted)
{
	j->p++;
	ws(j);
	if (*j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		if (value(j, depth + 1, 0))
			return -1;
		j->count += counted;
		ws(j);
		if (*j->p == ']') {
			j->p++;
			return 0;
		}
		if (*j->p++ != ',')
			return -1;
	}
}

static int object(struct parser *j, int depth)
{
	char name[64];

	j->p++;
	ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		ws(j);
		if (string(j, name, sizeof(name)))
			return -1;
		ws(j);
		if (*j->p++ != ':')
			return -1;
		if (value(j, depth + 1, depth == 0 && j->key && !strcmp(name, j->key)))
			return -1;
		ws(j);
		if (*j->p == '}') {
			j->p++;
			return 0;
		}
		if (*j->p++ != ',')
			return -1;
	}
}

static int value(struct parser *j, int depth, int counted)
{
	static const char *const words[] = { "true", "false", "null" };

	if (depth > 64)
		return -1;
	ws(j);
	switch (*j->p) {
	case '{':
		return object(j, depth);
	case '[':
		return array(j, depth, counted || (depth == 0 && !j->key));
	case '"':
		return string(j, NULL, 0);
	default:
		for (size_t i = 0; i < 3; i++)
			if (!strncmp(j->p, words[i], strlen(words[i]))) {
				j->p += strlen(words[i]);
				return 0;
			}
		return number(j);
	}
}

int main(int argc, char **argv)
{
	struct parser j = { .key = argc > 2 ? argv[2] : NULL };
	static char text[64 << 20];
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	size_t n;

	if (!f) {
		fprintf(stderr, "usage: test-json FILE [KEY]\n");
		return 2;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	j.p = text;
	if (strlen(text) != n || value(&j, 0, 0)) {
		fprintf(stderr, "test-json: %s: not JSON at byte %zu\n", argv[1], (size_t)(j.p - text));
		return 1;
	}
	ws(&j);
	if (*j.p) {
		fprintf(stderr, "test-json: %s: more after the value, at byte %zu\n", argv[1],
			(size_t)(j.p - text));
		return 1;
	}
	printf("%ld\n", j.count);
	return 0;
}
