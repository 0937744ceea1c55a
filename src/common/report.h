/* Messages to stderr in the one format users see: "gpusort: what: why". */
#ifndef GPUSORT_REPORT_H
#define GPUSORT_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* "gpusort: <formatted>" and a newline. */
void report(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* "gpusort: <name>: <strerror(-error)>"; "-" is shown as "standard input". */
void report_file_error(const char *name, int error);
/* "gpusort: <name>: size <bytes> bytes is not a multiple of the record size <size>";
 * "-" is shown as "standard input". */
void report_partial_record(const char *name, uint64_t bytes, size_t record_size);
/* How messages name the output: its path, or "standard output" for NULL and "-". */
const char *report_output_name(const char *output);
/* "gpusort: cannot create temporary file in 'DIR': <strerror(-error)>", GNU sort's
 * words, with DIR quoted as GNU's quoteaf does for a shell. */
void report_temp_create_error(const char *dir, int error);
/* name in shell quotes as GNU's messages show names: 'name'; "name" when it holds a
 * single quote and nothing a shell expands inside double quotes; control characters
 * as $'\t' outside the quotes. Returns buffer (truncated to size). */
const char *report_quote(const char *name, char *buffer, size_t size);
/* text in quotes as GNU's quote() shows it in messages: 'text', or in a UTF-8 locale
 * (LC_CTYPE's codeset) between U+2018 and U+2019. Returns buffer (truncated to size). */
const char *report_locale_quote(const char *text, char *buffer, size_t size);
/* "Try 'gpusort --help' for more information." */
void report_usage_hint(void);

#endif
