/* Error and usage messages (see report.h). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "stats.h"

void report(const char *format, ...)
{
	va_list args;
	stats_progress_interrupt(); /* the message gets a line of its own */
	fputs("gpusort: ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	stats_progress_resume();
}

void report_file_error(const char *name, int error)
{
	const char *shown = name && strcmp(name, "-") != 0 ? name : "standard input";
	const char *why = error == -EBADMSG ? "corrupted data (checksum mismatch)" : strerror(-error);
	report("%s: %s", shown, why);
}

void report_partial_record(const char *name, uint64_t bytes, size_t record_size)
{
	const char *shown = strcmp(name, "-") == 0 ? "standard input" : name;
	report("%s: size %" PRIu64 " bytes is not a multiple of the record size %zu", shown, bytes,
	       record_size);
}

const char *report_output_name(const char *output)
{
	return output && strcmp(output, "-") != 0 ? output : "standard output";
}

/* Appends to buffer without overrunning it. */
static void put(char *buffer, size_t size, size_t *used, const char *text)
{
	for (; *text; text++) {
		if (*used + 1 < size)
			buffer[*used] = *text;
		(*used)++;
	}
	if (size)
		buffer[*used < size ? *used : size - 1] = '\0';
}

const char *report_quote(const char *name, char *buffer, size_t size)
{
	static const char shell_special[] = "!\"$&()*;<=>[^`|\\";
	bool has_quote = false, double_quotable = true;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		has_quote |= *c == '\'';
		if (*c < 0x20 || *c == 0x7f || strchr(shell_special, *c))
			double_quotable = false;
	}
	size_t used = 0;
	if (size)
		buffer[0] = '\0';
	if (has_quote && double_quotable) {
		put(buffer, size, &used, "\"");
		put(buffer, size, &used, name);
		put(buffer, size, &used, "\"");
		return buffer;
	}
	put(buffer, size, &used, "'");
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		char piece[16] = {(char)*c, '\0'};
		if (*c == '\'')
			strcpy(piece, "'\\''");
		else if (*c < 0x20 || *c == 0x7f) {
			static const char letters[] = "abtnvfr";
			if (*c >= '\a' && *c <= '\r')
				snprintf(piece, sizeof piece, "'$'\\%c''", letters[*c - '\a']);
			else
				snprintf(piece, sizeof piece, "'$'\\%03o''", *c);
		}
		put(buffer, size, &used, piece);
	}
	put(buffer, size, &used, "'");
	return buffer;
}

void report_temp_create_error(const char *dir, int error)
{
	char quoted[4096 + 64];
	report("cannot create temporary file in %s: %s", report_quote(dir, quoted, sizeof quoted),
	       strerror(-error));
}

void report_usage_hint(void)
{
	fputs("Try 'gpusort --help' for more information.\n", stderr);
}

const char *report_locale_quote(const char *text, char *buffer, size_t size)
{
	bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	snprintf(buffer, size, utf8 ? "\xe2\x80\x98%s\xe2\x80\x99" : "'%s'", text);
	return buffer;
}
