/* The external sort of binary records (see external_sort.h): run formation (each sorted
 * chunk spilled as a compressed run file by a spill thread while the next chunk is read
 * and sorted), merge passes while the runs exceed the fan-in the memory budget allows,
 * and the final merge into the output (over key ranges in threads, range_merge.c, or
 * one loser tree in order). */
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

/* The final merge of every run into the output: over key ranges in threads (written at
 * their offsets into a regular file, or in range order to stdout and under -u), or one
 * loser tree in order with a single thread. */
static int merge_into_output(const struct options *options, const struct record_layout *layout,
			     const struct record_order *order, struct run_list *list,
			     const struct memory_plan *plan, size_t block_bytes, struct sort_stats *stats)
{
	struct record_output output;
	int error = record_output_open(&output, options, stats);
	if (error)
		return error;
	output.verify = layout->verify;
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	error = -ENOTSUP;
	if (plan->threads > 1)
		error = range_merge_into(order, layout->verify, list, plan, output.file, output.name, stats);
	if (error == -ENOTSUP)
		error = merge_runs(order, layout->verify, true, list, 0, list->count,
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
	const struct record_order *order;
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
	int error = run_begin(job->list, job->order, job->block_bytes, &sink, job->stats);
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
	struct record_order order;
	record_order_binary(&order, layout, options->unique);
	struct spill_job job = {options, layout, &order, &list, block_bytes, stats, NULL, NULL, 0, 0, 0};
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
		error = merge_passes(&order, layout->verify, &list, memory_plan_merge_fan_in(plan, block_bytes),
				     block_bytes, stats);
	if (!error)
		error = merge_into_output(options, layout, &order, &list, plan, block_bytes, stats);
	run_list_remove_all(&list, stats);
	return error ? 2 : 0;
}
