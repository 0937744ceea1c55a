/* SPDX-License-Identifier: MIT */
/* Error and usage messages (see report.h). */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>
#include "job_context.h"
#include "report.h"
#include "stats.h"

/* A job's messages live in its context (job_context.h): the last one, so that threads
 * that fail the same way (two merges that cannot start `PROG -d`, say) say it once, as
 * GNU sort, which stops at the first, would; those held; the sink; the first cause. */

static void report_note_cause(struct job_context *job, int cause)
{
	if (cause && !job->first_cause)
		job->first_cause = cause;
}

/* One message to the sink, or "gpusort: MESSAGE" and a newline on stderr. */
static void report_deliver(struct job_context *job, const char *message)
{
	stats_progress_interrupt(); /* the message gets a line of its own */
	if (job->sink)
		job->sink(job->sink_context, message);
	else
		fprintf(stderr, "gpusort: %s\n", message);
	stats_progress_resume();
}

/* Delivers the message, or keeps it while held (a message that finds no room is
 * delivered); a cancelled job's are dropped. */
static void report_put(struct job_context *job, const char *message)
{
	size_t length = strlen(message) + 1;
	if (atomic_load(&job->cancelled))
		return;
	if (job->holding) {
		if (job->held_length + length > job->held_size) {
			size_t size = 2 * (job->held_length + length) + 256;
			char *grown = realloc(job->held, size);
			if (grown) {
				job->held = grown;
				job->held_size = size;
			}
		}
		if (job->held_length + length <= job->held_size) {
			memcpy(job->held + job->held_length, message, length);
			job->held_length += length;
			return;
		}
	}
	report_deliver(job, message);
}

/* message, then (unless NULL) then, unless message is the last one said; cause noted. */
static void report_lines(int cause, const char *message, const char *then)
{
	struct job_context *job = job_context_current();
	pthread_mutex_lock(&job->lock);
	report_note_cause(job, cause);
	size_t length = strlen(message);
	/* a message too long to remember is always put out */
	if (length >= sizeof job->last || strcmp(message, job->last) != 0) {
		if (length < sizeof job->last)
			memcpy(job->last, message, length + 1);
		else
			job->last[0] = '\0';
		report_put(job, message);
		if (then)
			report_put(job, then);
	}
	pthread_mutex_unlock(&job->lock);
}

/* The message vsnprintf makes of format and args, in buffer or (longer) allocated;
 * NULL when it cannot be made. */
static char *report_format(char *buffer, size_t size, const char *format, va_list args)
{
	va_list again;
	va_copy(again, args);
	int length = vsnprintf(buffer, size, format, args);
	char *message = length < 0 ? NULL : buffer;
	if (length >= 0 && (size_t)length >= size && (message = malloc((size_t)length + 1)) != NULL)
		vsnprintf(message, (size_t)length + 1, format, again);
	va_end(again);
	return message;
}

static void report_with_cause(int cause, const char *format, va_list args)
{
	char buffer[JOB_MESSAGE_SIZE];
	char *message = report_format(buffer, sizeof buffer, format, args);
	if (!message) {
		struct job_context *job = job_context_current();
		pthread_mutex_lock(&job->lock);
		report_note_cause(job, cause);
		pthread_mutex_unlock(&job->lock);
		return;
	}
	report_lines(cause, message, NULL);
	if (message != buffer)
		free(message);
}

void report(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	report_with_cause(0, format, args);
	va_end(args);
}

void report_error(int error, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	report_with_cause(error, format, args);
	va_end(args);
}

void report_errno(int error)
{
	report_error(error, "%s", strerror(-error));
}

void report_internal(const char *format, ...)
{
	char what[JOB_MESSAGE_SIZE - 32];
	va_list args;
	va_start(args, format);
	vsnprintf(what, sizeof what, format, args);
	va_end(args);
	report_error(REPORT_INTERNAL, "internal error: %s", what);
}

void report_hold(void)
{
	struct job_context *job = job_context_current();
	pthread_mutex_lock(&job->lock);
	job->holding = true;
	pthread_mutex_unlock(&job->lock);
}

void report_release(bool print)
{
	struct job_context *job = job_context_current();
	pthread_mutex_lock(&job->lock);
	job->holding = false;
	for (size_t at = 0; print && at < job->held_length; at += strlen(job->held + at) + 1)
		report_deliver(job, job->held + at);
	job->held_length = 0;
	pthread_mutex_unlock(&job->lock);
}

void report_set_sink(report_sink sink, void *context)
{
	struct job_context *job = job_context_current();
	pthread_mutex_lock(&job->lock);
	job->sink = sink;
	job->sink_context = context;
	pthread_mutex_unlock(&job->lock);
}

int report_cause(void)
{
	struct job_context *job = job_context_current();
	pthread_mutex_lock(&job->lock);
	int cause = job->first_cause;
	pthread_mutex_unlock(&job->lock);
	return cause;
}

/* Room for a quoted path: each byte may take four ("\\ooo"), and the quotes. */
#define QUOTED_NAME_SIZE (4 * 4096 + 64)

void report_file_error(const char *name, int error)
{
	report_file_failure(NULL, name, error);
}

void report_file_failure(const char *what, const char *name, int error)
{
	char quoted[QUOTED_NAME_SIZE];
	const char *shown = report_shell_quote(name ? name : "-", false, quoted, sizeof quoted);
	const char *why = error == -EBADMSG ? "corrupted data (checksum mismatch)" : strerror(-error);
	if (what)
		report_error(error, "%s: %s: %s", what, shown, why);
	else
		report_error(error, "%s: %s", shown, why);
}

void report_output_failure(const char *name, int error, bool flushing)
{
	char quoted[QUOTED_NAME_SIZE];
	const char *shown = report_shell_quote(name ? name : "-", false, quoted, sizeof quoted);
	char message[QUOTED_NAME_SIZE + 256];
	snprintf(message, sizeof message, "%s failed: %s: %s", flushing ? "fflush" : "write", shown, strerror(-error));
	report_lines(error, message, "write error");
}

void report_input_open_error(const char *name, int error, bool checking_order)
{
	const char *what = error == -EISDIR ? "read failed" : checking_order ? "open failed" : "cannot read";
	if (error == -EBADF && strcmp(name, "-") == 0) /* a closed stdin, as GNU sort meets it */
		what = checking_order ? "read failed" : "stat failed";
	report_file_failure(what, name, error);
}

void report_partial_record(const char *name, uint64_t bytes, size_t record_size)
{
	char quoted[QUOTED_NAME_SIZE];
	const char *shown = report_input_name(name, quoted, sizeof quoted);
	report("%s: size %" PRIu64 " bytes is not a multiple of the record size %zu", shown, bytes,
	       record_size);
}

const char *report_input_name(const char *name, char *buffer, size_t size)
{
	return strcmp(name, "-") == 0 ? "standard input" : report_shell_quote(name, false, buffer, size);
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

/* GNU's shell quoting (the shell_escape styles of gnulib's quotearg, which quotef and
 * quoteaf use), as GNU sort 9.x prints it. One character of the text at a time. */
struct shell_quoting {
	char *buffer;
	size_t size, used;
	bool pending; /* inside a $'...' group of escapes, closed by '' before a plain character */
	bool quote_seen, compatible; /* a single quote seen; every character fine in "..." too */
};

/* The length of the character at text[i] (1 for a byte that starts none), and whether
 * it is printable in the current locale. */
static size_t shell_character(const char *text, size_t i, size_t length, bool *printable)
{
	unsigned char c = (unsigned char)text[i];
	if (c < 0x80) {
		*printable = isprint(c) != 0;
		return 1;
	}
	mbstate_t state;
	memset(&state, 0, sizeof state);
	wchar_t wide;
	size_t taken = mbrtowc(&wide, text + i, length - i, &state);
	if (taken == (size_t)-1 || taken == (size_t)-2 || taken == 0) {
		*printable = false;
		return 1;
	}
	*printable = iswprint((wint_t)wide) != 0;
	return taken;
}

/* Whether the printable ASCII character c at position i of a text of length bytes is
 * one a shell would read specially (so the text must be quoted); colon too, as
 * quotef quotes it. */
static bool shell_special(unsigned char c, size_t i, size_t length)
{
	if (strchr(" !\"$&'()*;<=>?[\\^`|:", c))
		return true;
	return ((c == '#' || c == '~') && i == 0) || ((c == '{' || c == '}') && length == 1);
}

/* Whether c may stand in "..." as itself (gnulib's c_and_shell_quote_compat). */
static bool shell_double_quotable(unsigned char c, size_t i, size_t length)
{
	if (c >= 0x80 || c == ' ' || c == '\'' || isalnum(c))
		return true;
	if ((c == '#' || c == '~') && i == 0)
		return true;
	if ((c == '{' || c == '}') && length == 1)
		return true;
	return !strchr("!\"$&()*;<=>?[\\^`|{}#~", c);
}

/* One pass of the quoting, from the opening quote to the closing one, starting with
 * pending as given (gnulib re-runs its loop without resetting it). */
static void shell_quote_pass(struct shell_quoting *q, const char *text, bool pending)
{
	size_t length = strlen(text);
	q->used = 0;
	q->pending = pending;
	q->quote_seen = false;
	q->compatible = true;
	put(q->buffer, q->size, &q->used, "'");
	for (size_t i = 0; i < length;) {
		bool printable;
		size_t step = shell_character(text, i, length, &printable);
		unsigned char c = (unsigned char)text[i];
		if (c == '\'') {
			q->quote_seen = true;
			q->pending = false;
			put(q->buffer, q->size, &q->used, "'\\''");
		} else if (!printable) {
			static const char controls[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";
			if (!q->pending)
				put(q->buffer, q->size, &q->used, "'$'");
			q->pending = true;
			q->compatible = false;
			for (size_t b = 0; b < step; b++) {
				unsigned char byte = (unsigned char)text[i + b];
				char piece[8];
				if (byte && strchr(controls, byte))
					snprintf(piece, sizeof piece, "\\%c", letters[strchr(controls, byte) - controls]);
				else
					snprintf(piece, sizeof piece, "\\%03o", byte);
				put(q->buffer, q->size, &q->used, piece);
			}
		} else {
			if (q->pending)
				put(q->buffer, q->size, &q->used, "''");
			q->pending = false;
			q->compatible &= shell_double_quotable(c, i, length);
			char piece[8] = {0};
			memcpy(piece, text + i, step < sizeof piece ? step : sizeof piece - 1);
			put(q->buffer, q->size, &q->used, piece);
		}
		i += step;
	}
	put(q->buffer, q->size, &q->used, "'");
}

const char *report_shell_quote(const char *text, bool always, char *buffer, size_t size)
{
	size_t length = strlen(text), used = 0;
	if (size)
		buffer[0] = '\0';
	bool needed = always || length == 0;
	for (size_t i = 0; i < length && !needed;) {
		bool printable;
		size_t step = shell_character(text, i, length, &printable);
		unsigned char c = (unsigned char)text[i];
		needed = !printable || (c < 0x80 && shell_special(c, i, length));
		i += step;
	}
	if (!needed) {
		put(buffer, size, &used, text);
		return buffer;
	}
	struct shell_quoting q = {buffer, size, 0, false, false, true};
	shell_quote_pass(&q, text, false);
	if (q.quote_seen && q.compatible) {
		/* a single quote and nothing else special: "text" reads better */
		used = 0;
		put(buffer, size, &used, "\"");
		put(buffer, size, &used, text);
		put(buffer, size, &used, "\"");
	} else if (q.quote_seen) {
		shell_quote_pass(&q, text, q.pending);
	}
	return buffer;
}

const char *report_locale_quote(const char *text, char *buffer, size_t size)
{
	/* gnulib's gettext_quote() without a translation: curly quotes in UTF-8 */
	bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	const char *open = utf8 ? "\xe2\x80\x98" : "'", *close = utf8 ? "\xe2\x80\x99" : "'";
	size_t close_length = strlen(close), used = 0, length = strlen(text);
	mbstate_t state;
	memset(&state, 0, sizeof state);
	if (size)
		buffer[0] = '\0';
	put(buffer, size, &used, open);
	for (size_t i = 0; i < length;) {
		unsigned char c = (unsigned char)text[i];
		char piece[16] = {(char)c, '\0'};
		size_t step = 1;
		static const char controls[] = "\a\b\t\n\v\f\r", letters[] = "abtnvfr";
		if (strncmp(text + i, close, close_length) == 0) {
			snprintf(piece, sizeof piece, "\\%s", close);
			step = close_length;
		} else if (c == '\\') {
			strcpy(piece, "\\\\");
		} else if (c && strchr(controls, c)) {
			snprintf(piece, sizeof piece, "\\%c", letters[strchr(controls, c) - controls]);
		} else if (c < 0x80) {
			if (!isprint(c))
				snprintf(piece, sizeof piece, "\\%03o", c);
		} else {
			wchar_t wide;
			size_t taken = mbrtowc(&wide, text + i, length - i, &state);
			if (taken != (size_t)-1 && taken != (size_t)-2 && taken > 0 && iswprint((wint_t)wide)) {
				memcpy(piece, text + i, taken);
				piece[taken] = '\0';
				step = taken;
			} else {
				memset(&state, 0, sizeof state);
				snprintf(piece, sizeof piece, "\\%03o", c);
			}
		}
		put(buffer, size, &used, piece);
		i += step;
	}
	put(buffer, size, &used, close);
	return buffer;
}

void report_temp_create_error(const char *dir, int error)
{
	char quoted[QUOTED_NAME_SIZE];
	report_error(error, "cannot create temporary file in %s: %s",
		     report_shell_quote(dir, true, quoted, sizeof quoted), strerror(-error));
}

