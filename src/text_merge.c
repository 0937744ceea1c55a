/* Text sources for the one loser tree (merge.c): each line a source gives becomes a
 * block of one record, the line with its terminator, taken from where it lies (a last
 * line without one is copied with it); the merged lines go into a text writer. */
#include "text_merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "merge.h"
#include "record_order.h"
#include "text_line_copy.h"
#include "record_stream.h"
#include "../io/input_file.h"

struct line_block_source {
	struct text_source *source;
	unsigned char eol;
	struct text_line_copy unterminated;
};

static int next_line_block(void *context, const unsigned char **bytes, size_t *len)
{
	struct line_block_source *s = context;
	const char *line;
	size_t n;
	int got = s->source->next(s->source->state, &line, &n);
	*len = 0;
	if (got <= 0)
		return got;
	if (got == TEXT_SOURCE_UNTERMINATED) {
		int err = text_line_copy_set(&s->unterminated, line, n + 1);
		if (err)
			return err;
		s->unterminated.data[n] = (char)s->eol;
		line = s->unterminated.data;
	}
	*bytes = (const unsigned char *)line;
	*len = n + 1;
	return 0;
}

/* The merge's sink: merged lines appended to the writer as they are. */
static int write_lines(void *context, const unsigned char *bytes, size_t len, size_t count)
{
	(void)count;
	return text_writer_append(context, (const char *)bytes, len);
}

int text_merge_sources(const struct text_order *order, struct text_source *sources,
		       size_t count, struct text_writer *writer, size_t *failed)
{
	*failed = count;
	struct line_block_source *states = calloc(count ? count : 1, sizeof *states);
	struct merge_source *blocks = calloc(count ? count : 1, sizeof *blocks);
	int err = states && blocks ? 0 : -ENOMEM;
	if (!err) {
		for (size_t i = 0; i < count; i++) {
			states[i] = (struct line_block_source){&sources[i], order->eol, {0}};
			blocks[i] = (struct merge_source){next_line_block, &states[i]};
		}
		struct record_order lines;
		record_order_text(&lines, order);
		err = merge_records(&lines, writer->verify, blocks, count, writer->to_output, 1 << 16, write_lines,
				    writer, failed);
	}
	for (size_t i = 0; states && i < count; i++)
		text_line_copy_free(&states[i].unterminated);
	free(states);
	free(blocks);
	return err;
}

static int next_from_reader(void *state, const char **line, size_t *len)
{
	struct record_stream *reader = state;
	int got = record_stream_next(reader, line, len);
	/* a line that ended the input without a terminator left none to step over */
	if (got == 1 && (size_t)(*line - reader->buffer) + *len == reader->begin)
		return TEXT_SOURCE_UNTERMINATED;
	return got;
}

int text_merge_files(const struct text_order *order, const char *const *names, size_t count,
		     struct text_writer *writer, const char **failed, struct sort_stats *stats)
{
	*failed = NULL;
	struct record_stream *readers = calloc(count ? count : 1, sizeof *readers);
	struct text_source *sources = calloc(count ? count : 1, sizeof *sources);
	size_t opened = 0;
	int err = (readers && sources) ? 0 : -ENOMEM;
	for (size_t i = 0; i < count && !err; i++) {
		struct input_file *file;
		err = input_file_open(names[i], &file);
		if (!err) {
			err = record_stream_init(&readers[i], file, 0, order->eol);
			if (err)
				input_file_close(file);
			else
				opened++;
		}
		if (err)
			*failed = names[i];
		sources[i] = (struct text_source){ next_from_reader, &readers[i] };
	}
	if (!err) {
		size_t failed_index;
		err = text_merge_sources(order, sources, count, writer, &failed_index);
		if (err && failed_index < count)
			*failed = names[failed_index];
	}
	for (size_t i = 0; i < opened; i++) {
		if (stats) {
			stats->seconds[STAGE_READ] += readers[i].read_seconds;
			stats->bytes[STAGE_READ] += readers[i].bytes_read;
		}
		record_stream_close(&readers[i]);
	}
	free(readers);
	free(sources);
	return err;
}
