/* The external sort of binary records (see external_sort.h): run formation (each sorted
 * chunk spilled as a compressed run file by a spill thread while the next chunk is read
 * and sorted), merge passes while the runs exceed the fan-in the memory budget allows,
 * and the final merge into the output (over key ranges in threads, range_merge.c, or
 * one loser tree in order); and -m, the merge of already sorted inputs. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "binary_runs.h"
#include "binary_sort.h"
#include "external_sort.h"
#include "merge.h"
#include "range_merge.h"
#include "record_output.h"
#include "../common/report.h"

/* Opens the output, merges the sources into it and commits it, or aborts it (the old
 * file, if any, stays as it was). */
static int merge_sources_into_output(const struct options *options,
				     const struct record_layout *layout,
				     struct merge_source *sources, size_t k, size_t block_bytes,
				     struct sort_stats *stats)
{
	struct record_output output;
	int error = record_output_open(&output, options, layout->record_size, stats);
	if (error)
		return error;
	output.verify = layout->verify;
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	uint64_t read_before = stats->bytes[STAGE_READ];
	error = merge_records(layout, sources, k, options->unique, true, block_bytes, record_output_write,
			      &output);
	stats->merge_passes++;
	error = record_output_finish(&output, error);
	/* the sources' reads and the output's writes counted in their own stages */
	stats_add_enclosing(stats, STAGE_MERGE, started, recorded, stats->bytes[STAGE_READ] - read_before);
	return error;
}

/* The final merge of every run into the output: over key ranges in threads (written at
 * their offsets into a regular file, or in range order to stdout and under -u), or one
 * loser tree in order with a single thread. */
static int merge_into_output(const struct options *options, const struct record_layout *layout,
			     struct run_list *list, const struct memory_plan *plan,
			     size_t block_bytes, struct sort_stats *stats)
{
	struct record_output output;
	int error = record_output_open(&output, options, layout->record_size, stats);
	if (error)
		return error;
	output.verify = layout->verify;
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	error = -ENOTSUP;
	if (plan->threads > 1)
		error = range_merge_into(layout, list, plan, options->unique, output.file, output.name, stats);
	if (error == -ENOTSUP)
		error = merge_runs(layout, options->unique, true, list, 0, list->count,
				   memory_plan_merge_output_bytes(plan) > block_bytes
					   ? memory_plan_merge_output_bytes(plan) : block_bytes,
				   record_output_write, &output);
	stats->merge_passes++;
	error = record_output_finish(&output, error);
	/* the output's writes counted in the write stage */
	stats_add_enclosing(stats, STAGE_MERGE, started, recorded, run_list_bytes(list));
	return error;
}

/* ---- run formation ---- */

/* One sorted chunk to spill as a run (on the spill thread, or in line). */
struct spill_job {
	const struct options *options;
	const struct record_layout *layout;
	struct run_list *list;
	size_t block_bytes;
	struct sort_stats *stats;
	unsigned char *records;
	void *items;
	enum record_form form;
	size_t n;
	int error;
};

static int spill_chunk(struct spill_job *job)
{
	double started = stats_now();
	struct run_sink sink;
	int error = run_begin(job->list, job->layout, job->block_bytes, &sink, job->stats);
	if (error)
		return error;
	void *items = record_form_in_place(job->form) ? (void *)job->records : job->items;
	error = record_items_emit(job->layout, job->form, job->records, items, job->n,
				  job->options->unique, false, run_sink_write, &sink);
	error = run_end(job->list, &sink, error);
	stats_add(job->stats, STAGE_SPILL, started, job->n * job->layout->record_size);
	return error;
}

static void *spill_thread_main(void *context)
{
	struct spill_job *job = context;
	job->error = spill_chunk(job);
	return NULL;
}

/* A chunk of records (chunk + 1 of them: one is read ahead) and its item array. */
struct chunk_buffer {
	unsigned char *records;
	void *items;
};

int external_sort_binary(const struct options *options, const struct record_layout *layout,
			 struct sort_engine *engine, struct record_reader *reader,
			 const struct memory_plan *plan, unsigned char **records_buffer,
			 void **items_buffer, struct sort_stats *stats)
{
	size_t size = layout->record_size, chunk = plan->chunk_records;
	struct run_list list = {NULL, 0};
	int64_t total = record_reader_total_bytes(reader);
	size_t expected_runs = total > 0 ? (size_t)total / size / chunk + 1 : 0;
	size_t block_bytes = memory_plan_run_block_bytes(plan, expected_runs);

	/* The second chunk lets chunk i spill while chunk i + 1 is read and sorted; without
	 * the memory for it, the chunks take turns in one buffer. */
	struct chunk_buffer buffers[2] = {{*records_buffer, *items_buffer}, {NULL, NULL}};
	bool overlap = plan->overlap;
	if (overlap) {
		buffers[1].records = sort_engine_host_alloc(engine, (chunk + 1) * size);
		buffers[1].items = plan->items_bytes ? sort_engine_host_alloc(engine, plan->items_bytes) : NULL;
		overlap = buffers[1].records && (!plan->items_bytes || buffers[1].items);
	}
	struct spill_job job = {options, layout, &list, block_bytes, stats, NULL, NULL, 0, 0, 0};
	pthread_t spill_thread;
	bool spilling = false;
	size_t current = 0, have = chunk + 1;
	int error = 0;

	while (have > 0 && !error) {
		size_t n = have < chunk ? have : chunk, extra = have - n;
		struct chunk_buffer *buffer = &buffers[current];
		enum record_form form;
		error = binary_sort_chunk(engine, layout, buffer->records, n, buffer->items, &form, stats);
		if (error) {
			report("sort engine (%s): %s", sort_engine_describe(engine), strerror(-error));
			break;
		}
		if (spilling) {
			pthread_join(spill_thread, NULL);
			spilling = false;
			if ((error = job.error))
				break;
		}
		/* The record read past the chunk starts the next one. */
		size_t next = overlap ? 1 - current : current;
		if (overlap)
			memcpy(buffers[next].records, buffer->records + n * size, extra * size);
		job.records = buffer->records;
		job.items = buffer->items;
		job.form = form;
		job.n = n;
		if (overlap && pthread_create(&spill_thread, NULL, spill_thread_main, &job) == 0) {
			spilling = true;
		} else {
			error = spill_chunk(&job);
			if (error)
				break;
			if (!overlap)
				memmove(buffer->records, buffer->records + n * size, extra * size);
		}
		double started = stats_now();
		int64_t got = record_reader_read(reader, buffers[next].records + extra * size,
						 chunk + 1 - extra);
		if (got < 0) {
			error = (int)got;
			break;
		}
		stats->records += (uint64_t)got;
		stats_add(stats, STAGE_READ, started, (uint64_t)got * size);
		have = extra + (size_t)got;
		current = next;
	}
	if (spilling) {
		pthread_join(spill_thread, NULL);
		if (!error)
			error = job.error;
	}
	/* The chunk buffers are not needed for merging: give their memory to the merge. */
	for (int i = 0; i < 2; i++) {
		if (buffers[i].records)
			sort_engine_host_free(engine, buffers[i].records, (chunk + 1) * size);
		if (buffers[i].items)
			sort_engine_host_free(engine, buffers[i].items, plan->items_bytes);
	}
	*records_buffer = NULL;
	*items_buffer = NULL;

	if (!error)
		error = merge_passes(layout, options->unique, &list,
				     memory_plan_merge_fan_in(plan, block_bytes), block_bytes, stats);
	if (!error)
		error = merge_into_output(options, layout, &list, plan, block_bytes, stats);
	run_list_remove_all(&list, stats);
	return error ? 2 : 0;
}

/* -m reads each input as one sorted source. */
struct input_source {
	struct record_reader *reader;
	bool empty;             /* holds no record, so needs no buffer */
	unsigned char *buffer;
	size_t block_records;
	size_t record_size;
	struct sort_stats *stats;
};

static int input_source_next(void *context, const unsigned char **records, size_t *count)
{
	struct input_source *source = context;
	double started = stats_now();
	int64_t got = record_reader_read(source->reader, source->buffer, source->block_records);
	if (got < 0)
		return (int)got;
	source->stats->records += (uint64_t)got;
	stats_add(source->stats, STAGE_READ, started, (uint64_t)got * source->record_size);
	*records = source->buffer;
	*count = (size_t)got;
	return 0;
}

int external_merge_inputs(const struct options *options, const struct record_layout *layout,
			  const char *const *names, size_t k, struct sort_stats *stats)
{
	size_t budget = options->memory_budget ? options->memory_budget : (size_t)256 << 20;
	/* a quarter of the budget for the inputs' blocks, between 64 KiB and 1 MiB each */
	size_t block_bytes = budget / 4 / k;
	if (block_bytes > ((size_t)1 << 20))
		block_bytes = (size_t)1 << 20;
	if (block_bytes < ((size_t)64 << 10))
		block_bytes = (size_t)64 << 10;
	struct input_source *contexts = calloc(k, sizeof *contexts);
	struct merge_source *sources = calloc(k, sizeof *sources);
	int error = contexts && sources ? 0 : -ENOMEM;
	if (error)
		report("%s", strerror(ENOMEM));
	/* The record size is judged once an input is known to hold a record; empty inputs
	 * cost nothing whatever the sizes. */
	bool any_record = false;
	for (size_t i = 0; i < k && !error; i++) {
		error = record_reader_open(&names[i], 1, layout->record_size, &contexts[i].reader);
		int empty = error ? 0 : record_reader_empty(contexts[i].reader);
		if (empty < 0)
			error = empty;
		contexts[i].empty = empty == 1;
		any_record |= empty == 0;
		sources[i].next_block = input_source_next;
		sources[i].context = &contexts[i];
	}
	if (!error && !any_record) {
		error = record_output_empty(options, layout->record_size, stats);
		goto done;
	}
	if (!error && !binary_record_fits(options, layout))
		error = -EFBIG;
	for (size_t i = 0; i < k && !error; i++) {
		if (contexts[i].empty)
			continue;
		contexts[i].block_records = block_bytes / layout->record_size ? block_bytes / layout->record_size : 1;
		contexts[i].record_size = layout->record_size;
		contexts[i].stats = stats;
		contexts[i].buffer = malloc(contexts[i].block_records * layout->record_size);
		if (!contexts[i].buffer) {
			report("%s", strerror(ENOMEM));
			error = -ENOMEM;
		}
	}
	if (!error)
		error = merge_sources_into_output(options, layout, sources, k, block_bytes, stats);
done:
	for (size_t i = 0; contexts && i < k; i++) {
		if (contexts[i].reader)
			record_reader_close(contexts[i].reader);
		free(contexts[i].buffer);
	}
	free(contexts);
	free(sources);
	return error ? 2 : 0;
}
