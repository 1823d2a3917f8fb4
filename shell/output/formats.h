/*
 * formats: how gilk writes what it collected. Text is what events and
 * info splices show; CSV is a header row, then one row per record; JSON is
 * one document; the Chrome trace event format (chrome://tracing, Perfetto)
 * puts events on a timeline, one track per CPU.
 */
#ifndef GILK_FORMATS_H
#define GILK_FORMATS_H

#include <stddef.h>
#include <stdio.h>

#include "events/event_log.h"
#include "output/symbolizer.h"

enum format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_CHROME };

/* "text", "csv", "json" or "chrome": 0, or -1 when name is none of them. */
int format_parse(const char *name, enum format *f);
/* By extension: .csv, .json; text otherwise. */
enum format format_for_path(const char *path);
const char *format_name(enum format f);

/* The first limit events of log (SIZE_MAX: all), with log's splices, their
 * addresses named by y. */
void format_events(FILE *out, enum format f, const struct symbolizer *y,
		   const struct event_log *log, size_t limit);
/* One event of log as a line of text, as events shows it. */
void format_event_text(FILE *out, const struct symbolizer *y, const struct event_log *log,
		       size_t i);
/* Splices with their counters; the Chrome format is for events only. */
void format_splices(FILE *out, enum format f, const struct symbolizer *y,
		    const struct gilk_splice_info *all, size_t n);
/* The same a splice at a time, for lists read a page at a time: open,
 * then each splice with its index in the list, then close with how many
 * there were. */
void format_splices_open(FILE *out, enum format f);
void format_splice(FILE *out, enum format f, const struct symbolizer *y,
		   const struct gilk_splice_info *p, size_t i);
void format_splices_close(FILE *out, enum format f, size_t n);

#endif
