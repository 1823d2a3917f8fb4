/* parse: a command line into words. Words are separated by blanks; "double"
 * or 'single' quotes keep blanks inside a word; # starts a comment. */
#ifndef GILK_PARSE_H
#define GILK_PARSE_H

#define PARSE_MAX_WORDS 32

/* Splits line in place; returns the word count, or -1 with *err set (an
 * unterminated quote, too many words). */
int parse_words(char *line, char **words, int max, const char **err);

#endif
