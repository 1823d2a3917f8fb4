/*
 * Errors from core/ and lib/: every fallible function returns 0 or -1 and,
 * on -1, leaves a specific human-readable message in the caller's struct
 * gerr, with a code a program can test (an errno value: what the system or
 * gilk.ko answered, or EINVAL for input core/ refuses), so that no caller
 * reads errno after a library call. core/ never prints; the shell and the
 * tests decide what to do with the message.
 */
#ifndef GILK_GERR_H
#define GILK_GERR_H

struct gerr {
	int code;		/* an errno value, never 0 once set */
	char msg[512];
};

/* Formats the message into e (if non-NULL), sets its code to EINVAL and
 * returns -1, so callers can write `return gerr_set(e, "...", ...);`. */
int gerr_set(struct gerr *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same with a code: errno after a failed call, ENOMEM, ... */
int gerr_setc(struct gerr *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
