/* Checked transcripts (see transcript_check.h). */
#include "script/transcript_check.h"

#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"

struct expect {
	const char *text;	/* after "#=> " or "#=! " */
	unsigned lineno;
};

/* One command of the transcript and what it should do. */
struct step {
	char *line;
	unsigned lineno;
	struct expect *out;
	size_t nout;
	struct expect err;	/* text NULL: must succeed */
};

static void regex_literal(char *re, size_t *n, size_t cap, const char *s, size_t len)
{
	for (size_t i = 0; i < len && *n + 3 < cap; i++) {
		if (strchr("\\^$.[]|()*+?{}", s[i]))
			re[(*n)++] = '\\';
		re[(*n)++] = s[i];
	}
}

/* Whether line (no newline) matches an expected TEXT; -1 on a bad regex. */
static int transcript_match(const char *text, const char *line, struct gerr *e)
{
	char re[8192];
	size_t n = 0;
	const char *p = text;
	regex_t rx;
	int rc;

	re[n++] = '^';
	while (*p) {
		const char *open = strstr(p, "{{"), *close = open ? strstr(open + 2, "}}") : NULL;

		if (!close) {
			regex_literal(re, &n, sizeof(re), p, strlen(p));
			break;
		}
		regex_literal(re, &n, sizeof(re), p, (size_t)(open - p));
		if (n + (size_t)(close - open) + 4 >= sizeof(re))
			return gerr_set(e, "pattern too long");
		n += (size_t)snprintf(re + n, sizeof(re) - n, "(%.*s)", (int)(close - open - 2), open + 2);
		p = close + 2;
	}
	re[n++] = '$';
	re[n] = '\0';
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return gerr_set(e, "bad pattern in \"%s\"", text);
	rc = regexec(&rx, line, 0, NULL, 0) == 0;
	regfree(&rx);
	return rc;
}

/* Whether lines[0..n) match ex[0..nex), "..." matching any run of lines.
 * *bad is the first expectation that failed (nex: too many lines). */
static int match_lines(char **lines, size_t n, const struct expect *ex, size_t nex,
		       size_t *bad, size_t *badline, struct gerr *e)
{
	size_t i = 0, k = 0;

	while (k < nex) {
		int m;

		if (!strcmp(ex[k].text, "...")) {
			/* any run of lines, then the rest must match */
			if (k + 1 == nex)
				return 1;
			for (size_t j = i; j <= n; j++) {
				size_t b2, bl2;
				int r = match_lines(lines + j, n - j, ex + k + 1, nex - k - 1,
						    &b2, &bl2, e);
				if (r != 0)
					return r;
			}
			*bad = k + 1;
			*badline = n;
			return 0;
		}
		if (i == n) {
			*bad = k;
			*badline = n;
			return 0;
		}
		m = transcript_match(ex[k].text, lines[i], e);
		if (m <= 0) {
			*bad = k;
			*badline = i;
			return m;
		}
		i++;
		k++;
	}
	if (i < n) {
		*bad = nex;
		*badline = i;
		return 0;
	}
	return 1;
}

/* The output captured in f, split into lines. */
static size_t read_lines(FILE *f, char ***out)
{
	char *buf = NULL, **v = NULL;
	size_t cap = 0, n = 0;
	ssize_t len;

	rewind(f);
	while ((len = getline(&buf, &cap, f)) >= 0) {
		char **nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv)
			break;
		v = nv;
		if (len && buf[len - 1] == '\n')
			buf[len - 1] = '\0';
		v[n++] = strdup(buf);
	}
	free(buf);
	*out = v;
	return n;
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Runs one step; 0 when it did as expected, else -1 with the mismatch said. */
static int check_step(struct session *s, const char *path, struct step *st)
{
	FILE *cap = tmpfile(), *saved = s->out;
	char **lines, *copy = strdup(st->line);
	size_t n, bad = 0, badline = 0;
	struct gerr e, me;
	int rc, m;

	if (!cap || !copy) {
		fprintf(stderr, "%s:%u: cannot capture output: %m\n", path, st->lineno);
		free(copy);
		if (cap)
			fclose(cap);
		return -1;
	}
	s->out = cap;
	rc = command_run_line(s, copy, &e);
	fflush(cap);
	s->out = saved;
	free(copy);
	n = read_lines(cap, &lines);
	fclose(cap);
	if (rc && !st->err.text) {
		fprintf(stderr, "%s:%u: %s failed: %s\n", path, st->lineno, st->line, e.msg);
		rc = -1;
	} else if (!rc && st->err.text) {
		fprintf(stderr, "%s:%u: expected an error: %s\n%s:%u: but %s succeeded\n", path,
			st->err.lineno, st->err.text, path, st->lineno, st->line);
		rc = -1;
	} else if (rc && (m = transcript_match(st->err.text, e.msg, &me)) <= 0) {
		fprintf(stderr, "%s:%u: expected error: %s\n%s:%u:      got error: %s\n", path,
			st->err.lineno, m < 0 ? me.msg : st->err.text, path, st->err.lineno, e.msg);
		rc = -1;
	} else if (st->nout && (m = match_lines(lines, n, st->out, st->nout, &bad, &badline, &me)) <= 0) {
		unsigned at = bad < st->nout ? st->out[bad].lineno : st->out[st->nout - 1].lineno;

		if (m < 0)
			fprintf(stderr, "%s:%u: %s\n", path, at, me.msg);
		else
			fprintf(stderr, "%s:%u: expected: %s\n%s:%u:      got: %s\n", path, at,
				bad < st->nout ? st->out[bad].text : "(no more lines)", path, at,
				badline < n ? lines[badline] : "(no more lines)");
		rc = -1;
	} else {
		rc = 0;
	}
	free_lines(lines, n);
	return rc;
}

static void step_free(struct step *st)
{
	free(st->line);
	for (size_t i = 0; i < st->nout; i++)
		free((char *)st->out[i].text);
	free(st->out);
	free((char *)st->err.text);
	memset(st, 0, sizeof(*st));
}

static bool is_expect(const char *line, char kind)
{
	line += strspn(line, " \t");
	return line[0] == '#' && line[1] == '=' && line[2] == kind;
}

static const char *expect_text(const char *line)
{
	line += strspn(line, " \t") + 3;
	return *line == ' ' ? line + 1 : line;
}

/*
 * A transcript recorded live and replayed offline (or the other way) sees
 * other bytes where the kernel patched its own text at boot: the return
 * thunk is ret live, alternatives and static calls differ. Said once, after
 * the mismatch, where the mode differs.
 */
static void mode_hint(const struct session *s, const char *path, int recorded_live)
{
	if (recorded_live < 0 || recorded_live == s->live)
		return;
	fprintf(stderr, "%s: recorded %s and replayed %s: the running kernel's text differs from "
		"its image where the kernel patched itself at boot (a return thunk is ret live, "
		"alternatives and static calls are applied); replay it %s, or record it %s\n", path,
		recorded_live ? "live" : "offline", s->live ? "live" : "offline",
		recorded_live ? "live" : "offline", s->live ? "live" : "offline");
}

int transcript_check(struct session *s, const char *path, FILE *out)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, nsteps = 0;
	ssize_t len;
	unsigned lineno = 0;
	struct step st = { 0 };
	bool have = false;
	int rc = 0, recorded_live = -1;

	if (!f) {
		fprintf(stderr, "gilk: %s: %m\n", path);
		return -1;
	}
	for (;;) {
		char *text;

		len = getline(&line, &cap, f);
		if (len >= 0) {
			lineno++;
			line[strcspn(line, "\r\n")] = '\0';
		}
		if (len >= 0 && have && (is_expect(line, '>') || is_expect(line, '!'))) {
			text = strdup(expect_text(line));
			if (is_expect(line, '!')) {
				st.err = (struct expect){ text, lineno };
			} else {
				struct expect *nx = realloc(st.out, (st.nout + 1) * sizeof(*nx));

				if (!nx || !text) {
					free(text);
					rc = -1;
					break;
				}
				st.out = nx;
				st.out[st.nout++] = (struct expect){ text, lineno };
			}
			continue;
		}
		/* record's header says the mode it ran in */
		if (len >= 0 && lineno == 1 && !strncmp(line, "# gilk transcript, recorded ", 28))
			recorded_live = strstr(line, "(live mode)") ? 1 :
					strstr(line, "(offline mode)") ? 0 : -1;
		if (len >= 0 && (line[strspn(line, " \t")] == '#' || !line[strspn(line, " \t")]))
			continue;	/* comments and blank lines */
		if (have) {
			rc = check_step(s, path, &st);
			if (rc)
				mode_hint(s, path, recorded_live);
			nsteps++;
			step_free(&st);
			have = false;
			if (rc || s->quit)
				break;
		}
		if (len < 0)
			break;
		st.line = strdup(line);
		st.lineno = lineno;
		have = st.line != NULL;
	}
	step_free(&st);
	free(line);
	fclose(f);
	if (!rc)
		fprintf(out, "%s: %zu commands, all as expected\n", path, nsteps);
	return rc;
}
