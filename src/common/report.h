/* SPDX-License-Identifier: MIT */
/* Messages to stderr in the one format users see: "gpusort: what: why". */
#ifndef GPUSORT_REPORT_H
#define GPUSORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each message is delivered to the job's sink (report_set_sink), or as "gpusort:
 * <message>" and a newline on stderr; a message the same as the job's last one is left
 * out (threads that fail alike). A job's messages, sink and cause are its own
 * (job_context.h); a cancelled job says nothing. */
void report(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* report's message for a failure whose cause is error (a negative errno, or
 * REPORT_INTERNAL): the job's first cause is what report_cause returns. */
void report_error(int error, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* strerror(-error) alone, with error as the cause. */
void report_errno(int error);
/* "internal error: <formatted>": the self-check found a fault; cause REPORT_INTERNAL. */
void report_internal(const char *format, ...) __attribute__((format(printf, 1, 2)));
#define REPORT_INTERNAL (-100000)
/* Where messages go: sink(context, message), each message a line without "gpusort: "
 * and without a newline; NULL: stderr. */
typedef void (*report_sink)(void *context, const char *message);
void report_set_sink(report_sink sink, void *context);
/* The cause of the job's first failure reported (0: none had one). */
int report_cause(void);
/* From report_hold on, messages are kept instead of printed, until report_release
 * prints them (print) or drops them: ranks that fail alike let one of them speak. */
void report_hold(void);
void report_release(bool print);
/* "gpusort: <name>: <strerror(-error)>", the name quoted as GNU's quotef() does (see
 * report_shell_quote); "-" stays "-", as in GNU sort's messages. */
void report_file_error(const char *name, int error);
/* "gpusort: <what>: <name>: <strerror(-error)>", as GNU sort's sort_die() words a
 * failed step on a file ("open failed", "read failed"), the name quoted as quotef()
 * does; "-" stays "-". what NULL: report_file_error's form. */
void report_file_failure(const char *what, const char *name, int error);
/* A write of the output that failed, in GNU sort's two lines: "gpusort: write failed:
 * NAME: why" ("fflush failed" where flushing: GNU's stdio meets the failure when it
 * flushes an output no larger than its buffer, REPORT_FLUSH_BYTES, at the end) and then
 * "gpusort: write error", what GNU's close_stdout adds for the same stream. */
void report_output_failure(const char *name, int error, bool flushing);
#define REPORT_FLUSH_BYTES 4096
/* An input that would not open, in GNU sort's words for the moment it finds that out:
 * "cannot read: NAME: why" before a sort or merge (checking), "open failed" when it
 * opens the file to check its order, and "read failed" for a directory, which opens
 * and then cannot be read; for a closed stdin ("-", EBADF) "stat failed", or "read
 * failed" when checking. */
void report_input_open_error(const char *name, int error, bool checking_order);
/* "gpusort: <name>: size <bytes> bytes is not a multiple of the record size <size>";
 * the name as report_input_name shows it. */
void report_partial_record(const char *name, uint64_t bytes, size_t record_size);
/* How gpusort's own messages (those GNU sort has no case for) name an input: "standard
 * input" for "-", else the name quoted as quotef() does. Returns buffer or a literal. */
const char *report_input_name(const char *name, char *buffer, size_t size);
/* How messages name the output: its path, or "standard output" for NULL and "-". */
const char *report_output_name(const char *output);
/* "gpusort: cannot create temporary file in 'DIR': <strerror(-error)>", GNU sort's
 * words, with DIR quoted as GNU's quoteaf does for a shell. */
void report_temp_create_error(const char *dir, int error);
/* text quoted for a shell as GNU's messages show file names (gnulib quotearg's shell
 * escape styles): always (quoteaf) or only when needed (quotef: a space, a character a
 * shell reads specially, a colon, a leading # or ~, a lone { or }, anything
 * unprintable, or an empty text). 'text'; "text" when it holds a single quote and
 * nothing else special; a single quote inside as '\''; unprintable bytes as $'\n' or
 * $'\303' groups outside the quotes; GNU's quirks kept. Returns buffer (truncated to
 * size). */
const char *report_shell_quote(const char *text, bool always, char *buffer, size_t size);
/* text quoted as GNU's quote() shows an argument in a message, in the current locale:
 * 'text' (between U+2018 and U+2019 in a UTF-8 locale, LC_CTYPE's codeset), with a
 * backslash before a backslash or the closing quote, C escapes for control characters
 * (\t, \n, ...) and octal ones (\303) for bytes the locale cannot print. Returns
 * buffer (truncated to size). */
const char *report_locale_quote(const char *text, char *buffer, size_t size);

#endif
