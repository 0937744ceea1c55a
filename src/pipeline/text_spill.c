/* Spilling sorted chunks as run files and merging them. A run is the chunk's lines in
 * output order (duplicates already dropped under -u), cut into blocks of whole lines;
 * the merge (text_run_merge) reads the runs by key ranges in parallel. Runs keep input
 * order, so merging them stably by run number keeps the whole sort stable. */
#include "config.h"
#include "text_spill.h"
#include "../common/verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../common/report.h"
#include "../text/text_compare.h"
#include "../text/text_line_sort.h"
#include "text_run_merge.h"
#include "../../io/run_file.h"
#include "../../io/temp_files.h"

/* Smaller blocks let more key ranges be merged at once within -S (each range holds a
 * block of every run). */
#define RUN_BLOCK_BYTES (64u << 10)
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
	spill->budget = budget;
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

/* Run writing: the sorted lines are gathered in parallel (and -u applied) by a writer
 * into memory, then cut into blocks of whole lines, each block's first line being its
 * index entry (the merge's samples and cut points). */
static int write_run(struct text_spill *spill, const struct text_lines *lines,
		     const uint64_t *sorted, struct text_spill_run *run)
{
	int fd = run->fd;
	const unsigned char eol = spill->order->eol;
	struct text_writer *memory = &spill->run_text;
	int err = 0;
	if (memory->buffer)
		text_writer_clear(memory);
	else
		err = text_writer_init_memory(memory, spill->order, lines->size + 1);
	/* a run is checked where it is merged into the output; here only -u's drops count */
	memory->verify = spill->verify;
	memory->to_output = false;
	if (!err)
		err = text_writer_sorted(memory, lines, sorted, lines->count, spill->pool);
	struct run_writer *writer = NULL;
	if (!err)
		err = run_writer_open(fd, NULL, &writer);
	const char *text = memory->buffer;
	size_t used = memory->used;
	for (size_t at = 0; !err && at < used;) {
		size_t end = at + RUN_BLOCK_BYTES < used ? at + RUN_BLOCK_BYTES : used;
		if (end < used) { /* end after the block's last whole line */
			const char *last = memrchr(text + at, eol, end - at);
			if (last)
				end = (size_t)(last - text) + 1;
			else /* a line longer than a block is a block of its own */
				end = (size_t)((const char *)memchr(text + end, eol, used - end) - text) + 1;
		}
		const char *first_end = memchr(text + at, eol, end - at);
		err = run_writer_append_block(writer, text + at, end - at,
					      text_count_terminators(text + at, end - at, eol),
					      text + at, (size_t)(first_end - (text + at)));
		at = end;
	}
	if (writer) {
		struct run_file_stats stats = { 0 };
		if (err)
			run_writer_abort(writer);
		else
			err = run_writer_finish(writer, &stats);
		spill->stats->temp_bytes += stats.file_bytes;
		spill->stats->temp_raw_bytes += stats.bytes;
		run->file_bytes = stats.file_bytes;
		stats_temp_add(spill->stats, stats.file_bytes);
	}
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
	started = stats_add(spill->stats, STAGE_PREPARE, started, complete);
	uint64_t *sorted = NULL;
	if (!err)
		text_lines_fingerprint(lines, spill->pool, spill->verify);
	if (!err)
		err = text_line_sort(spill->order, lines, spill->engine, spill->pool, &sorted);
	if (!err)
		sort_verify_plant_test_bug(sorted, lines->count, sizeof *sorted);
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
	if (err)
		report("%s", strerror(-err));
	if (!err) {
		struct text_spill_run *run = &spill->runs[spill->run_count];
		int fd = temp_file_create(run->path, sizeof run->path);
		if (fd < 0) {
			err = fd;
			report_temp_create_error(run->path, err);
		} else {
			run->fd = fd;
			run->file_bytes = 0;
			spill->run_count++;
			err = write_run(spill, lines, sorted, run);
			if (err)
				report_file_error(run->path, err);
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

int text_spill_merge(struct text_spill *spill, struct text_writer *writer)
{
	size_t count = spill->run_count;
	/* The chunk's memory is free for the merge's buffers now. */
	text_lines_free(&spill->lines);
	text_writer_free(&spill->run_text);
	struct run_reader **readers = calloc(count ? count : 1, sizeof *readers);
	int err = readers ? 0 : -ENOMEM;
	for (size_t i = 0; i < count && !err; i++)
		err = run_reader_open(spill->runs[i].fd, &readers[i]);
	double started = stats_now(), recorded = stats_seconds_recorded(spill->stats);
	double output_seconds = writer->output_seconds;
	uint64_t output_bytes = text_writer_total(writer);
	if (!err)
		err = text_run_merge(spill->order, readers, count, writer, spill->pool, spill->budget);
	/* The merge hands each round to the writer in turn: the writes are the write
	 * stage's, the rest the merge's, which read every run once. */
	spill->stats->bytes[STAGE_WRITE] += text_writer_total(writer) - output_bytes;
	spill->stats->seconds[STAGE_WRITE] += writer->output_seconds - output_seconds;
	stats_add_enclosing(spill->stats, STAGE_MERGE, started, recorded, spill->stats->temp_raw_bytes);
	spill->stats->merge_passes++;
	for (size_t i = 0; readers && i < count; i++)
		if (readers[i])
			run_reader_close(readers[i]);
	free(readers);
	return err;
}

void text_spill_free(struct text_spill *spill)
{
	for (size_t i = 0; i < spill->run_count; i++) {
		close(spill->runs[i].fd);
		temp_file_remove(spill->runs[i].path);
		stats_temp_remove(spill->stats, spill->runs[i].file_bytes);
	}
	free(spill->runs);
	text_lines_free(&spill->lines);
	text_writer_free(&spill->run_text);
	memset(spill, 0, sizeof *spill);
}
