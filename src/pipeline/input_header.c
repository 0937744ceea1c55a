/* SPDX-License-Identifier: MIT */
/* Header lines off the start of an input (see input_header.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "input_header.h"
#include "../../io/input_file.h"
#include "../text/csv_record.h"

/* Header lines are read in pieces this size; what is read past them goes back to the
 * input (input_file_unread) for the records' reader. */
#define HEADER_PIECE ((size_t)64 << 10)

/* Where the header's lines (or --csv records) end in piece[0, len), `left` of them to
 * go: the bytes they take, *left lessened by those that end there. */
static size_t header_part(struct input_header *header, struct csv_scanner *scanner, const unsigned char *piece,
			  size_t len, size_t *left)
{
	size_t used = 0;
	while (*left && used < len) {
		if (header->csv_separator >= 0) {
			size_t taken;
			int ended = csv_scan_record(scanner, (const char *)piece + used, len - used, false, &taken);
			used += ended < 0 ? len - used : taken; /* the records' reader reports it */
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
	csv_scanner_init(&scanner, (unsigned char)(header->csv_separator >= 0 ? header->csv_separator : ','));
	header->last_newlines = 0;
	unsigned char *piece = malloc(HEADER_PIECE);
	if (!piece)
		return -ENOMEM;
	size_t left = header->lines;
	int error = 0;
	while (left && !error) {
		ssize_t got = input_file_read(file, piece, HEADER_PIECE);
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
		size_t used = header_part(header, &scanner, piece, (size_t)got, &left);
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
	return error;
}

int input_header_take(struct input_header *header, struct input_file *file)
{
	if (!header || !header->lines)
		return 0;
	bool keep = !header->kept;
	header->kept = true;
	return header_read(header, file, keep, &header->bytes, &header->length);
}

int input_header_skip(struct input_header *header, struct input_file *file)
{
	if (!header || !header->lines)
		return 0;
	return header_read(header, file, false, NULL, NULL);
}

void input_header_free(struct input_header *header)
{
	free(header->bytes);
	header->bytes = NULL;
	header->length = 0;
	header->kept = false;
}
