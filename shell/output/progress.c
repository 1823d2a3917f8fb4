/* How far a long command is (see progress.h). */
#include "output/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

void progress_start(struct progress *p)
{
	p->tty = isatty(2);
	p->shown = false;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
}

bool progress_due(const struct progress *p)
{
	return since(&p->start) >= 1 && (p->tty || since(&p->last) >= 1);
}

void progress_say(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!progress_due(p))
		return;
	fputs(p->tty ? "\r" : "", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(p->tty ? "\033[K" : "\n", stderr);
	fflush(stderr);
	clock_gettime(CLOCK_MONOTONIC, &p->last);
	p->shown = true;
}

void progress_end(struct progress *p)
{
	if (p->shown && p->tty)
		fputs("\r\033[K", stderr);
	p->shown = false;
}
