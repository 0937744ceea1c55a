/* Line reading over input_file: lines are returned in place in the buffer; unread
 * bytes move to the front before each refill, and the buffer doubles when one line
 * does not fit. */
#include "text_line_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../common/stats.h"
#include "../../io/input_file.h"

#define READER_BLOCK (1u << 20)

int text_line_reader_init(struct text_line_reader *reader, struct input_file *file,
			  unsigned char eol)
{
	memset(reader, 0, sizeof *reader);
	reader->file = file;
	reader->eol = eol;
	reader->capacity = 2 * READER_BLOCK;
	reader->buffer = malloc(reader->capacity);
	return reader->buffer ? 0 : -ENOMEM;
}

static int refill(struct text_line_reader *reader)
{
	size_t unread = reader->end - reader->begin;
	if (reader->begin)
		memmove(reader->buffer, reader->buffer + reader->begin, unread);
	reader->begin = 0;
	reader->end = unread;
	if (reader->capacity - reader->end < READER_BLOCK) {
		char *grown = realloc(reader->buffer, 2 * reader->capacity);
		if (!grown)
			return -ENOMEM;
		reader->buffer = grown;
		reader->capacity *= 2;
	}
	size_t want = reader->capacity - reader->end;
	double started = stats_now();
	ssize_t got = input_file_read(reader->file, reader->buffer + reader->end, want);
	reader->read_seconds += stats_now() - started;
	if (got < 0)
		return (int)got;
	reader->bytes_read += (uint64_t)got;
	reader->end += (size_t)got;
	if ((size_t)got < want)
		reader->at_end = true;
	return 0;
}

int text_line_reader_next(struct text_line_reader *reader, const char **line, size_t *len)
{
	size_t scanned = 0;
	for (;;) {
		char *start = reader->buffer + reader->begin;
		size_t unread = reader->end - reader->begin;
		char *hit = memchr(start + scanned, reader->eol, unread - scanned);
		if (hit) {
			*line = start;
			*len = (size_t)(hit - start);
			reader->begin += *len + 1;
			return 1;
		}
		if (reader->at_end) {
			if (unread == 0)
				return 0;
			*line = start;
			*len = unread;
			reader->begin = reader->end;
			return 1;
		}
		scanned = unread;
		int err = refill(reader);
		if (err)
			return err;
	}
}

void text_line_reader_close(struct text_line_reader *reader)
{
	if (reader->file)
		input_file_close(reader->file);
	free(reader->buffer);
	memset(reader, 0, sizeof *reader);
}
