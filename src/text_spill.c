/* Spilling sorted chunks as run files and merging them. A run is the chunk's lines in
 * output order (duplicates already dropped under -u), cut into blocks of whole lines;
 * the merge reads each run block by block. Runs keep input order, so merging them
 * stably by run number keeps the whole sort stable. */
#include "text_spill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "text_compare.h"
#include "text_line_sort.h"
#include "text_merge.h"
#include "../io/run_file.h"
#include "../io/temp_files.h"

#define RUN_BLOCK_BYTES (1u << 20)
#define MINIMUM_CHUNK_BYTES (64u << 10)

void text_spill_init(struct text_spill *spill, const struct text_order *order,
		     struct sort_engine *engine, struct thread_pool *pool, size_t budget,
		     struct sort_stats *stats)
{
	memset(spill, 0, sizeof *spill);
	spill->order = order;
	spill->engine = engine;
	spill->pool = pool;
	spill->stats = stats;
	text_lines_init(&spill->lines, order->eol);
	/* Per line the chunk also needs a start (8 bytes) and an item (16), and the text
	 * buffer may grow to twice what it holds: a quarter of the budget for text. */
	spill->chunk_bytes = budget / 4;
	if (spill->chunk_bytes < MINIMUM_CHUNK_BYTES)
		spill->chunk_bytes = MINIMUM_CHUNK_BYTES;
}

size_t text_spill_room(const struct text_spill *spill)
{
	return spill->lines.size < spill->chunk_bytes ? spill->chunk_bytes - spill->lines.size : 0;
}

/* Run writing: the sorted lines copied into blocks of whole lines. */
struct block_builder {
	struct run_writer *writer;
	char *block;
	size_t used;
	uint64_t records;
};

static int builder_flush(struct block_builder *b)
{
	if (b->used == 0)
		return 0;
	int err = run_writer_append_block(b->writer, b->block, b->used, b->records, NULL, 0);
	b->used = 0;
	b->records = 0;
	return err;
}

static int builder_add(struct block_builder *b, const char *line, size_t len, char eol)
{
	if (b->used + len + 1 > RUN_BLOCK_BYTES && b->used) {
		int err = builder_flush(b);
		if (err)
			return err;
	}
	if (len + 1 > RUN_BLOCK_BYTES) { /* a long line is a block of its own */
		char *whole = malloc(len + 1);
		if (!whole)
			return -ENOMEM;
		memcpy(whole, line, len);
		whole[len] = eol;
		int err = run_writer_append_block(b->writer, whole, len + 1, 1, NULL, 0);
		free(whole);
		return err;
	}
	memcpy(b->block + b->used, line, len);
	b->used += len;
	b->block[b->used++] = eol;
	b->records++;
	return 0;
}

static int write_run(struct text_spill *spill, const struct text_lines *lines,
		     const uint64_t *sorted, int fd)
{
	struct block_builder b = { NULL, malloc(RUN_BLOCK_BYTES), 0, 0 };
	if (!b.block)
		return -ENOMEM;
	int err = run_writer_open(fd, NULL, &b.writer);
	const char *previous = NULL;
	size_t previous_len = 0;
	for (size_t i = 0; i < lines->count && !err; i++) {
		size_t len;
		const char *line = text_line(lines, sorted[i], &len);
		if (spill->order->unique) {
			if (previous && text_compare_lines(spill->order, previous, previous_len, line, len) == 0)
				continue;
			previous = line;
			previous_len = len;
		}
		err = builder_add(&b, line, len, (char)spill->order->eol);
	}
	if (!err)
		err = builder_flush(&b);
	if (b.writer) {
		struct run_file_stats stats = { 0 };
		if (err)
			run_writer_abort(b.writer);
		else
			err = run_writer_finish(b.writer, &stats);
		spill->stats->temp_bytes += stats.file_bytes;
		spill->stats->temp_raw_bytes += stats.bytes;
	}
	free(b.block);
	return err;
}

int text_spill_chunk(struct text_spill *spill)
{
	struct text_lines *lines = &spill->lines;
	size_t complete = lines->size;
	while (complete > 0 && (unsigned char)lines->data[complete - 1] != lines->eol)
		complete--;
	if (complete == 0) { /* one line longer than a chunk: let the chunk grow */
		if (lines->size)
			spill->chunk_bytes *= 2;
		return 0;
	}
	size_t full_size = lines->size;
	lines->size = complete;
	double started = stats_now();
	int err = text_lines_index(lines, spill->pool);
	uint64_t *sorted = NULL;
	if (!err)
		err = text_line_sort(spill->order, lines, spill->engine, spill->pool, &sorted);
	started = stats_add(spill->stats, STAGE_SORT, started, lines->count * 16);
	spill->stats->records += lines->count;
	if (!err && spill->run_count == spill->run_capacity) {
		size_t capacity = spill->run_capacity ? 2 * spill->run_capacity : 16;
		struct text_spill_run *grown = realloc(spill->runs, capacity * sizeof *grown);
		if (!grown)
			err = -ENOMEM;
		else
			spill->runs = grown, spill->run_capacity = capacity;
	}
	if (!err) {
		struct text_spill_run *run = &spill->runs[spill->run_count];
		int fd = temp_file_create(run->path, sizeof run->path);
		if (fd < 0) {
			err = fd;
		} else {
			run->fd = fd;
			spill->run_count++;
			err = write_run(spill, lines, sorted, fd);
		}
	}
	free(sorted);
	stats_add(spill->stats, STAGE_SPILL, started, complete);
	spill->stats->runs = spill->run_count;
	/* The partial last line starts the next chunk. */
	memmove(lines->data, lines->data + complete, full_size - complete);
	lines->size = full_size - complete;
	lines->count = 0;
	return err;
}

/* Reading a run back line by line, one block at a time. */
struct run_source {
	struct run_reader *reader;
	size_t block, blocks;
	char *buffer;
	size_t buffer_bytes, position, end;
	unsigned char eol;
};

static int next_from_run(void *state, const char **line, size_t *len)
{
	struct run_source *s = state;
	while (s->position == s->end) {
		if (s->block == s->blocks)
			return 0;
		ssize_t got = run_reader_read_block(s->reader, s->block++, s->buffer, s->buffer_bytes);
		if (got < 0)
			return (int)got;
		s->position = 0;
		s->end = (size_t)got;
	}
	char *start = s->buffer + s->position;
	char *hit = memchr(start, s->eol, s->end - s->position);
	size_t n = hit ? (size_t)(hit - start) : s->end - s->position;
	*line = start;
	*len = n;
	s->position += n + (hit != NULL);
	return 1;
}

int text_spill_merge(struct text_spill *spill, struct text_writer *writer)
{
	size_t count = spill->run_count;
	struct run_source *states = calloc(count, sizeof *states);
	struct text_source *sources = calloc(count, sizeof *sources);
	int err = states && sources ? 0 : -ENOMEM;
	for (size_t i = 0; i < count && !err; i++) {
		struct run_source *s = &states[i];
		s->eol = spill->order->eol;
		err = run_reader_open(spill->runs[i].fd, &s->reader);
		if (err)
			break;
		s->blocks = run_reader_block_count(s->reader);
		s->buffer_bytes = run_reader_max_block_bytes(s->reader);
		s->buffer = malloc(s->buffer_bytes ? s->buffer_bytes : 1);
		if (!s->buffer)
			err = -ENOMEM;
		sources[i] = (struct text_source){ next_from_run, s };
	}
	double started = stats_now();
	if (!err) {
		size_t failed;
		err = text_merge_sources(spill->order, sources, count, writer, &failed);
	}
	stats_add(spill->stats, STAGE_MERGE, started, spill->stats->temp_raw_bytes);
	for (size_t i = 0; states && i < count; i++) {
		if (states[i].reader)
			run_reader_close(states[i].reader);
		free(states[i].buffer);
	}
	free(states);
	free(sources);
	return err;
}

void text_spill_free(struct text_spill *spill)
{
	for (size_t i = 0; i < spill->run_count; i++) {
		close(spill->runs[i].fd);
		temp_file_remove(spill->runs[i].path);
	}
	free(spill->runs);
	text_lines_free(&spill->lines);
	memset(spill, 0, sizeof *spill);
}
