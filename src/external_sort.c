/* The external sort of binary records (see external_sort.h): run formation (each sorted
 * chunk spilled as a compressed run file), merge passes while the runs exceed the
 * fan-in the memory budget allows, and the final merge into the output. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../io/output_file.h"
#include "../io/run_file.h"
#include "../io/temp_files.h"
#include "binary_sort.h"
#include "external_sort.h"
#include "key_image.h"
#include "merge.h"
#include "report.h"

#define RUN_BLOCK_BYTES_MAX ((size_t)1 << 20)
#define RUN_BLOCK_BYTES_MIN ((size_t)64 << 10)
#define MERGE_FAN_IN_MAX 512

struct run {
	char path[PATH_MAX];
	int fd;
	struct run_reader *reader;
};

struct run_list {
	struct run *runs;
	size_t count;
};

/* Collects sorted records into fixed-size blocks and appends them to a run file. */
struct run_sink {
	const struct record_layout *layout;
	struct run_writer *writer;
	unsigned char *block;
	size_t block_records;
	size_t filled;
	struct sort_stats *stats;
};

static void run_list_remove_all(struct run_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		struct run *run = &list->runs[i];
		if (run->reader)
			run_reader_close(run->reader);
		if (run->fd >= 0)
			close(run->fd);
		temp_file_remove(run->path);
	}
	free(list->runs);
	list->runs = NULL;
	list->count = 0;
}

static int run_sink_flush(struct run_sink *sink)
{
	if (sink->filled == 0)
		return 0;
	const struct record_layout *layout = sink->layout;
	int error = run_writer_append_block(sink->writer, sink->block, sink->filled * layout->record_size,
					    sink->filled, sink->block + layout->key_offset, layout->key_size);
	sink->filled = 0;
	return error;
}

static int run_sink_write(void *context, const unsigned char *records, size_t count)
{
	struct run_sink *sink = context;
	size_t size = sink->layout->record_size;
	while (count > 0) {
		size_t take = sink->block_records - sink->filled;
		if (take > count)
			take = count;
		memcpy(sink->block + sink->filled * size, records, take * size);
		sink->filled += take;
		records += take * size;
		count -= take;
		if (sink->filled == sink->block_records) {
			int error = run_sink_flush(sink);
			if (error)
				return error;
		}
	}
	return 0;
}

/* Sorted integer keys alone compress far better as deltas in byte planes (numbers in
 * io/run_file.c); records with payload are stored as they are. */
static void run_options_for(const struct record_layout *layout, struct run_writer_options *options)
{
	memset(options, 0, sizeof *options);
	bool bare = layout->record_size == layout->key_size;
	if (bare && key_image_is_bijective(layout->type) && !layout->reverse) {
		options->transform = RUN_TRANSFORM_DELTA;
		options->element_bytes = layout->record_size;
	}
}

/* Starts a new run file and a sink writing into it. */
static int run_begin(struct run_list *list, const struct record_layout *layout, size_t block_bytes,
		     struct run_sink *sink, struct sort_stats *stats)
{
	struct run *grown = realloc(list->runs, (list->count + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	list->runs = grown;
	struct run *run = &list->runs[list->count];
	run->reader = NULL;
	run->fd = temp_file_create(run->path, sizeof run->path);
	if (run->fd < 0) {
		int error = run->fd;
		report("cannot create a temporary file: %s", strerror(-error));
		return error;
	}
	list->count++;
	struct run_writer_options options;
	run_options_for(layout, &options);
	memset(sink, 0, sizeof *sink);
	sink->layout = layout;
	sink->stats = stats;
	sink->block_records = block_bytes / layout->record_size ? block_bytes / layout->record_size : 1;
	sink->block = malloc(sink->block_records * layout->record_size);
	int error = sink->block ? run_writer_open(run->fd, &options, &sink->writer) : -ENOMEM;
	if (error) {
		free(sink->block);
		report_file_error(run->path, error);
	}
	return error;
}

/* Finishes the sink's run and opens it for reading. */
static int run_end(struct run_list *list, struct run_sink *sink, int error)
{
	struct run *run = &list->runs[list->count - 1];
	if (!error)
		error = run_sink_flush(sink);
	struct run_file_stats file_stats = {0};
	if (!error)
		error = run_writer_finish(sink->writer, &file_stats);
	else
		run_writer_abort(sink->writer);
	free(sink->block);
	if (!error)
		error = run_reader_open(run->fd, &run->reader);
	if (error) {
		report_file_error(run->path, error);
		return error;
	}
	sink->stats->runs++;
	sink->stats->temp_bytes += file_stats.file_bytes;
	sink->stats->temp_raw_bytes += file_stats.bytes;
	return 0;
}

static const char *output_name(const struct options *options)
{
	return options->output && strcmp(options->output, "-") != 0 ? options->output : "standard output";
}

/* The output end of the final merge; it reports its own write errors, as it knows the
 * name (the sources report theirs). */
struct output_sink {
	struct output_file *file;
	const char *name;
	size_t record_size;
	struct sort_stats *stats;
};

static int write_output(void *context, const unsigned char *records, size_t count)
{
	struct output_sink *sink = context;
	sink->stats->bytes[STAGE_WRITE] += count * sink->record_size;
	int error = output_file_write(sink->file, records, count * sink->record_size);
	if (error)
		report_file_error(sink->name, error);
	return error;
}

/* Opens the output, merges the sources into it and commits it, or aborts it (the old
 * file, if any, stays as it was). */
static int merge_sources_into_output(const struct options *options,
				     const struct record_layout *layout,
				     struct merge_source *sources, size_t k, size_t block_bytes,
				     struct sort_stats *stats)
{
	struct output_sink sink = {NULL, output_name(options), layout->record_size, stats};
	int error = output_file_open(options->output, &sink.file);
	if (error) {
		report_file_error(sink.name, error);
		return error;
	}
	double started = stats_now();
	error = merge_records(layout, sources, k, options->unique, block_bytes, write_output, &sink);
	stats->merge_passes++;
	if (!error) {
		error = output_file_commit(sink.file);
		if (error)
			report_file_error(sink.name, error);
	} else {
		output_file_abort(sink.file);
	}
	stats_add(stats, STAGE_MERGE, started, 0);
	return error;
}

/* Reads a run's blocks in order, for the merge. */
struct run_source {
	struct run *run;
	size_t next_block;
	unsigned char *buffer;
	size_t buffer_bytes;
	size_t record_size;
};

static int run_source_next(void *context, const unsigned char **records, size_t *count)
{
	struct run_source *source = context;
	*count = 0;
	if (source->next_block >= run_reader_block_count(source->run->reader))
		return 0;
	ssize_t bytes = run_reader_read_block(source->run->reader, source->next_block++,
					      source->buffer, source->buffer_bytes);
	if (bytes < 0) {
		report_file_error(source->run->path, (int)bytes);
		return (int)bytes;
	}
	*records = source->buffer;
	*count = (size_t)bytes / source->record_size;
	return 0;
}

/* Merges runs [first, first + k) of list into sink, or into the output when sink is
 * NULL. */
static int merge_runs(const struct options *options, const struct record_layout *layout,
		      struct run_list *list, size_t first, size_t k, size_t block_bytes,
		      record_sink sink, void *sink_context, struct sort_stats *stats)
{
	struct run_source *contexts = calloc(k, sizeof *contexts);
	struct merge_source *sources = calloc(k, sizeof *sources);
	int error = contexts && sources ? 0 : -ENOMEM;
	for (size_t i = 0; i < k && !error; i++) {
		struct run_source *context = &contexts[i];
		context->run = &list->runs[first + i];
		context->record_size = layout->record_size;
		context->buffer_bytes = run_reader_max_block_bytes(context->run->reader);
		context->buffer = malloc(context->buffer_bytes ? context->buffer_bytes : 1);
		if (!context->buffer)
			error = -ENOMEM;
		sources[i].next_block = run_source_next;
		sources[i].context = context;
	}
	if (!error && sink)
		error = merge_records(layout, sources, k, options->unique, block_bytes, sink, sink_context);
	else if (!error)
		error = merge_sources_into_output(options, layout, sources, k, block_bytes, stats);
	for (size_t i = 0; contexts && i < k; i++)
		free(contexts[i].buffer);
	free(contexts);
	free(sources);
	return error;
}

/* Merges groups of fan_in runs into new runs until no more than fan_in are left. */
static int merge_passes(const struct options *options, const struct record_layout *layout,
			struct run_list *list, size_t fan_in, size_t block_bytes, struct sort_stats *stats)
{
	while (list->count > fan_in) {
		struct run_list merged = {NULL, 0};
		double started = stats_now();
		int error = 0;
		for (size_t first = 0; first < list->count && !error; first += fan_in) {
			size_t k = list->count - first < fan_in ? list->count - first : fan_in;
			struct run_sink sink;
			error = run_begin(&merged, layout, block_bytes, &sink, stats);
			if (!error) {
				error = merge_runs(options, layout, list, first, k, block_bytes, run_sink_write,
						   &sink, stats);
				error = run_end(&merged, &sink, error);
			}
		}
		run_list_remove_all(list);
		*list = merged;
		stats->merge_passes++;
		stats_add(stats, STAGE_MERGE, started, 0);
		if (error)
			return error;
	}
	return 0;
}

/* Run blocks small enough that the merge's fan-in fits the budget, large enough that
 * zstd and the disk see big pieces. */
static size_t run_block_bytes(size_t budget, size_t expected_runs)
{
	size_t block = expected_runs ? budget / (4 * expected_runs) : RUN_BLOCK_BYTES_MAX;
	if (block > RUN_BLOCK_BYTES_MAX)
		block = RUN_BLOCK_BYTES_MAX;
	if (block < RUN_BLOCK_BYTES_MIN)
		block = RUN_BLOCK_BYTES_MIN;
	return block;
}

static size_t merge_fan_in(size_t budget, size_t block_bytes)
{
	/* per run: its decompressed block and the compressed frame being read */
	size_t fan_in = budget / (3 * block_bytes);
	if (fan_in > MERGE_FAN_IN_MAX)
		fan_in = MERGE_FAN_IN_MAX;
	return fan_in < 2 ? 2 : fan_in;
}

int external_sort_binary(const struct options *options, const struct record_layout *layout,
			 struct sort_engine *engine, struct record_reader *reader,
			 const struct memory_plan *plan, unsigned char **records_buffer,
			 void **items_buffer, struct sort_stats *stats)
{
	size_t size = layout->record_size, chunk = plan->chunk_records;
	unsigned char *records = *records_buffer;
	struct run_list list = {NULL, 0};
	int64_t total = record_reader_total_bytes(reader);
	size_t expected_runs = total > 0 ? (size_t)total / size / chunk + 1 : 0;
	size_t block_bytes = run_block_bytes(plan->budget, expected_runs);
	size_t have = chunk + 1;
	int error = 0;

	while (have > 0 && !error) {
		size_t n = have < chunk ? have : chunk;
		enum record_form form;
		error = binary_sort_chunk(engine, layout, records, n, *items_buffer, &form, stats);
		if (error) {
			report("sort engine (%s): %s", sort_engine_describe(engine), strerror(-error));
			break;
		}
		double started = stats_now();
		struct run_sink sink;
		error = run_begin(&list, layout, block_bytes, &sink, stats);
		if (error)
			break;
		void *items = record_form_in_place(form) ? (void *)records : *items_buffer;
		error = record_items_emit(layout, form, records, items, n, options->unique, run_sink_write, &sink);
		error = run_end(&list, &sink, error);
		stats_add(stats, STAGE_SPILL, started, n * size);
		if (error)
			break;
		/* The record read past the chunk moves to the front of the next one. */
		size_t extra = have - n;
		memmove(records, records + n * size, extra * size);
		started = stats_now();
		int64_t got = record_reader_read(reader, records + extra * size, chunk + 1 - extra);
		if (got < 0) {
			error = (int)got;
			break;
		}
		stats_add(stats, STAGE_READ, started, (uint64_t)got * size);
		stats->records += (uint64_t)got;
		have = extra + (size_t)got;
	}
	/* The chunk buffers are not needed for merging: give their memory to the merge. */
	sort_engine_host_free(engine, *records_buffer, (chunk + 1) * size);
	*records_buffer = NULL;
	if (*items_buffer)
		sort_engine_host_free(engine, *items_buffer, plan->items_bytes);
	*items_buffer = NULL;

	if (!error)
		error = merge_passes(options, layout, &list, merge_fan_in(plan->budget, block_bytes),
				     block_bytes, stats);
	if (!error)
		error = merge_runs(options, layout, &list, 0, list.count, block_bytes, NULL, NULL, stats);
	run_list_remove_all(&list);
	return error ? 2 : 0;
}

/* -m reads each input as one sorted source. */
struct input_source {
	struct record_reader *reader;
	unsigned char *buffer;
	size_t block_records;
};

static int input_source_next(void *context, const unsigned char **records, size_t *count)
{
	struct input_source *source = context;
	int64_t got = record_reader_read(source->reader, source->buffer, source->block_records);
	if (got < 0)
		return (int)got;
	*records = source->buffer;
	*count = (size_t)got;
	return 0;
}

int external_merge_inputs(const struct options *options, const struct record_layout *layout,
			  struct sort_engine *engine, struct sort_stats *stats)
{
	(void)engine;
	static const char *const standard_input[] = {"-"};
	const char *const *names = options->input_count ? options->inputs : standard_input;
	size_t k = options->input_count ? options->input_count : 1;
	size_t budget = options->memory_budget ? options->memory_budget : (size_t)256 << 20;
	size_t block_bytes = run_block_bytes(budget, k);
	struct input_source *contexts = calloc(k, sizeof *contexts);
	struct merge_source *sources = calloc(k, sizeof *sources);
	int error = contexts && sources ? 0 : -ENOMEM;
	if (error)
		report("%s", strerror(ENOMEM));
	for (size_t i = 0; i < k && !error; i++) {
		contexts[i].block_records = block_bytes / layout->record_size ? block_bytes / layout->record_size : 1;
		contexts[i].buffer = malloc(contexts[i].block_records * layout->record_size);
		if (!contexts[i].buffer) {
			report("%s", strerror(ENOMEM));
			error = -ENOMEM;
			break;
		}
		error = record_reader_open(&names[i], 1, layout->record_size, &contexts[i].reader);
		sources[i].next_block = input_source_next;
		sources[i].context = &contexts[i];
	}
	if (!error)
		error = merge_sources_into_output(options, layout, sources, k, block_bytes, stats);
	for (size_t i = 0; contexts && i < k; i++) {
		if (contexts[i].reader)
			record_reader_close(contexts[i].reader);
		free(contexts[i].buffer);
	}
	free(contexts);
	free(sources);
	return error ? 2 : 0;
}
