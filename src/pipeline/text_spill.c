/* Spilling sorted chunks as run files and merging them. A run is the chunk's lines in
 * output order (duplicates already dropped under -u), cut into blocks of whole lines by
 * the run sink both modes use (binary_runs.h); merge passes and the parallel merge over
 * key ranges (range_merge.h) are the binary mode's too. Runs keep input order, so
 * merging them stably by run number keeps the whole sort stable. */
#include "config.h"
#include "text_spill.h"
#include "../common/verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "memory_plan.h"
#include "range_merge.h"
#include "../common/report.h"
#include "../text/text_line_sort.h"

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
	record_order_text(&spill->record_order, order);
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
 * into memory, then handed to a run sink, which cuts them into blocks of whole lines.
 * Errors are reported here, where the run's name is known. */
static int write_run(struct text_spill *spill, const struct text_lines *lines, const uint64_t *sorted)
{
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
	if (err) {
		report("%s", strerror(-err));
		return err;
	}
	struct run_sink sink;
	if ((err = run_begin(&spill->list, &spill->record_order, RUN_BLOCK_BYTES, &sink, spill->stats)) != 0)
		return err;
	err = run_sink_write(&sink, (const unsigned char *)memory->buffer, memory->used, 0);
	if (err)
		report_file_error(spill->list.runs[spill->list.count - 1].path, err);
	return run_end(&spill->list, &sink, err);
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
	if (err)
		report("%s", strerror(-err));
	else
		err = write_run(spill, lines, sorted);
	free(sorted);
	stats_add(spill->stats, STAGE_SPILL, started, complete);
	/* The partial last line starts the next chunk. */
	memmove(lines->data, lines->data + complete, full_size - complete);
	lines->size = full_size - complete;
	lines->count = 0;
	return err;
}

/* The merge's sink when it runs on one thread: the writer, whose first failure is kept
 * to be reported by the output's name. */
struct writer_sink {
	struct text_writer *writer;
	int error;
};

static int write_merged(void *context, const unsigned char *bytes, size_t len, size_t count)
{
	(void)count;
	struct writer_sink *sink = context;
	return sink->error = text_writer_append(sink->writer, (const char *)bytes, len);
}

int text_spill_merge(struct text_spill *spill, struct text_writer *writer, const char *name)
{
	/* The chunk's memory is free for the merge's buffers now. */
	text_lines_free(&spill->lines);
	text_writer_free(&spill->run_text);
	struct memory_plan plan = {.budget = spill->budget, .threads = (unsigned)thread_pool_size(spill->pool)};
	int err = merge_passes(&spill->record_order, spill->verify, &spill->list,
			       memory_plan_merge_fan_in(&plan, RUN_BLOCK_BYTES), RUN_BLOCK_BYTES, spill->stats);
	double merged = stats_now(), merged_recorded = stats_seconds_recorded(spill->stats);
	if (!err)
		err = -ENOTSUP;
	if (err == -ENOTSUP && plan.threads > 1)
		err = range_merge_into(&spill->record_order, spill->verify, &spill->list, &plan, writer->output,
				       name, spill->stats);
	if (err == -ENOTSUP) {
		struct writer_sink sink = {writer, 0};
		double output_seconds = writer->output_seconds;
		uint64_t output_bytes = text_writer_total(writer);
		err = merge_runs(&spill->record_order, spill->verify, true, &spill->list, 0, spill->list.count,
				 memory_plan_merge_output_bytes(&plan), write_merged, &sink);
		if (err && sink.error)
			report_file_error(name, err);
		spill->stats->bytes[STAGE_WRITE] += text_writer_total(writer) - output_bytes;
		spill->stats->seconds[STAGE_WRITE] += writer->output_seconds - output_seconds;
	}
	/* the final merge read every run once; its writes counted in the write stage */
	stats_add_enclosing(spill->stats, STAGE_MERGE, merged, merged_recorded, run_list_bytes(&spill->list));
	spill->stats->merge_passes++;
	return err;
}

void text_spill_free(struct text_spill *spill)
{
	run_list_remove_all(&spill->list, spill->stats);
	text_lines_free(&spill->lines);
	text_writer_free(&spill->run_text);
	memset(spill, 0, sizeof *spill);
}
