/* The pager (see pager.h). */
#include "output/pager.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "session/interrupt.h"

struct pager {
	FILE *stream, *out;
	int in;
	const struct settings *st;
	unsigned lines;		/* since the last question */
	bool no_more;		/* "c": the rest of this command unpaged */
	bool quit;		/* "q": the rest of this command dropped */
	bool dropped;		/* some of this command's output was */
};

/* Lines per screen: "set height", or the terminal's when not set. */
static unsigned height(const struct pager *p)
{
	struct winsize ws;

	if (p->st->height_set)
		return p->st->height;
	if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 1)
		return ws.ws_row;
	return 0;
}

/* Asks; false when the user wants no more of this command's output. */
static bool ask(struct pager *p)
{
	char c = 0, first = 0;
	int ahead = 0;
	ssize_t n;

	/* A line typed before the question is the next command, not its
	 * answer: leave it for the prompt, and let this output run on. */
	if (ioctl(p->in, FIONREAD, &ahead) == 0 && ahead > 0) {
		p->no_more = true;
		return true;
	}
	fputs("--Type <RET> for more, q to quit, c to continue without paging--", p->out);
	fflush(p->out);
	while ((n = read(p->in, &c, 1)) == 1 && c != '\n')
		if (!first)
			first = c;
	if (n != 1 || interrupt_pending() || first == 'q' || first == 'Q') {
		if (n != 1 || interrupt_pending())
			fputc('\n', p->out);
		p->quit = true;
		return false;
	}
	p->no_more = first == 'c' || first == 'C';
	p->lines = 0;	/* the answer's line scrolled the question away */
	return true;
}

static ssize_t write_paged(void *cookie, const char *buf, size_t len)
{
	struct pager *p = cookie;
	unsigned h = p->st->pagination ? height(p) : 0;
	size_t done = 0;

	while (done < len && !p->quit && !interrupt_pending()) {
		const char *nl = memchr(buf + done, '\n', len - done);
		size_t n = nl ? (size_t)(nl - (buf + done)) + 1 : len - done;

		if (h > 1 && !p->no_more && p->lines >= h - 1 && !ask(p))
			break;
		fwrite(buf + done, 1, n, p->out);
		p->lines += nl != NULL;
		done += n;
	}
	fflush(p->out);
	p->dropped |= done < len;
	/* Dropped output is "written": the command runs on to its next
	 * interrupt check rather than failing on a write error. */
	return (ssize_t)len;
}

struct pager *pager_open(FILE *out, int in, const struct settings *st)
{
	cookie_io_functions_t io = { .write = write_paged };
	struct pager *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->out = out;
	p->in = in;
	p->st = st;
	p->stream = fopencookie(p, "w", io);
	if (!p->stream) {
		free(p);
		return NULL;
	}
	setvbuf(p->stream, NULL, _IOLBF, 0);
	return p;
}

FILE *pager_stream(struct pager *p)
{
	return p->stream;
}

void pager_reset(struct pager *p)
{
	fflush(p->stream);
	p->lines = 0;
	p->no_more = p->quit = p->dropped = false;
}

bool pager_dropped(struct pager *p)
{
	fflush(p->stream);
	return p->dropped;
}

void pager_unpaged(struct pager *p)
{
	p->no_more = true;
}

bool pager_quit(const struct pager *p)
{
	return p->quit;
}

void pager_close(struct pager *p)
{
	if (!p)
		return;
	fclose(p->stream);
	free(p);
}
