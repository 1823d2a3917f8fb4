/* record: save the commands typed from now on as a transcript (see
 * record.h). Only commands that succeed are saved, so that the transcript
 * replays to its end: -x and source stop at the first error. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "record.h"

/* A recording in progress: the session holds one while "record" runs. */
struct recording {
	FILE *f;
	char path[4096];
};

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

static int stop(struct session *s, struct gerr *e)
{
	char path[sizeof(s->rec->path)];

	if (!s->rec)
		return gerr_set(e, "not recording");
	snprintf(path, sizeof(path), "%s", s->rec->path);
	if (finish(s))
		return gerr_set(e, "%s: write error", path);
	fprintf(s->out, "recording to %s stopped\n", path);
	return 0;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	time_t now = time(NULL);
	char when[64];
	struct recording *r;

	(void)argc;
	if (!strcmp(argv[1], "stop"))
		return stop(s, e);
	if (s->rec)
		return gerr_set(e, "already recording to %s; \"record stop\" first", s->rec->path);
	r = calloc(1, sizeof(*r));
	if (!r)
		return gerr_set(e, "out of memory");
	r->f = fopen(argv[1], "w");
	if (!r->f) {
		free(r);
		return gerr_set(e, "%s: %m", argv[1]);
	}
	snprintf(r->path, sizeof(r->path), "%s", argv[1]);
	s->rec = r;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
	fprintf(r->f, "# gilk transcript, recorded %s (%s mode)\n", when,
		s->live ? "live" : "offline");
	fflush(r->f);
	fprintf(s->out, "recording commands to %s\n", argv[1]);
	return 0;
}

static const char *const what[] = { "stop", NULL };

const struct command cmd_record = {
	.name = "record",
	.run = run,
	.min_args = 1,
	.max_args = 1,
	.complete = COMPLETE_PATH,
	.words = what,
	.usage = "record FILE | record stop",
	.help = "Saves every command typed from now on that succeeds to FILE, one per\n"
		"line, as a transcript that \"gilk -x FILE\" and \"source FILE\" replay;\n"
		"\"record stop\" ends it. Add #=> lines of expected output under a\n"
		"command to make it a checked transcript (\"gilk --check FILE\").",
};
