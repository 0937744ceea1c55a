/* Text mode's driver: builds the order, resolves the inputs, then checks (-c/-C),
 * merges (-m) or sorts: inputs are read into memory and sorted there when they fit the
 * -S budget, else sorted in chunks that are spilled as runs and merged (text_spill). */
#include "text_sort.h"
#include "../common/verify.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "input_list.h"
#include "memory_plan.h"
#include "merge_inputs.h"
#include "order_check.h"
#include "output_check.h"
#include "record_order.h"
#include "record_output.h"
#include "../common/report.h"
#include "../common/stats.h"
#include "../text/text_line_sort.h"
#include "../text/text_lines.h"
#include "../text/text_order.h"
#include "text_spill.h"
#include "text_write.h"
#include "../../io/input_file.h"
#include "../../io/output_file.h"
#include "../../io/temp_files.h"
#include "../../kernels/thread_pool.h"

struct text_job {
	const struct options *options;
	const struct text_order *order;
	struct input_list inputs;
	struct sort_engine *engine;
	struct thread_pool *pool;
	struct sort_stats stats;
	struct sort_verify verify; /* the sort's self-check (verify.h) */
};

/* Opens the output (the one output end, record_output.h) and a writer on it; reports
 * failures. */
static int open_output(struct text_job *job, struct record_output *output, struct text_writer *writer)
{
	int err = record_output_open(output, job->options, &job->stats);
	if (err)
		return err;
	output->verify = &job->verify;
	err = text_writer_init(writer, output->file, job->order);
	writer->progress = &job->stats;
	if (err) {
		output_file_abort(output->file);
		report("%s", strerror(-err));
	}
	/* the writer's lines are the sort's output: it counts and checks them */
	writer->verify = &job->verify;
	writer->to_output = true;
	return err;
}

/* Flushes and commits, or aborts after err (reported here: the writer's errors are the
 * output's); returns the exit status. */
static int close_output(struct record_output *output, struct text_writer *writer, int err)
{
	if (!err)
		err = text_writer_flush(writer);
	if (err)
		report_file_error(output->name, err);
	text_writer_free(writer);
	return record_output_finish(output, err) ? 2 : 0;
}

/* Sorts the lines in memory and writes them to the output. */
static int sort_and_write(struct text_job *job, struct text_lines *lines)
{
	double started = stats_now();
	int err = text_lines_index(lines, job->pool);
	uint64_t *sorted = NULL;
	/* in memory, lines are checked by their indices (verify.h) */
	job->verify.by_position = true;
	if (!err)
		text_lines_fingerprint(lines, job->pool, &job->verify);
	if (!err) {
		started = stats_add(&job->stats, STAGE_PREPARE, started, lines->size);
		job->stats.records += lines->count;
		err = text_line_sort(job->order, lines, job->engine, job->pool, &sorted);
		if (!err)
			sort_verify_plant_test_bug(sorted, lines->count, sizeof *sorted);
		started = stats_add(&job->stats, STAGE_SORT, started, lines->count * 16);
	}
	if (err) {
		report("%s", strerror(-err));
		return 2;
	}
	struct record_output output;
	struct text_writer writer;
	if (open_output(job, &output, &writer)) {
		free(sorted);
		return 2;
	}
	err = text_writer_sorted(&writer, lines, sorted, lines->count, job->pool);
	free(sorted);
	/* the commit counts in the write stage itself (record_output_finish) */
	stats_add(&job->stats, STAGE_WRITE, started, text_writer_total(&writer));
	return close_output(&output, &writer, err);
}

static int sort_inputs(struct text_job *job)
{
	size_t budget = job->options->memory_budget ? job->options->memory_budget
						    : memory_budget_default();
	struct text_spill spill;
	memory_plan_read_ahead(budget);
	text_spill_init(&spill, job->order, job->engine, job->pool, budget, &job->stats);
	spill.verify = &job->verify;
	struct text_lines *lines = &spill.lines;
	int status = 0;
	for (size_t i = 0; i < job->inputs.count && status == 0; i++) {
		const char *name = job->inputs.names[i];
		struct input_file *file;
		int err = input_file_open(name, &file);
		if (err) {
			report_file_error(name, err);
			status = 2;
			break;
		}
		for (;;) {
			/* Only the reading counts here: text_spill_chunk counts its own stages. */
			double started = stats_now();
			ssize_t got = text_lines_append(lines, file, text_spill_room(&spill));
			stats_add(&job->stats, STAGE_READ, started, got > 0 ? (uint64_t)got : 0);
			if (got < 0) {
				report_file_error(name, (int)got);
				status = 2;
				break;
			}
			if (text_spill_room(&spill) > 0)
				break; /* the input ended below the limit */
			if ((err = text_spill_chunk(&spill)) != 0) {
				status = 2;
				break;
			}
		}
		input_file_close(file);
	}
	if (status == 0) {
		if (spill.list.count == 0) {
			status = sort_and_write(job, lines);
		} else {
			struct record_output output;
			struct text_writer writer;
			int err = text_spill_chunk(&spill);
			if (err || open_output(job, &output, &writer)) {
				status = 2;
			} else {
				err = text_spill_merge(&spill, &writer, output.name);
				if (err) { /* reported */
					text_writer_free(&writer);
					record_output_finish(&output, err);
					status = 2;
				} else {
					status = close_output(&output, &writer, 0);
				}
			}
		}
	}
	text_spill_free(&spill);
	return status;
}

/* With --device=auto, inputs below this many bytes are sorted on the CPU threads: the
 * CUDA context alone takes about 0.4 s to start on the H100 machine, while its 16 cores
 * sort 256 MiB of text (10M lines) in 0.23 s in all, and the GPU's sort stage was no
 * faster there (0.094 s against 0.102 s). --device=N still asks for the GPU. */
#define TEXT_GPU_MIN_BYTES ((off_t)1 << 30)

/* The inputs' total size, or -1 when one is not a regular file (a pipe, stdin). */
static off_t inputs_size(const struct input_list *inputs)
{
	off_t total = 0;
	for (size_t i = 0; i < inputs->count; i++) {
		struct stat st;
		if (strcmp(inputs->names[i], "-") == 0 || stat(inputs->names[i], &st) != 0 ||
		    !S_ISREG(st.st_mode))
			return -1;
		total += st.st_size;
	}
	return total;
}

static int open_engine(struct text_job *job)
{
	const struct options *options = job->options;
	struct sort_engine_config config = options->engine;
	const char *small = NULL;
	off_t total = config.device == SORT_DEVICE_AUTO ? inputs_size(&job->inputs) : -1;
	if (total >= 0 && total < TEXT_GPU_MIN_BYTES) {
		config.device = SORT_DEVICE_CPU;
		small = "input below 1 GiB: the CPU threads finish before a GPU would start";
	}
	char reason[256];
	int err = sort_engine_open_explained(&config, &job->engine, reason, sizeof reason);
	if (err) {
		/* the driver's own reason ("CUDA driver version is insufficient ..."), which
		 * strerror's "No such device" would hide */
		if (options->engine.device >= 0)
			report("device %d: %s", options->engine.device, reason);
		else
			report("sort engine: %s", reason);
		return err;
	}
	job->stats.engine = sort_engine_describe(job->engine);
	job->stats.engine_seconds = sort_engine_open_seconds(job->engine);
	job->stats.fallback = small ? small : sort_engine_fallback_reason(job->engine);
	if (options->verbose && job->stats.fallback)
		report("note: sorting on the CPU: %s", job->stats.fallback);
	err = thread_pool_create(options->engine.threads, &job->pool);
	if (err)
		report("threads: %s", strerror(-err));
	return err;
}

int text_sort_run(const struct options *options)
{
	char letters[16];
	struct text_order order;
	int err = text_order_init(&order, options, letters, sizeof letters);
	if (err == -EINVAL) {
		report("options '-%s' are incompatible", letters);
		return 2;
	}
	if (err) {
		report("%s", strerror(-err));
		return 2;
	}
	struct text_job job = { .options = options, .order = &order };
	stats_begin(&job.stats);
	/* -m merges inputs it takes as sorted and -c only reads: neither sorts anything */
	sort_verify_init(&job.verify, !options->no_verify && !options->merge_only && !options->check);
	if (!options->check && output_check(options)) {
		text_order_free(&order);
		return 2;
	}
	int status = input_list_resolve(options, &job.inputs);
	if (status) {
		text_order_free(&order);
		return status;
	}
	if (options->check) {
		struct record_order lines;
		record_order_text(&lines, &order);
		status = order_check(&lines, job.inputs.names[0], options->check, NULL, NULL);
	} else if ((err = temp_files_init(options->temp_dirs, options->temp_dir_count)) != 0) {
		report("temporary directory: %s", strerror(-err));
		status = 2;
	} else if (open_engine(&job) != 0) {
		status = 2;
	} else {
		if (!options->merge_only)
			stats_progress_start(&job.stats, options->progress, inputs_size(&job.inputs));
		if (options->merge_only) {
			struct record_order order;
			record_order_text(&order, job.order);
			status = merge_inputs(&order, options, job.inputs.names, job.inputs.count, NULL, NULL, &job.stats);
		} else {
			status = sort_inputs(&job);
		}
		stats_progress_finish(&job.stats, status == 0);
		job.stats.verified = job.verify.enabled && status == 0;
		job.stats.verify_seconds = sort_verify_seconds(&job.verify, thread_pool_size(job.pool));
		job.stats.verified_records = atomic_load(&job.verify.input_count);
		if (options->stats && status != 2)
			stats_print(&job.stats);
	}
	if (job.pool)
		thread_pool_destroy(job.pool);
	if (job.engine)
		sort_engine_close(job.engine);
	input_list_free(&job.inputs);
	text_order_free(&order);
	return status;
}
