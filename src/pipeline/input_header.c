/* SPDX-License-Identifier: MIT */
/* Header lines off the start of an input (see input_header.h). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv_input.h"
#include "input_header.h"
#include "../../io/input_file.h"
#include "../text/csv_field.h"
#include "../text/csv_record.h"
#include "../common/report.h"

/* Header lines are read in pieces this size; what is read past them goes back to the
 * input (input_file_unread) for the records' reader. */
#define HEADER_PIECE ((size_t)64 << 10)

/* Where the header's lines (or --csv records) end in piece[0, len), `left` of them to
 * go: the bytes they take, *left lessened by those that end there; -EILSEQ for a
 * malformed --csv record (the scanner says what and where). */
static ssize_t header_part(struct input_header *header, struct csv_scanner *scanner, const unsigned char *piece,
			   size_t len, size_t *left)
{
	size_t used = 0;
	while (*left && used < len) {
		if (header->csv_separator >= 0) {
			size_t taken;
			int ended = csv_scan_record(scanner, (const char *)piece + used, len - used, false, &taken);
			if (ended < 0)
				return ended;
			used += taken;
			if (ended == 1)
				(*left)--;
			continue;
		}
		const unsigned char *end = memchr(piece + used, header->eol, len - used);
		used = end ? (size_t)(end - piece) + 1 : len;
		if (end)
			(*left)--;
	}
	for (const unsigned char *p = piece; (p = memchr(p, '\n', (size_t)(piece + used - p))) != NULL; p++)
		header->last_newlines++;
	return used;
}

/* Reads the header's lines off file, appending them to *bytes when keep. */
static int header_read(struct input_header *header, struct input_file *file, bool keep,
		       unsigned char **bytes, size_t *length)
{
	struct csv_scanner scanner;
	csv_scanner_init(&scanner, (unsigned char)(header->csv_separator >= 0 ? header->csv_separator : ','), header->csv_lenient);
	header->last_newlines = 0;
	unsigned char *piece = malloc(HEADER_PIECE);
	if (!piece)
		return -ENOMEM;
	size_t left = header->lines;
	int error = 0;
	while (left && !error) {
		ssize_t got = input_file_read(file, piece, HEADER_PIECE);
		if (got == 0 && header->csv_separator >= 0) {
			/* the input's end ends the last record, unless it is inside quotes */
			size_t taken;
			if (csv_scan_record(&scanner, "", 0, true, &taken) < 0 || csv_scanner_in_quotes(&scanner)) {
				if (scanner.malformation == CSV_OK)
					scanner.malformation = CSV_UNCLOSED_QUOTE;
				got = -EILSEQ;
			}
		}
		if (got <= 0) {
			error = (int)got;
			if (!got && keep && *length && (*bytes)[*length - 1] != header->eol) {
				/* the input ended within its last header line: end it */
				unsigned char *grown = realloc(*bytes, *length + 1);
				if (!grown)
					error = -ENOMEM;
				else
					(*bytes = grown)[(*length)++] = header->eol;
			}
			break;
		}
		ssize_t part = header_part(header, &scanner, piece, (size_t)got, &left);
		if (part < 0) {
			error = (int)part;
			break;
		}
		size_t used = (size_t)part;
		if (keep && used) {
			unsigned char *grown = realloc(*bytes, *length + used);
			if (!grown) {
				error = -ENOMEM;
				break;
			}
			memcpy(grown + *length, piece, used);
			*bytes = grown;
			*length += used;
		}
		if (used < (size_t)got)
			error = input_file_unread(file, piece + used, (size_t)got - used);
	}
	free(piece);
	if (error == -EILSEQ) {
		header->malformation = scanner.malformation;
		header->malformed_line = scanner.record_line;
	}
	return error;
}

/* The keys' column names resolved by the header's first record, header[0, length):
 * 0, or -ENOENT reported with the columns there are. */
static int resolve_names(struct input_header *header, const unsigned char *bytes, size_t length, const char *name)
{
	bool named = false;
	for (size_t i = 0; i < header->key_count; i++)
		named |= keydef_named(&header->keys[i]);
	if (!named)
		return 0;
	struct csv_scanner scanner;
	csv_scanner_init(&scanner, (unsigned char)header->csv_separator, header->csv_lenient);
	size_t record = length;
	if (csv_scan_record(&scanner, (const char *)bytes, length, true, &record) < 0)
		record = length;
	while (record && (bytes[record - 1] == '\n' || bytes[record - 1] == '\r'))
		record--;
	size_t count = 0, capacity = 16;
	struct keydef_name *columns = malloc(capacity * sizeof *columns);
	char *contents = malloc(record + 1);
	struct csv_fields fields;
	struct csv_field field;
	size_t used = 0;
	csv_fields_init(&fields, (const char *)bytes, record, (unsigned char)header->csv_separator);
	while (columns && contents && csv_fields_next(&fields, &field)) {
		if (count == capacity) {
			struct keydef_name *grown = realloc(columns, 2 * capacity * sizeof *columns);
			if (!grown)
				break;
			columns = grown;
			capacity *= 2;
		}
		const char *content;
		size_t size = csv_field_content(&field, contents + used, &content);
		columns[count++] = (struct keydef_name){content, size};
		if (content == contents + used)
			used += size;
	}
	const struct keydef_name *unknown = NULL;
	int error = columns && contents ? keydef_resolve_names(header->keys, header->key_count, columns, count, &unknown)
					: -ENOMEM;
	if (error == -ENOENT) {
		/* "unknown column 'x' in the header of FILE (its columns: a, b, c)" */
		size_t size = 64 + unknown->length + record + 3 * count + strlen(name);
		char *message = malloc(size);
		if (message) {
			char quoted[4096 + 64];
			int at = snprintf(message, size, "unknown column '%.*s' in the header of %s (its columns: ",
					  (int)unknown->length, unknown->text,
					  report_input_name(name, quoted, sizeof quoted));
			for (size_t i = 0; i < count && at > 0 && (size_t)at < size; i++)
				at += snprintf(message + at, size - (size_t)at, "%s%.*s", i ? ", " : "",
					       (int)columns[i].length, columns[i].text);
			report("%s)", message);
			free(message);
		} else {
			report_errno(-ENOMEM);
		}
	} else if (error) {
		report_errno(error);
	}
	free(columns);
	free(contents);
	return error;
}

/* Reads the header off file, keeping it when keep; the first input's names the keys. */
static int header_take(struct input_header *header, struct input_file *file, const char *name, bool keep)
{
	if (!header || !header->lines)
		return 0;
	bool first = !header->kept;
	header->kept = true;
	unsigned char *bytes = NULL;
	size_t length = 0;
	int error = header_read(header, file, keep || first, &bytes, &length);
	if (error == -EILSEQ && header->csv_separator >= 0)
		csv_input_report_malformed(name, header->malformed_line, header->malformation);
	else if (error)
		report_file_failure("read failed", name, error);
	else if (first)
		error = resolve_names(header, bytes, length, name);
	if (keep && first && !error) {
		header->bytes = bytes;
		header->length = length;
	} else {
		free(bytes);
	}
	return error;
}

int input_header_take(struct input_header *header, struct input_file *file, const char *name)
{
	return header_take(header, file, name, true);
}

int input_header_skip(struct input_header *header, struct input_file *file, const char *name)
{
	return header_take(header, file, name, false);
}

void input_header_free(struct input_header *header)
{
	free(header->bytes);
	header->bytes = NULL;
	header->length = 0;
	header->kept = false;
}
