/* Transcripts recorded (see record.h). */
#include "script/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands/commands.h"

/* A recording in progress: the session holds one while "record" runs. */
struct recording {
	FILE *f;
	char path[4096];
};

/* "record ..." itself is not saved: a replay would start recording. */
static bool is_record(const char *line)
{
	char word[16];

	if (sscanf(line, " %15s", word) != 1)
		return false;
	return command_find(word) == &cmd_record;
}

void record_line(struct session *s, const char *line)
{
	size_t n = strcspn(line, "\r\n");

	if (!s->rec || !line[strspn(line, " \t\r\n")] || is_record(line))
		return;
	fprintf(s->rec->f, "%.*s\n", (int)n, line);
	fflush(s->rec->f);
}

/* Ends the recording; -1 when its file took a write error. */
static int finish(struct session *s)
{
	int bad = ferror(s->rec->f);

	bad |= fclose(s->rec->f);
	free(s->rec);
	s->rec = NULL;
	return bad ? -1 : 0;
}

void record_close(struct session *s)
{
	if (s->rec)
		finish(s);
}

int record_stop(struct session *s, char *path, size_t len, struct gerr *e)
{
	if (!s->rec)
		return gerr_set(e, "not recording");
	snprintf(path, len, "%s", s->rec->path);
	if (finish(s))
		return gerr_set(e, "%s: write error", path);
	return 0;
}

int record_start(struct session *s, const char *path, struct gerr *e)
{
	time_t now = time(NULL);
	char when[64];
	struct recording *r;

	if (s->rec)
		return gerr_set(e, "already recording to %s; \"record stop\" first", s->rec->path);
	r = calloc(1, sizeof(*r));
	if (!r)
		return gerr_set(e, "out of memory");
	r->f = fopen(path, "w");
	if (!r->f) {
		free(r);
		return gerr_set(e, "%s: %m", path);
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	s->rec = r;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
	fprintf(r->f, "# gilk transcript, recorded %s (%s mode)\n", when,
		s->live ? "live" : "offline");
	fflush(r->f);
	return 0;
}
