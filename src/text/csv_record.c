/* SPDX-License-Identifier: MIT */
/* The RFC 4180 record scanner: between quoted fields it only looks for quotes and LFs,
 * 16 bytes a step, so unquoted data costs one vector scan per record; the state between
 * two bytes is kept so that a stream cut anywhere scans the same as whole. */
#include <errno.h>
#include "csv_record.h"
#include "text_lines.h"

/* The first quote or LF in [p, lim), or lim. */
static inline const char *find_quote_or_newline(const char *p, const char *lim)
{
	return csv_find_any(p, lim, '"', '\n', '\n');
}

void csv_scanner_init(struct csv_scanner *scanner, unsigned char separator, bool lenient)
{
	*scanner = (struct csv_scanner){ .separator = separator, .lenient = lenient, .state = CSV_RECORD_START, .line = 1,
					 .record_line = 1, .malformation = CSV_OK };
}

const char *csv_malformation_text(enum csv_malformation malformation)
{
	switch (malformation) {
	case CSV_UNCLOSED_QUOTE: return "unclosed quote";
	case CSV_QUOTE_IN_UNQUOTED: return "quote in unquoted field";
	case CSV_AFTER_CLOSING_QUOTE: return "character after closing quote";
	default: return "well-formed";
	}
}

static int malformed(struct csv_scanner *scanner, enum csv_malformation what, uint64_t offset)
{
	scanner->malformation = what;
	scanner->error_offset = offset;
	return -EILSEQ;
}

/* The record ends just before stream offset `next` (after its LF when newline). */
static int end_record(struct csv_scanner *scanner, uint64_t next, bool newline)
{
	scanner->line += newline;
	scanner->state = CSV_RECORD_START;
	scanner->offset = next;
	scanner->record_offset = next;
	scanner->record_line = scanner->line;
	return 1;
}

/* One step outside quotes from *p: to the next quote or LF. */
static int step_unquoted(struct csv_scanner *scanner, const char *data, const char **p, const char *lim)
{
	const char *q = find_quote_or_newline(*p, lim);
	if (q == lim) {
		if (q > *p)
			scanner->state = lim[-1] == (char)scanner->separator ? CSV_FIELD_START : CSV_UNQUOTED;
		*p = lim;
		return 0;
	}
	uint64_t at = scanner->offset + (uint64_t)(q - data);
	if (*q == '\n') {
		*p = q + 1;
		return end_record(scanner, at + 1, true);
	}
	bool field_start = q == *p ? scanner->state != CSV_UNQUOTED : q[-1] == (char)scanner->separator;
	if (!field_start && !scanner->lenient)
		return malformed(scanner, CSV_QUOTE_IN_UNQUOTED, at);
	scanner->state = CSV_QUOTED;
	scanner->quote_offset = at;
	*p = q + 1;
	return 0;
}

/* One step inside quotes from *p: to the next quote, counting the LFs on the way. */
static void step_quoted(struct csv_scanner *scanner, const char **p, const char *lim)
{
	const char *q = find_quote_or_newline(*p, lim);
	if (q == lim) {
		*p = lim;
		return;
	}
	if (*q == '"')
		scanner->state = CSV_QUOTE_SEEN;
	else
		scanner->line++;
	*p = q + 1;
}

/* The byte at *p after a quote in a quoted field, or after its closing quote and a CR.
 * Lenient, what would be malformed there goes on as the field's unquoted bytes. */
static int step_after_quote(struct csv_scanner *scanner, const char *data, const char **p)
{
	char c = **p, separator = (char)scanner->separator;
	uint64_t at = scanner->offset + (uint64_t)(*p - data);
	(*p)++;
	if (c == '\n')
		return end_record(scanner, at + 1, true);
	if (scanner->state == CSV_QUOTE_SEEN && (c == '"' || c == '\r' || c == separator)) {
		scanner->state = c == '"' ? CSV_QUOTED : c == '\r' ? CSV_CR_AFTER_QUOTE : CSV_FIELD_START;
		return 0;
	}
	if (!scanner->lenient)
		return malformed(scanner, CSV_AFTER_CLOSING_QUOTE, at);
	scanner->state = c == separator ? CSV_FIELD_START : c == '"' ? CSV_QUOTED : CSV_UNQUOTED;
	if (c == '"')
		scanner->quote_offset = at;
	return 0;
}

/* All of the chunk taken without a record end: at the end of the input, the record
 * pending ends there (an open quote is an error). */
static int end_of_chunk(struct csv_scanner *scanner, size_t len, bool at_end)
{
	uint64_t next = scanner->offset + len;
	if (!at_end || scanner->state == CSV_RECORD_START) {
		scanner->offset = next;
		return 0;
	}
	if (scanner->state == CSV_QUOTED && !scanner->lenient)
		return malformed(scanner, CSV_UNCLOSED_QUOTE, scanner->quote_offset);
	return end_record(scanner, next, false);
}

int csv_scan_record(struct csv_scanner *scanner, const char *data, size_t len, bool at_end, size_t *taken)
{
	const char *p = data, *lim = data + len;
	int result = 0;
	while (p < lim && result == 0) {
		switch (scanner->state) {
		case CSV_QUOTED:
			step_quoted(scanner, &p, lim);
			break;
		case CSV_QUOTE_SEEN:
		case CSV_CR_AFTER_QUOTE:
			result = step_after_quote(scanner, data, &p);
			break;
		default:
			result = step_unquoted(scanner, data, &p, lim);
		}
	}
	if (result == 0)
		result = end_of_chunk(scanner, len, at_end);
	*taken = (size_t)(p - data);
	return result;
}

/* From a record's start, the records that hold no quote, one LF search each: the common
 * case without the state machine's steps. Returns the bytes taken from data. */
static size_t scan_plain_records(struct csv_scanner *scanner, const char *data, size_t len, size_t *ends,
				 size_t max, size_t *found)
{
	const char *p = data, *lim = data + len;
	size_t first = *found, n = first;
	while (n < max) {
		const char *q = find_quote_or_newline(p, lim);
		if (q == lim || *q != '\n')
			break;
		p = q + 1;
		ends[n++] = (size_t)(p - data);
	}
	if (n > first)
		end_record(scanner, scanner->offset + (uint64_t)(p - data), false);
	scanner->line += n - first;
	scanner->record_line = scanner->line;
	*found = n;
	return (size_t)(p - data);
}

int csv_scan_records(struct csv_scanner *scanner, const char *data, size_t len, bool at_end, size_t *ends,
		     size_t max, size_t *count, size_t *taken)
{
	size_t done = 0, found = 0;
	int result = 0;
	while (found < max) {
		if (scanner->state == CSV_RECORD_START) {
			size_t before = found;
			size_t plain = scan_plain_records(scanner, data + done, len - done, ends, max, &found);
			for (size_t i = before; i < found; i++)
				ends[i] += done;
			done += plain;
			if (found == max)
				break;
		}
		size_t step;
		result = csv_scan_record(scanner, data + done, len - done, at_end, &step);
		if (result <= 0)
			break;
		done += step;
		ends[found++] = done;
	}
	*count = found;
	*taken = found == max ? done : len;
	return result < 0 ? result : 0;
}

size_t csv_count_quotes(const char *data, size_t len)
{
	return text_count_terminators(data, len, '"');
}

int csv_next_record_start(const char *data, size_t len, bool in_quotes, size_t *start)
{
	const char *p = data, *lim = data + len;
	while (p < lim) {
		const char *q = find_quote_or_newline(p, lim);
		if (q == lim)
			break;
		if (*q == '"') {
			in_quotes = !in_quotes;
		} else if (!in_quotes) {
			*start = (size_t)(q + 1 - data);
			return 0;
		}
		p = q + 1;
	}
	return -EAGAIN;
}
