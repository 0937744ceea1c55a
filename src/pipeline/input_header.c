/* SPDX-License-Identifier: MIT */
/* Header lines off the start of an input (see input_header.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "input_header.h"
#include "../../io/input_file.h"

/* Header lines are read in pieces this size; what is read past them goes back to the
 * input (input_file_unread) for the records' reader. */
#define HEADER_PIECE ((size_t)64 << 10)

/* Reads the header's lines off file, appending them to *bytes when keep. */
static int header_read(const struct input_header *header, struct input_file *file, bool keep,
		       unsigned char **bytes, size_t *length)
{
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
		size_t used = 0;
		while (left && used < (size_t)got) {
			const unsigned char *end = memchr(piece + used, header->eol, (size_t)got - used);
			used = end ? (size_t)(end - piece) + 1 : (size_t)got;
			if (end)
				left--;
		}
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

int input_header_skip(const struct input_header *header, struct input_file *file)
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
