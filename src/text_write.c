/* The output side of text mode: lines gathered into a large buffer and handed to the
 * output file in big writes. */
#include "text_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "text_compare.h"
#include "../io/output_file.h"

#define WRITER_BUFFER (4u << 20)

int text_writer_init(struct text_writer *writer, struct output_file *output,
		     const struct text_order *order)
{
	memset(writer, 0, sizeof *writer);
	writer->output = output;
	writer->order = order;
	writer->capacity = WRITER_BUFFER;
	writer->buffer = malloc(writer->capacity);
	return writer->buffer ? 0 : -ENOMEM;
}

int text_writer_flush(struct text_writer *writer)
{
	if (writer->used == 0)
		return 0;
	int err = output_file_write(writer->output, writer->buffer, writer->used);
	writer->used = 0;
	return err;
}

static int emit(struct text_writer *writer, const char *line, size_t len)
{
	if (writer->capacity - writer->used < len + 1) {
		int err = text_writer_flush(writer);
		if (err)
			return err;
		if (len + 1 > writer->capacity) {
			err = output_file_write(writer->output, line, len);
			if (!err)
				err = output_file_write(writer->output, &writer->order->eol, 1);
			return err;
		}
	}
	memcpy(writer->buffer + writer->used, line, len);
	writer->used += len;
	writer->buffer[writer->used++] = (char)writer->order->eol;
	return 0;
}

static int remember(struct text_writer *writer, const char *line, size_t len)
{
	if (len > writer->last_capacity) {
		char *grown = realloc(writer->last, len);
		if (!grown)
			return -ENOMEM;
		writer->last = grown;
		writer->last_capacity = len;
	}
	memcpy(writer->last, line, len);
	writer->last_len = len;
	writer->have_last = true;
	return 0;
}

int text_writer_line(struct text_writer *writer, const char *line, size_t len)
{
	if (writer->order->unique) {
		if (writer->have_last && text_compare_lines(writer->order, writer->last,
							    writer->last_len, line, len) == 0)
			return 0;
		int err = remember(writer, line, len);
		if (err)
			return err;
	}
	return emit(writer, line, len);
}

int text_writer_sorted(struct text_writer *writer, const struct text_lines *lines,
		       const uint64_t *sorted, size_t n)
{
	const char *previous = NULL;
	size_t previous_len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *line = text_line(lines, sorted[i], &len);
		if (writer->order->unique) {
			if (previous) {
				if (text_compare_lines(writer->order, previous, previous_len, line, len) == 0)
					continue;
			} else if (writer->have_last && text_compare_lines(writer->order, writer->last,
									     writer->last_len, line, len) == 0) {
				continue;
			}
			previous = line;
			previous_len = len;
		}
		int err = emit(writer, line, len);
		if (err)
			return err;
	}
	if (previous)
		return remember(writer, previous, previous_len);
	return 0;
}

void text_writer_free(struct text_writer *writer)
{
	free(writer->buffer);
	free(writer->last);
	memset(writer, 0, sizeof *writer);
}
