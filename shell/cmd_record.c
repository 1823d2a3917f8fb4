/* record: save the commands typed from now on as a transcript (see
 * record.h). Only commands that succeed are saved, so that the transcript
 * replays to its end: -x and source stop at the first error. */
#include <string.h>
#include <time.h>

#include "commands.h"
#include "record.h"

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

	if (!s->record || !line[strspn(line, " \t\r\n")] || is_record(line))
		return;
	fprintf(s->record, "%.*s\n", (int)n, line);
	fflush(s->record);
}

static int stop(struct session *s, struct gerr *e)
{
	int bad;

	if (!s->record)
		return gerr_set(e, "not recording");
	bad = ferror(s->record);
	if (fclose(s->record) || bad) {
		s->record = NULL;
		return gerr_set(e, "%s: write error", s->record_path);
	}
	s->record = NULL;
	fprintf(s->out, "recording to %s stopped\n", s->record_path);
	return 0;
}

static int run(struct session *s, int argc, char **argv, struct gerr *e)
{
	time_t now = time(NULL);
	char when[64];

	(void)argc;
	if (!strcmp(argv[1], "stop"))
		return stop(s, e);
	if (s->record)
		return gerr_set(e, "already recording to %s; \"record stop\" first", s->record_path);
	s->record = fopen(argv[1], "w");
	if (!s->record)
		return gerr_set(e, "%s: %m", argv[1]);
	snprintf(s->record_path, sizeof(s->record_path), "%s", argv[1]);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
	fprintf(s->record, "# gilk transcript, recorded %s (%s mode)\n", when,
		s->live ? "live" : "offline");
	fflush(s->record);
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
