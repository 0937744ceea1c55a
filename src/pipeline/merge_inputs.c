/* SPDX-License-Identifier: MIT */
/* -m (see merge_inputs.h): each input a record_stream handing its records to the one
 * loser tree a block at a time, where they lie in the stream's buffer; the tree's
 * output goes to record_output. More inputs than --batch-size go through runs first. */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../../io/input_file.h"
#include "../common/stats.h"
#include "memory_plan.h"
#include "merge.h"
#include "merge_inputs.h"
#include "input_header.h"
#include "csv_input.h"
#include "record_output.h"
#include "record_stream.h"
#include "runs.h"
#include "../common/report.h"

/* An input's blocks (fixed-size records): a quarter of the budget over the inputs,
 * between these. Lines take the stream's own blocks. */
#define INPUT_BLOCK_MIN ((size_t)64 << 10)
#define INPUT_BLOCK_MAX ((size_t)1 << 20)

struct input_source {
	struct record_stream stream;
	const char *name;
	bool open;
	size_t record_size;
	struct sort_stats *stats;
	struct input_header *header; /* --header; NULL: none */
	struct csv_encoder csv;      /* --csv: the input's encoding */
};

/* Reports a failure of the stream by the input's name. */
static int input_failed(struct input_source *source, int error)
{
	if (error == RECORD_STREAM_PARTIAL) {
		record_stream_report_partial(&source->stream, source->name);
		return -EINVAL;
	}
	csv_input_report(source->name, source->stream.csv, error);
	return error;
}

/* Opens source's input (not open yet) as a stream of block_bytes blocks. Reports a
 * failure, but for want of descriptors (-EMFILE, -ENFILE), which the caller may take
 * as the sign to open fewer at a time. A file of part of a record is one. */
static int input_open(struct input_source *source, const struct record_order *order, size_t block_bytes)
{
	struct input_file *file;
	int error = input_file_open(source->name, &file);
	if (error) {
		if (error != -EMFILE && error != -ENFILE)
			report_input_open_error(source->name, error, false);
		return error;
	}
	if ((error = input_header_take(source->header, file, source->name)) != 0) {
		input_file_close(file);
		return error;
	}
	off_t size = input_file_size(file);
	if (order->record_size && size > 0 && (uint64_t)size % order->record_size) {
		report_partial_record(source->name, (uint64_t)size, order->record_size);
		input_file_close(file);
		return -EINVAL;
	}
	record_stream_init(&source->stream, file, order->record_size, order->eol);
	record_stream_set_block(&source->stream, block_bytes);
	record_stream_set_csv(&source->stream, csv_input_start(&source->csv, order->text, source->header));
	source->open = true;
	return 0;
}

/* Closes source's input, its reads counted first (the stream forgets them). */
static void input_close(struct input_source *source)
{
	source->stats->seconds[STAGE_READ] += source->stream.read_seconds;
	source->stats->bytes[STAGE_READ] += source->stream.bytes_read;
	record_stream_close(&source->stream);
	csv_encoder_free(&source->csv);
	source->open = false;
}

/* -m's inputs, each a stream and a source of the merge, read in blocks of block_bytes. */
struct input_set {
	struct input_source *inputs;
	struct merge_source *sources;
	size_t count, block_bytes;
};

static int input_next(void *context, const unsigned char **bytes, size_t *len)
{
	struct input_source *source = context;
	const char *block;
	int got = record_stream_block(&source->stream, &block, len);
	if (got < 0)
		return input_failed(source, got);
	if (got == 0) {
		*len = 0;
		return 0;
	}
	*bytes = (const unsigned char *)block;
	if (source->record_size)
		source->stats->records += *len / source->record_size;
	return 0;
}

/* More inputs than --batch-size, as GNU sort merges them, in passes through temporary
 * files: each group of batch consecutive inputs is merged into a run, the runs in
 * merge_passes() down to batch, and those into the output. Groups and runs stay in
 * input order, so equal records keep it, as in one merge. With few descriptors left
 * (lazily), each group's inputs are opened for its merge and closed after it. Failures
 * are reported. */
static int merge_inputs_in_passes(const struct record_order *order, const struct input_set *set, size_t batch,
				  struct run_list *runs, struct record_output *output, struct sort_stats *stats)
{
	size_t count = set->count, block_bytes = set->block_bytes;
	int error = 0;
	for (size_t first = 0; first < count && !error; first += batch) {
		size_t k = count - first < batch ? count - first : batch, failed;
		struct run_sink sink;
		const struct merge_sink to = {run_sink_write, NULL, &sink, block_bytes, false};
		if ((error = run_begin(runs, order, block_bytes, &sink, stats)) != 0)
			break;
		error = merge_records(order, NULL, set->sources + first, k, &to, &failed);
		if (error && failed < k)
			run_abandon(&sink); /* the input has said what is wrong with it */
		else
			error = run_end(runs, &sink, error);
	}
	stats->merge_passes++;
	/* -m's passes run one after another; the output is open already */
	unsigned one = 1;
	size_t last, fan_in = run_list_fan_in(runs, batch, 0, &one, &last);
	if (!error)
		error = merge_passes(order, NULL, runs, fan_in, last, block_bytes, 1, stats);
	const struct merge_sink to_output = {record_output_write, NULL, output, block_bytes, true};
	if (!error)
		error = merge_runs(order, NULL, runs, 0, runs->count, &to_output, NULL);
	return error;
}

/* An input that cannot be opened for want of descriptors: GNU sort's words. */
static void report_open_failure(const char *name, int error)
{
	report_file_failure("open failed", name, error);
}

/* Descriptors a group's merge may hold beside its inputs: the run it writes, and while
 * they are free the rings of the run and of the inputs (which do without). */
#define GROUP_RUN_DESCRIPTORS 1
#define GROUP_SPARE_DESCRIPTORS 2

/* The first part of the merge when the descriptors ran out before every input was
 * open, as GNU sort merges then: groups of consecutive inputs, as many as the
 * descriptors free allow, each opened for its merge into a run and closed after it
 * (runs hold none between merges). The runs are then merged in passes down to what
 * the last merge can open beside the output (which holds output_descriptors), opened
 * only then. Order is kept as in one merge. Failures are reported. */
static int merge_inputs_into_runs(const struct record_order *order, const struct input_set *set, size_t batch,
				  size_t output_descriptors, struct run_list *runs, struct sort_stats *stats)
{
	struct input_source *inputs = set->inputs;
	size_t count = set->count, block_bytes = set->block_bytes;
	int error = 0;
	for (size_t first = 0; first < count && !error;) {
		size_t room = run_descriptors_free(), beside = GROUP_RUN_DESCRIPTORS + GROUP_SPARE_DESCRIPTORS;
		if (room < beside + 2)
			beside = GROUP_RUN_DESCRIPTORS;
		size_t k = room > beside ? room - beside : 0;
		k = batch && batch < k ? batch : k;
		k = count - first < k ? count - first : k;
		if (k == 0 || (k < 2 && count - first >= 2)) {
			report_open_failure(inputs[first + k].name, -EMFILE);
			return -EMFILE;
		}
		for (size_t i = first; i < first + k && !error; i++)
			if (!inputs[i].open && (error = input_open(&inputs[i], order, block_bytes)) != 0 &&
			    (error == -EMFILE || error == -ENFILE))
				report_open_failure(inputs[i].name, error);
		struct run_sink sink;
		size_t failed = k;
		const struct merge_sink to = {run_sink_write, NULL, &sink, block_bytes, false};
		if (!error && (error = run_begin(runs, order, block_bytes, &sink, stats)) == 0) {
			error = merge_records(order, NULL, set->sources + first, k, &to, &failed);
			if (error && failed < k)
				run_abandon(&sink); /* the input has said what is wrong with it */
			else
				error = run_end(runs, &sink, error);
		}
		for (size_t i = first; i < first + k; i++)
			if (inputs[i].open)
				input_close(&inputs[i]);
		first += k;
	}
	stats->merge_passes++;
	unsigned one = 1;
	size_t last, fan_in = run_list_fan_in(runs, batch ? batch : runs->count, output_descriptors, &one, &last);
	if (!error)
		error = merge_passes(order, NULL, runs, fan_in, last, block_bytes, 1, stats);
	return error;
}

int merge_inputs(const struct record_order *order, const struct memory_limits *limits,
		 const struct run_settings *settings, const struct output_target *target,
		 const struct input_list *list, struct record_admit admit, struct sort_stats *stats)
{
	const char *const *names = (const char *const *)list->names;
	size_t count = list->count;
	size_t budget = limits->budget ? limits->budget : memory_budget_default();
	size_t block_bytes = budget / 4 / (count ? count : 1);
	block_bytes = block_bytes > INPUT_BLOCK_MAX ? INPUT_BLOCK_MAX : block_bytes;
	block_bytes = block_bytes < INPUT_BLOCK_MIN ? INPUT_BLOCK_MIN : block_bytes;
	/* the runs of -m are the inputs copied in (stdin, or an input that is the output) */
	struct run_list runs = {NULL, 0, 0, 0, {0}, settings, 0};
	struct input_source *inputs = calloc(count ? count : 1, sizeof *inputs);
	struct merge_source *sources = calloc(count ? count : 1, sizeof *sources);
	int error = inputs && sources ? 0 : -ENOMEM;
	if (error)
		report_errno(-ENOMEM);
	for (size_t i = 0; i < count && !error; i++) {
		inputs[i] = (struct input_source){.name = names[i], .record_size = order->record_size, .stats = stats,
						  .header = target->header};
		sources[i] = (struct merge_source){input_next, &inputs[i]};
	}
	/* Every input is opened first, so that a missing one is reported before any work.
	 * When the descriptors run out first, as GNU sort the merge takes as many inputs
	 * at a time as they allow (lazily, in passes through temp files); the rest are
	 * checked now and opened in their turn. */
	bool any_record = false, lazily = false;
	for (size_t i = 0; i < count && !error && !lazily; i++) {
		if ((error = input_open(&inputs[i], order, block_bytes)) != 0) {
			if ((error == -EMFILE || error == -ENFILE) && i >= 2) {
				lazily = true;
				error = 0;
				for (size_t j = i; j < count && !error; j++)
					if ((error = input_file_check(names[j])) != 0)
						report_input_open_error(names[j], error, false);
				break;
			}
			if (error == -EMFILE || error == -ENFILE)
				report_open_failure(names[i], error);
			break;
		}
		int empty = record_stream_empty(&inputs[i].stream);
		if (empty < 0)
			error = input_failed(&inputs[i], empty);
		any_record |= empty == 0;
	}
	/* the files' descriptors back (standard input keeps what it has read) */
	for (size_t i = 0; lazily && i < count; i++)
		if (inputs[i].open && strcmp(names[i], "-") != 0)
			input_close(&inputs[i]);
	any_record |= lazily;
	if (!error && any_record && admit.fits && !admit.fits(admit.arg))
		error = -EFBIG;
	/* -o: the file and its temp twin, made at once beside the runs */
	size_t output_descriptors = target->name && strcmp(target->name, "-") != 0 && !target->to_fd ? 2 : 0;
	const struct input_set set = {inputs, sources, count, block_bytes};
	if (!error && lazily)
		error = merge_inputs_into_runs(order, &set, limits->batch_size, output_descriptors, &runs, stats);
	if (!error && !any_record) /* nothing to merge: nor memory to take */
		error = record_output_empty(target, stats);
	else if (!error) {
		/* the runs are opened before the output, which takes what they leave */
		struct run_merge *merge = NULL;
		if (lazily)
			error = merge_runs_begin(&runs, 0, runs.count, &merge, NULL);
		struct record_output output;
		if (!error)
			error = record_output_open(&output, order, target, stats);
		if (!error) {
			double started = stats_now(), recorded = stats_seconds_recorded(stats);
			uint64_t read_before = stats->bytes[STAGE_READ];
			/* -m takes its inputs as sorted: nothing to check (verify off) */
			size_t failed = 0;
			bool in_passes = lazily || (limits->batch_size && count > limits->batch_size);
			if (lazily)
				error = merge_runs_into(merge, order, NULL, true, block_bytes, record_output_write, &output,
							NULL);
			else if (in_passes)
				error = merge_inputs_in_passes(order, &set, limits->batch_size, &runs, &output, stats);
			else
				error = merge_records(order, NULL, sources, count,
						      &(struct merge_sink){record_output_write, NULL, &output, block_bytes, true},
						      &failed);
			for (size_t i = 0; i < count; i++) {
				stats->seconds[STAGE_READ] += inputs[i].stream.read_seconds;
				stats->bytes[STAGE_READ] += inputs[i].stream.bytes_read;
			}
			stats->merge_passes++;
			/* the inputs' reads and the output's writes counted in their own stages */
			stats_add_enclosing(stats, STAGE_MERGE, started, recorded, stats->bytes[STAGE_READ] - read_before);
			if (error == -ENOMEM && !in_passes && failed == count && !output.reported)
				report_errno(-ENOMEM); /* the merge's own memory */
			merge_runs_end(merge);
			merge = NULL;
			error = record_output_finish(&output, error);
		}
		merge_runs_end(merge);
	}
	run_list_remove_all(&runs, stats);
	for (size_t i = 0; inputs && i < count; i++) {
		if (inputs[i].open)
			record_stream_close(&inputs[i].stream);
		csv_encoder_free(&inputs[i].csv);
	}
	free(inputs);
	free(sources);
	return error ? 2 : 0;
}
