/* SPDX-License-Identifier: MIT */
/* What the command line says of a bad option, in GNU sort's words (its die(), usage(),
 * xstrtol_fatal() and argmatch messages). Each function prints to stderr and returns
 * 2, the exit status of trouble, so that a parser can `return option_error(...)`. */
#ifndef GPUSORT_CLI_OPTION_ERRORS_H
#define GPUSORT_CLI_OPTION_ERRORS_H

#include <stdbool.h>
#include <stddef.h>

/* "gpusort: " and the message (format takes argument as %s), as GNU's die() says it. */
int option_error(const char *format, const char *argument);
/* The same with argument quoted as GNU's quote() quotes it in the locale. */
int option_error_quoted(const char *format, const char *argument);
/* The same followed by the pointer to --help, as GNU's usage(). */
int usage_error(const char *format, const char *argument);

/* What xstrtol_fatal() says of a numeric option's bad argument. */
enum number_trouble { NUMBER_INVALID, NUMBER_BAD_SUFFIX, NUMBER_TOO_LARGE };
int number_error(enum number_trouble trouble, const char *option, const char *argument);

/* A word option's bad (or ambiguous) argument and the words it takes, as argmatch says
 * it; a word of valid that starts with '=' means the same as the one before it. */
int invalid_word(const char *argument, const char *option, const char *const *valid, size_t count,
		 bool ambiguous);

#endif
