/* parse: a command line into words. Words are separated by blanks; "double"
 * or 'single' quotes keep blanks inside a word; # starts a comment. */
#ifndef GILK_PARSE_H
#define GILK_PARSE_H

/* Splits line in place into at most max words (a line of L bytes holds at
 * most L / 2 + 1); returns the word count, or -1 with *err set (an
 * unterminated quote, more words than max). */
int parse_words(char *line, char **words, int max, const char **err);

#endif
