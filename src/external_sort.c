/* The external sort of binary records (see external_sort.h): run formation (each sorted
 * chunk spilled as a compressed run file by a spill thread while the next chunk is read
 * and sorted), merge passes while the runs exceed the fan-in the memory budget allows,
 * and the final merge into the output: for a regular output file, all runs are cut into
 * key ranges that threads merge at once, each writing at its own offset (the bucket
 * sort's splitters one level up); otherwise one loser tree writes in order. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../io/output_file.h"
#include "../io/run_file.h"
#include "../io/temp_files.h"
#include "binary_sort.h"
#include "external_sort.h"
#include "key_image.h"
#include "merge.h"
#include "report.h"

/* Key ranges per merge thread: more ranges than threads even out their sizes. */
#define RANGES_PER_THREAD 4
/* How often the main thread looks at the merge threads (and redraws --progress). */
#define MERGE_POLL_NANOSECONDS 20000000L

struct run {
	char path[PATH_MAX];
	int fd;
	struct run_reader *reader;
	uint64_t file_bytes;
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

static void run_list_remove_all(struct run_list *list, struct sort_stats *stats)
{
	for (size_t i = 0; i < list->count; i++) {
		struct run *run = &list->runs[i];
		if (run->reader)
			run_reader_close(run->reader);
		if (run->fd >= 0)
			close(run->fd);
		temp_file_remove(run->path);
		stats_temp_remove(stats, run->file_bytes);
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
	run->file_bytes = 0;
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
	run->file_bytes = file_stats.file_bytes;
	stats_temp_add(sink->stats, file_stats.file_bytes);
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
	stats_progress_update(sink->stats, UINT64_MAX);
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

/* Merges runs [first, first + k) of list into sink with one loser tree. */
static int merge_runs(const struct options *options, const struct record_layout *layout,
		      struct run_list *list, size_t first, size_t k, size_t block_bytes,
		      record_sink sink, void *sink_context)
{
	struct run_source *contexts = calloc(k ? k : 1, sizeof *contexts);
	struct merge_source *sources = calloc(k ? k : 1, sizeof *sources);
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
	if (error == -ENOMEM)
		report("%s", strerror(ENOMEM));
	if (!error)
		error = merge_records(layout, sources, k, options->unique, block_bytes, sink, sink_context);
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
						   &sink);
				error = run_end(&merged, &sink, error);
			}
		}
		run_list_remove_all(list, stats);
		*list = merged;
		stats->merge_passes++;
		stats_add(stats, STAGE_MERGE, started, 0);
		if (error)
			return error;
	}
	return 0;
}

/* ---- the parallel merge over key ranges ---- */

/* Two keys (not records) in output order, by the same images the loser tree compares. */
static int key_order(const struct record_layout *layout, const unsigned char *a,
		     const unsigned char *b)
{
	if (layout->type == KEY_BYTES) {
		int order = key_compare(layout->type, layout->key_size, a, b);
		return layout->reverse ? -order : order;
	}
	uint64_t x = key_image(layout->type, a, layout->key_size);
	uint64_t y = key_image(layout->type, b, layout->key_size);
	if (layout->reverse) {
		x = ~x;
		y = ~y;
	}
	return x < y ? -1 : x > y;
}

static int key_entry_order(const void *a, const void *b, void *layout)
{
	return key_order(layout, *(const unsigned char *const *)a, *(const unsigned char *const *)b);
}

/* Where every range starts in every run: bounds[j * k + r] is the position (in records)
 * of range j's first record in run r; row `ranges` holds the runs' lengths. */
struct range_plan {
	size_t k;
	size_t ranges;
	uint64_t *bounds;
	uint64_t **block_starts;  /* per run: the position of each block's first record, and
				     the run's length after the last */
};

static void range_plan_free(struct range_plan *plan)
{
	for (size_t r = 0; plan->block_starts && r < plan->k; r++)
		free(plan->block_starts[r]);
	free(plan->block_starts);
	free(plan->bounds);
}

/* The first position in run r whose key is not before key: the last block whose first
 * key is before it (binary search over the index), then a binary search inside it. */
static int run_lower_bound(const struct record_layout *layout, struct run *run,
			   const uint64_t *starts, const unsigned char *key, unsigned char *buffer,
			   size_t buffer_bytes, uint64_t *position)
{
	size_t low = 0, high = run_reader_block_count(run->reader);
	/* invariant: blocks below low start before key; blocks at high and above do not */
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		struct run_block_info info;
		int error = run_reader_block_info(run->reader, middle, &info);
		if (error)
			return error;
		if (key_order(layout, info.index_entry, key) < 0)
			low = middle + 1;
		else
			high = middle;
	}
	if (low == 0) {
		*position = 0;
		return 0;
	}
	size_t block = low - 1;
	ssize_t bytes = run_reader_read_block(run->reader, block, buffer, buffer_bytes);
	if (bytes < 0) {
		report_file_error(run->path, (int)bytes);
		return (int)bytes;
	}
	size_t size = layout->record_size, first = 0, last = (size_t)bytes / size;
	while (first < last) {
		size_t middle = first + (last - first) / 2;
		if (key_order(layout, buffer + middle * size + layout->key_offset, key) < 0)
			first = middle + 1;
		else
			last = middle;
	}
	*position = starts[block] + first;
	return 0;
}

/* Draws splitters from the sorted union of the runs' index entries (each block's first
 * key) at equal distances, and locates each in each run. Equal splitters collapse, so
 * all records of one key land in one range. -ENOTSUP when an index entry is not a key. */
static int range_plan_build(const struct record_layout *layout, struct run_list *list,
			    size_t wanted_ranges, struct range_plan *plan)
{
	size_t k = list->count, blocks = 0, max_block = 1;
	memset(plan, 0, sizeof *plan);
	plan->k = k;
	plan->block_starts = calloc(k, sizeof *plan->block_starts);
	if (!plan->block_starts)
		return -ENOMEM;
	for (size_t r = 0; r < k; r++) {
		struct run_reader *reader = list->runs[r].reader;
		size_t count = run_reader_block_count(reader);
		uint64_t *starts = malloc((count + 1) * sizeof *starts);
		if (!starts)
			return -ENOMEM;
		plan->block_starts[r] = starts;
		starts[0] = 0;
		for (size_t b = 0; b < count; b++) {
			struct run_block_info info;
			int error = run_reader_block_info(reader, b, &info);
			if (error)
				return error;
			if (info.index_entry_bytes != layout->key_size)
				return -ENOTSUP;
			starts[b + 1] = starts[b] + info.records;
		}
		blocks += count;
		if (run_reader_max_block_bytes(reader) > max_block)
			max_block = run_reader_max_block_bytes(reader);
	}
	const unsigned char **entries = malloc((blocks ? blocks : 1) * sizeof *entries);
	unsigned char *buffer = malloc(max_block);
	if (wanted_ranges > blocks)
		wanted_ranges = blocks ? blocks : 1;
	plan->bounds = calloc((wanted_ranges + 1) * k, sizeof *plan->bounds);
	int error = entries && buffer && plan->bounds ? 0 : -ENOMEM;
	size_t at = 0;
	for (size_t r = 0; r < k && !error; r++)
		for (size_t b = 0; b < run_reader_block_count(list->runs[r].reader); b++) {
			struct run_block_info info;
			run_reader_block_info(list->runs[r].reader, b, &info);
			entries[at++] = info.index_entry;
		}
	if (!error)
		qsort_r(entries, blocks, sizeof *entries, key_entry_order, (void *)layout);
	/* Range 0 starts at 0 in every run (calloc); each distinct splitter starts one more. */
	size_t ranges = 1;
	const unsigned char *previous = NULL;
	for (size_t j = 1; j < wanted_ranges && !error; j++) {
		const unsigned char *splitter = entries[j * blocks / wanted_ranges];
		if (previous && key_order(layout, previous, splitter) == 0)
			continue;
		previous = splitter;
		for (size_t r = 0; r < k && !error; r++)
			error = run_lower_bound(layout, &list->runs[r], plan->block_starts[r], splitter,
						buffer, max_block, &plan->bounds[ranges * k + r]);
		ranges++;
	}
	for (size_t r = 0; r < k && !error; r++)
		plan->bounds[ranges * k + r] = plan->block_starts[r][run_reader_block_count(list->runs[r].reader)];
	plan->ranges = ranges;
	free(entries);
	free(buffer);
	return error;
}

/* The shared state of the merge threads. */
struct range_merge {
	const struct record_layout *layout;
	struct run_list *list;
	struct range_plan *plan;
	struct output_file *file;
	const char *name;
	size_t output_bytes;
	atomic_size_t next_range;
	atomic_bool failed;
	atomic_uint_least64_t written;
	atomic_uint finished;
};

struct range_worker {
	struct range_merge *merge;
	pthread_t thread;
	int error;
};

/* One run's records [at, end) of the range being merged. */
struct slice_source {
	struct range_merge *merge;
	struct run *run;
	const uint64_t *starts;
	size_t block;
	uint64_t at, end;
	unsigned char *buffer;
	size_t buffer_bytes;
};

/* Only the first failure is reported; the others are its echo in other threads. */
static int range_merge_fail(struct range_merge *merge, const char *name, int error)
{
	if (!atomic_exchange(&merge->failed, true))
		report_file_error(name, error);
	return error;
}

static int slice_next(void *context, const unsigned char **records, size_t *count)
{
	struct slice_source *slice = context;
	*count = 0;
	if (slice->at >= slice->end)
		return 0;
	if (atomic_load(&slice->merge->failed))
		return -ECANCELED;
	while (slice->starts[slice->block + 1] <= slice->at)
		slice->block++;
	ssize_t bytes = run_reader_read_block(slice->run->reader, slice->block, slice->buffer,
					      slice->buffer_bytes);
	if (bytes < 0)
		return range_merge_fail(slice->merge, slice->run->path, (int)bytes);
	uint64_t base = slice->starts[slice->block], stop = slice->starts[slice->block + 1];
	if (stop > slice->end)
		stop = slice->end;
	size_t size = slice->merge->layout->record_size;
	if ((uint64_t)bytes / size < stop - base)
		return range_merge_fail(slice->merge, slice->run->path, -EBADMSG);
	*records = slice->buffer + (slice->at - base) * size;
	*count = (size_t)(stop - slice->at);
	slice->at = stop;
	return 0;
}

/* Writes a range's merged records at its own place in the output. */
struct positional_sink {
	struct range_merge *merge;
	off_t offset;
};

static int positional_write(void *context, const unsigned char *records, size_t count)
{
	struct positional_sink *sink = context;
	struct range_merge *merge = sink->merge;
	size_t bytes = count * merge->layout->record_size;
	if (atomic_load(&merge->failed))
		return -ECANCELED;
	int error = output_file_write_at(merge->file, records, bytes, sink->offset);
	if (error)
		return range_merge_fail(merge, merge->name, error);
	sink->offset += (off_t)bytes;
	atomic_fetch_add(&merge->written, bytes);
	return 0;
}

static int range_worker_run(struct range_merge *merge)
{
	size_t k = merge->plan->k, size = merge->layout->record_size;
	struct slice_source *slices = calloc(k, sizeof *slices);
	struct merge_source *sources = calloc(k, sizeof *sources);
	int error = slices && sources ? 0 : -ENOMEM;
	for (size_t r = 0; r < k && !error; r++) {
		slices[r].merge = merge;
		slices[r].run = &merge->list->runs[r];
		slices[r].starts = merge->plan->block_starts[r];
		slices[r].buffer_bytes = run_reader_max_block_bytes(slices[r].run->reader);
		slices[r].buffer = malloc(slices[r].buffer_bytes ? slices[r].buffer_bytes : 1);
		if (!slices[r].buffer)
			error = -ENOMEM;
		sources[r].next_block = slice_next;
		sources[r].context = &slices[r];
	}
	if (error)
		range_merge_fail(merge, "merge", error);
	while (!error && !atomic_load(&merge->failed)) {
		size_t j = atomic_fetch_add(&merge->next_range, 1);
		if (j >= merge->plan->ranges)
			break;
		const uint64_t *begin = &merge->plan->bounds[j * k], *end = begin + k;
		struct positional_sink sink = {merge, 0};
		for (size_t r = 0; r < k; r++) {
			slices[r].block = 0;
			slices[r].at = begin[r];
			slices[r].end = end[r];
			sink.offset += (off_t)(begin[r] * size);
		}
		error = merge_records(merge->layout, sources, k, false, merge->output_bytes,
				      positional_write, &sink);
	}
	for (size_t r = 0; slices && r < k; r++)
		free(slices[r].buffer);
	free(slices);
	free(sources);
	return error;
}

static void *range_worker_main(void *context)
{
	struct range_worker *worker = context;
	worker->error = range_worker_run(worker->merge);
	atomic_fetch_add(&worker->merge->finished, 1);
	return NULL;
}

/* Merges every run into the (positional) output over key ranges in threads. -ENOTSUP
 * (nothing written) when the runs cannot be split. */
static int merge_ranges_into(const struct record_layout *layout, struct run_list *list,
			     const struct memory_plan *plan, struct output_file *file,
			     const char *name, struct sort_stats *stats)
{
	struct range_plan ranges;
	int error = range_plan_build(layout, list, (size_t)plan->threads * RANGES_PER_THREAD, &ranges);
	if (error) {
		range_plan_free(&ranges);
		if (error == -ENOMEM)
			report("%s", strerror(ENOMEM));
		return error;
	}
	struct range_merge merge = {
		.layout = layout, .list = list, .plan = &ranges, .file = file, .name = name,
		.output_bytes = memory_plan_merge_output_bytes(plan),
	};
	atomic_init(&merge.next_range, 0);
	atomic_init(&merge.failed, false);
	atomic_init(&merge.written, 0);
	atomic_init(&merge.finished, 0);
	size_t count = plan->threads < ranges.ranges ? plan->threads : ranges.ranges;
	struct range_worker *workers = calloc(count, sizeof *workers);
	size_t started = 0;
	for (size_t i = 0; workers && i < count; i++) {
		workers[i].merge = &merge;
		if (pthread_create(&workers[i].thread, NULL, range_worker_main, &workers[i]) != 0)
			break;
		started++;
	}
	uint64_t read_bytes = stats->bytes[STAGE_READ];
	if (started == 0) {
		/* no thread to be had: merge every range here */
		error = range_worker_run(&merge);
	} else {
		while (atomic_load(&merge.finished) < started) {
			struct timespec pause = {0, MERGE_POLL_NANOSECONDS};
			nanosleep(&pause, NULL);
			stats_progress_update(stats, (read_bytes + atomic_load(&merge.written)) / 2);
		}
		for (size_t i = 0; i < started; i++) {
			pthread_join(workers[i].thread, NULL);
			/* the first real error, not another thread's -ECANCELED echo */
			if (workers[i].error && (!error || error == -ECANCELED))
				error = workers[i].error;
		}
	}
	uint64_t total = 0;
	for (size_t r = 0; r < ranges.k; r++)
		total += ranges.bounds[ranges.ranges * ranges.k + r];
	if (!error && atomic_load(&merge.written) != total * layout->record_size) {
		report("merge: wrote %llu bytes instead of %llu",
		       (unsigned long long)atomic_load(&merge.written),
		       (unsigned long long)(total * layout->record_size));
		error = -EIO;
	}
	stats->bytes[STAGE_WRITE] += atomic_load(&merge.written);
	free(workers);
	range_plan_free(&ranges);
	return error;
}

/* The final merge of every run into the output: over key ranges in threads when the
 * output is a regular file (each range's offset is known: the records before it in
 * every run), else one loser tree in order. -u merges in order too: its output offsets
 * depend on how many duplicates fall before. */
static int merge_into_output(const struct options *options, const struct record_layout *layout,
			     struct run_list *list, const struct memory_plan *plan,
			     size_t block_bytes, struct sort_stats *stats)
{
	struct output_sink sink = {NULL, output_name(options), layout->record_size, stats};
	int error = output_file_open(options->output, &sink.file);
	if (error) {
		report_file_error(sink.name, error);
		return error;
	}
	double started = stats_now();
	error = -ENOTSUP;
	if (plan->threads > 1 && !options->unique && output_file_positional(sink.file))
		error = merge_ranges_into(layout, list, plan, sink.file, sink.name, stats);
	if (error == -ENOTSUP)
		error = merge_runs(options, layout, list, 0, list->count,
				   memory_plan_merge_output_bytes(plan) > block_bytes
					   ? memory_plan_merge_output_bytes(plan) : block_bytes,
				   write_output, &sink);
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
				  job->options->unique, run_sink_write, &sink);
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
	stats_progress_start(stats, options->progress, total);
	stats_progress_update(stats, UINT64_MAX);

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
		error = merge_passes(options, layout, &list, memory_plan_merge_fan_in(plan, block_bytes),
				     block_bytes, stats);
	if (!error)
		error = merge_into_output(options, layout, &list, plan, block_bytes, stats);
	run_list_remove_all(&list, stats);
	stats_progress_finish(stats);
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
