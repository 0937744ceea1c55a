/* SPDX-License-Identifier: MIT */
/* The command line's messages for bad options (option_errors.h), worded and quoted as
 * GNU sort's, and the pointer to --help that follows a usage error. */
#include "config.h"
#include <stdio.h>
#include <gpusort.h>
#include "command_line.h"
#include "option_errors.h"

void command_line_usage_hint(void)
{
	fputs("Try 'gpusort --help' for more information.\n", stderr);
}

int option_error(const char *format, const char *argument)
{
	fputs("gpusort: ", stderr);
	fprintf(stderr, format, argument);
	fputc('\n', stderr);
	return 2;
}

int option_error_quoted(const char *format, const char *argument)
{
	char quoted[1024];
	return option_error(format, gpusort_quote(argument, quoted, sizeof quoted));
}

int usage_error(const char *format, const char *argument)
{
	option_error(format, argument);
	command_line_usage_hint();
	return 2;
}

/* The option as it was named (-S, or the long name in full), the argument in quotes. */
int number_error(enum number_trouble trouble, const char *option, const char *argument)
{
	/* straight quotes in every locale: GNU's xstrtol_error() writes them itself */
	static const char *const formats[] = {"invalid %s argument '%s'", "invalid suffix in %s argument '%s'",
					      "%s argument '%s' too large"};
	fputs("gpusort: ", stderr);
	fprintf(stderr, formats[trouble], option, argument);
	fputc('\n', stderr);
	return 2;
}

/* (GNU sort exits 1 after argmatch's message, which -c uses for disorder; gpusort
 * keeps 2 for trouble.) */
int invalid_word(const char *argument, const char *option, const char *const *valid, size_t count,
		 bool ambiguous)
{
	char quoted_argument[1024], quoted_option[64], quoted[64];
	fprintf(stderr, "gpusort: %s argument %s for %s\nValid arguments are:",
		ambiguous ? "ambiguous" : "invalid", gpusort_quote(argument, quoted_argument, sizeof quoted_argument),
		gpusort_quote(option, quoted_option, sizeof quoted_option));
	/* words of one meaning share a line, as argmatch_valid() lists them */
	for (size_t i = 0; i < count; i++) {
		bool same = i > 0 && valid[i][0] == '=';
		const char *word = valid[i] + (valid[i][0] == '=');
		fprintf(stderr, same ? ", %s" : "\n  - %s", gpusort_quote(word, quoted, sizeof quoted));
	}
	fputc('\n', stderr);
	command_line_usage_hint();
	return 2;
}
