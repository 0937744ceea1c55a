/* Error and usage messages (see report.h). */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

void report(const char *format, ...)
{
	va_list args;
	fputs("gpusort: ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
}

void report_file_error(const char *name, int error)
{
	const char *shown = name && strcmp(name, "-") != 0 ? name : "standard input";
	const char *why = error == -EBADMSG ? "corrupted data (checksum mismatch)" : strerror(-error);
	report("%s: %s", shown, why);
}

const char *report_output_name(const char *output)
{
	return output && strcmp(output, "-") != 0 ? output : "standard output";
}

void report_usage_hint(void)
{
	fputs("Try 'gpusort --help' for more information.\n", stderr);
}
