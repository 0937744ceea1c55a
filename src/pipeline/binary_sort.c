/* Binary record mode: read records in chunks that fit the memory budget, sort each
 * chunk's items on the engine, and write the records in order; when the input does not
 * fit one chunk, each sorted chunk becomes a spilled run and the runs are merged. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../io/temp_files.h"
#include "binary_sort.h"
#include "external_sort.h"
#include "input_list.h"
#include "memory_plan.h"
#include "merge_inputs.h"
#include "order_check.h"
#include "output_check.h"
#include "../binary/record_items.h"
#include "record_order.h"
#include "record_output.h"
#include "../binary/record_reader.h"
#include "../common/report.h"
#include "../common/stats.h"
#include "../common/verify.h"

/* Sorts one chunk of n records in place of its item array; returns the form used. */
int binary_sort_chunk(struct sort_engine *engine, const struct record_layout *layout,
		      unsigned char *records, size_t n, void *items_buffer, enum record_form *form,
		      struct sort_stats *stats)
{
	double started = stats_now();
	*form = record_form_choose(layout, n);
	void *items = record_form_in_place(*form) ? (void *)records : items_buffer;
	record_items_build(layout, *form, records, n, items);
	started = stats_add(stats, STAGE_PREPARE, started, n * layout->record_size);
	int error = sort_engine_sort(engine, record_form_width(*form), items, n);
	if (error)
		return error;
	sort_verify_plant_test_bug(items, n, record_form_width(*form));
	record_items_finish_ties(layout, *form, records, items, n);
	stats_add(stats, STAGE_SORT, started, n * (size_t)record_form_width(*form));
	return 0;
}

/* Everything fitted one chunk: sort it and write it out. */
static int sort_in_memory(const struct options *options, struct sort_engine *engine,
			  const struct record_layout *layout, unsigned char *records, size_t n,
			  void *items_buffer, struct sort_stats *stats)
{
	enum record_form form;
	/* in memory, records that travel by position are checked by their positions */
	if (layout->verify)
		layout->verify->by_position = true;
	int error = binary_sort_chunk(engine, layout, records, n, items_buffer, &form, stats);
	if (error) {
		report("sort engine (%s): %s", sort_engine_describe(engine), strerror(-error));
		return 2;
	}
	/* the one sort is done: the GPU's teardown overlaps the write */
	sort_engine_release_gpu(engine);
	/* The write stage is all of it: opening, gathering the records, writing, commit. */
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	struct record_output output;
	if (record_output_open(&output, options, stats))
		return 2;
	output.verify = layout->verify;
	void *items = record_form_in_place(form) ? (void *)records : items_buffer;
	error = record_items_emit(layout, form, records, items, n, options->unique, true,
				  record_output_write, &output);
	/* an error of the emit itself (not of a write) still needs its message */
	if (error && !output.reported)
		report_file_error(output.name, error);
	error = record_output_finish(&output, error);
	stats_add_enclosing(stats, STAGE_WRITE, started, recorded, 0);
	return error ? 2 : 0;
}

bool binary_record_fits(const struct options *options, const struct record_layout *layout)
{
	size_t budget, limit = memory_plan_record_limit(options, &budget);
	if (layout->record_size <= limit)
		return true;
	report("%s: records of %zu bytes do not fit the memory budget of %zu bytes (-S)",
	       options->record_size_option, layout->record_size, budget);
	return false;
}

/* With --device=auto, an input whose items (the keys as the engine sorts them) come to
 * less than this is sorted on the CPU threads: the GPU's fixed costs, about 0.25 s to
 * create the CUDA context and 0.1 s to tear it down at exit on the H100 machine, exceed
 * what its 16 cores take for that many items. --device=N still asks for the GPU. */
#define BINARY_GPU_MIN_ITEM_BYTES ((uint64_t)256 << 20)

static int open_engine(const struct options *options, const struct record_layout *layout,
		       int64_t total_bytes, struct sort_engine **engine, const char **small)
{
	struct sort_engine_config config = options->engine;
	*small = NULL;
	if (config.device == SORT_DEVICE_AUTO && total_bytes >= 0) {
		size_t n = (size_t)total_bytes / layout->record_size;
		uint64_t item_bytes = (uint64_t)n * record_form_width(record_form_choose(layout, n));
		if (item_bytes < BINARY_GPU_MIN_ITEM_BYTES) {
			config.device = SORT_DEVICE_CPU;
			*small = "items below 256 MiB: the CPU threads finish before a GPU would start";
		}
	}
	char reason[256];
	int error = sort_engine_open_explained(&config, engine, reason, sizeof reason);
	if (error) {
		/* the driver's own reason ("CUDA driver version is insufficient ..."), which
		 * strerror's "No such device" would hide */
		if (options->engine.device >= 0)
			report("device %d: %s", options->engine.device, reason);
		else
			report("sort engine: %s", reason);
		return error;
	}
	return 0;
}

/* What the engine turned out to be (--device=auto opens the GPU while the input is
 * read), for --stats and --verbose. */
static void note_engine(const struct options *options, struct sort_engine *engine, const char *small,
			struct sort_stats *stats)
{
	stats->engine = sort_engine_describe(engine);
	stats->engine_seconds = sort_engine_open_seconds(engine);
	stats->fallback = small ? small : sort_engine_fallback_reason(engine);
	if (options->verbose && stats->fallback)
		report("note: sorting on the CPU: %s", stats->fallback);
}

/* -c and -m judge the record size against -S as a sort does: when an input holds a
 * record. */
struct check_sizes {
	const struct options *options;
	const struct record_layout *layout;
};

static bool check_record_fits(const void *arg)
{
	const struct check_sizes *sizes = arg;
	return binary_record_fits(sizes->options, sizes->layout);
}

int binary_sort_run(const struct options *options)
{
	struct record_layout layout;
	struct sort_stats stats;
	struct record_reader *reader = NULL;
	struct sort_engine *engine = NULL;
	struct memory_plan plan = {0};
	struct input_list inputs;
	unsigned char *records = NULL;
	void *items = NULL;
	const char *small = NULL;
	int status = 2;

	record_layout_from_options(options, &layout);
	/* -m merges inputs it takes as sorted and -c only reads: neither sorts anything */
	struct sort_verify verify;
	sort_verify_init(&verify, !options->no_verify && !options->merge_only && !options->check);
	layout.verify = &verify;
	stats_begin(&stats);
	int error = temp_files_init(options->temp_dirs, options->temp_dir_count);
	if (error) {
		report("temporary directory: %s", strerror(-error));
		return 2;
	}
	if (!options->check && output_check(options))
		return 2;
	if (input_list_resolve(options, &inputs) != 0)
		return 2;
	if (options->check) {
		struct record_order order;
		record_order_binary(&order, &layout, options->unique);
		const struct check_sizes sizes = {options, &layout};
		status = order_check(&order, inputs.names[0], options->check, check_record_fits, &sizes);
		input_list_free(&inputs);
		return status;
	}
	if (record_reader_open(inputs.names, inputs.count, layout.record_size, &reader) < 0)
		goto out;
	/* Sizes are judged against the input before anything is planned, and no input
	 * costs nothing whatever the sizes. (-m judges each of its inputs itself.) */
	int empty = options->merge_only ? 0 : record_reader_empty(reader);
	if (empty < 0 || (!empty && !options->merge_only && !binary_record_fits(options, &layout)))
		goto out;
	if (empty) {
		status = record_output_empty(options, &stats) ? 2 : 0;
		goto out;
	}
	if (open_engine(options, &layout, record_reader_total_bytes(reader), &engine, &small) < 0)
		goto out;
	layout.pool = sort_engine_thread_pool(engine);
	if (options->merge_only) {
		struct record_order order;
		record_order_binary(&order, &layout, options->unique);
		struct check_sizes sizes = {options, &layout};
		status = merge_inputs(&order, options, inputs.names, inputs.count, check_record_fits, &sizes, &stats);
		goto out;
	}

	int64_t total_bytes = record_reader_total_bytes(reader);
	verify.expected = total_bytes >= 0 ? total_bytes / (int64_t)layout.record_size : -1;
	memory_plan_binary(options, &layout, engine, total_bytes, &plan);
	/* One record more than a chunk holds tells, without a second read, whether the
	 * input fits in memory or needs spilled runs. */
	records = sort_engine_host_alloc(engine, (plan.chunk_records + 1) * layout.record_size);
	items = plan.items_bytes ? sort_engine_host_alloc(engine, plan.items_bytes) : NULL;
	if (!records || (plan.items_bytes && !items)) {
		report("%s (memory budget %zu bytes)", strerror(ENOMEM), plan.budget);
		goto out;
	}
	stats_progress_start(&stats, options->progress, record_reader_total_bytes(reader));
	double started = stats_now();
	int64_t got = record_reader_read(reader, records, plan.chunk_records + 1);
	if (got < 0)
		goto out;
	stats_add(&stats, STAGE_READ, started, (uint64_t)got * layout.record_size);
	stats.records += (uint64_t)got;
	if ((size_t)got <= plan.chunk_records)
		status = sort_in_memory(options, engine, &layout, records, (size_t)got, items, &stats);
	else
		status = external_sort_binary(options, &layout, engine, reader, &plan, &records, &items, &stats);
out:
	stats_progress_finish(&stats, status == 0);
	if (engine)
		note_engine(options, engine, small, &stats);
	stats.verified = verify.enabled && status == 0;
	stats.verify_seconds = sort_verify_seconds(&verify, plan.threads);
	stats.verified_records = atomic_load(&verify.input_count);
	if (options->stats && status != 2)
		stats_print(&stats);
	if (records)
		sort_engine_host_free(engine, records, (plan.chunk_records + 1) * layout.record_size);
	if (items)
		sort_engine_host_free(engine, items, plan.items_bytes);
	record_reader_close(reader);
	if (engine)
		sort_engine_close(engine);
	input_list_free(&inputs);
	return status;
}
