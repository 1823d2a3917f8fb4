/*
 * Errors from core/: every fallible function returns 0 or -1 and, on -1, leaves
 * a specific human-readable message in the caller's struct gerr. core/ never
 * prints; the shell and the tests decide what to do with the message.
 */
#ifndef GILK_GERR_H
#define GILK_GERR_H

struct gerr {
	char msg[512];
};

/* Formats the message into e (if non-NULL) and returns -1, so callers can write
 * `return gerr_set(e, "...", ...);`. */
int gerr_set(struct gerr *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
