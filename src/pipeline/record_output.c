/* SPDX-License-Identifier: MIT */
/* The output end (see record_output.h): the one place that opens, writes, commits or
 * aborts the output and reports its errors by name, for both modes' in-memory sorts,
 * final merges of runs and -m. */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output_check.h"
#include "record_order.h"
#include "record_output.h"
#include "../text/text_order.h"
#include "../common/report.h"
#include "../common/verify.h"
#include "../common/job_context.h"
#include "input_header.h"

static void output_failed(struct record_output *output, int error, bool flushing);

/* --csv: the records as they were read (output_filter). */
static size_t csv_output_filter(void *context, const void *in, size_t len, void *out)
{
	size_t decoded = csv_decode(context, in, len, out);
	return decoded == CSV_DECODE_UNCHANGED ? OUTPUT_FILTER_UNCHANGED : decoded;
}

int record_output_open(struct record_output *output, const struct record_order *order,
		       const struct output_target *target, struct sort_stats *stats)
{
	*output = (struct record_output){.name = report_output_name(target->name), .stats = stats, .holding = true,
					    .scratch = target->scratch};
	if (order && order->annotate)
		output->annotated = order;
	int error = output_open(target, &output->file);
	const struct input_header *header = target->header;
	if (!error && header && header->length &&
	    (error = output_file_write_prefix(output->file, header->bytes, header->length)) != 0) {
		output_failed(output, error, false);
		output_file_abort(output->file);
	}
	/* --csv: decoded, unless every record was read, each its own encoding */
	const struct csv_encoding *encoding = order && order->text ? order->text->csv_encoding : NULL;
	if (!error && order && order->text && order->text->csv && !(encoding && encoding->all_read && !encoding->changed)) {
		output_file_set_filter(output->file, csv_output_filter, &output->csv);
		output->csv_filtered = true;
	}
	return error;
}

bool record_output_take_csv_decoding(struct record_output *output)
{
	if (!output->csv_filtered)
		return false;
	output_file_set_filter(output->file, NULL, NULL);
	output->csv_filtered = false;
	return true;
}

/* The block as --debug shows it, each line annotated, in output->shown; sets *shown_bytes. */
static int annotate_block(struct record_output *output, const unsigned char *records, size_t bytes,
			  size_t *shown_bytes)
{
	const struct record_order *order = output->annotated;
	size_t used = 0, step;
	for (size_t at = 0; at < bytes; at += step) {
		size_t len = record_length(order, records + at, bytes - at, &step);
		for (;;) {
			size_t room = output->shown_size - used;
			size_t needed = order->annotate(order, records + at, len, output->shown + used, room);
			if (needed <= room) {
				used += needed;
				break;
			}
			size_t grown = 2 * (used + needed) + 4096;
			char *bigger = realloc(output->shown, grown);
			if (!bigger)
				return -ENOMEM;
			output->shown = bigger;
			output->shown_size = grown;
		}
	}
	*shown_bytes = used;
	return 0;
}

static void output_failed(struct record_output *output, int error, bool flushing)
{
	if (output->scratch)
		report_file_failure("write failed", output->name, error);
	else
		report_output_failure(output->name, error, flushing);
	output->reported = true;
}

void record_output_report(struct record_output *output, int error)
{
	output_failed(output, error, false);
}

/* Writes what record_output_write held, and holds no more; reports a failure as the
 * final flush when at_finish. */
static int release_held(struct record_output *output, bool at_finish)
{
	output->holding = false;
	if (!output->held_bytes)
		return 0;
	int error = output_file_write(output->file, output->held, output->held_bytes);
	output->held_bytes = 0;
	if (error) {
		output_failed(output, error, at_finish);
	}
	return error;
}

int record_output_write(void *context, const unsigned char *records, size_t bytes, size_t count)
{
	(void)count;
	struct record_output *output = context;
	if (job_cancelled())
		return -ECANCELED;
	if (output->annotated) {
		int error = annotate_block(output, records, bytes, &bytes);
		if (error) {
			report_file_error(output->name, error);
			output->reported = true;
			return error;
		}
		records = (const unsigned char *)output->shown;
	}
	if (output->holding && bytes <= sizeof output->held - output->held_bytes) {
		memcpy(output->held + output->held_bytes, records, bytes);
		output->held_bytes += bytes;
		return 0;
	}
	double started = stats_now();
	int error = release_held(output, false);
	if (!error)
		error = output_file_write(output->file, records, bytes);
	stats_add(output->stats, STAGE_WRITE, started, bytes);
	stats_progress_add(output->stats, PROGRESS_WRITE, bytes);
	if (error && !output->reported) {
		output_failed(output, error, false);
	}
	return error;
}

static int record_output_write_at(void *context, const unsigned char *records, size_t bytes, uint64_t offset)
{
	struct record_output *output = context;
	if (job_cancelled())
		return -ECANCELED;
	int error = output_file_write_at(output->file, records, bytes, (off_t)offset);
	if (!error) {
		output->written_at += bytes;
		stats_progress_add(output->stats, PROGRESS_WRITE, bytes);
	}
	return error;
}

record_sink_at record_output_sink_at(const struct record_output *output)
{
	return output_file_positional(output->file) && !output->annotated ? record_output_write_at : NULL;
}

int record_output_map(struct record_output *output, uint64_t bytes)
{
	int error = output_file_map(output->file, bytes);
	if (error) {
		output_failed(output, error, false);
	} else if (output->stats) {
		output->stats->output_mapped_bytes += output_file_mapped_bytes(output->file);
	}
	return error;
}

bool record_output_in_memory(const struct record_output *output)
{
	return output_file_in_memory(output->file);
}

void record_output_prefault_start(struct record_output *output)
{
	output_file_prefault_start(output->file);
}

void record_output_prefault_stop(struct record_output *output)
{
	output_file_prefault_stop(output->file);
}

int record_output_finish(struct record_output *output, int error)
{
	free(output->shown);
	output->shown = NULL;
	output->shown_size = 0;
	stats_add(output->stats, STAGE_WRITE, stats_now(), output->written_at);
	char what[160];
	if (!error && output->verify && (error = sort_verify_finish(output->verify, what, sizeof what)))
		report_internal("%s", what);
	/* all of it held till now: it goes out in the commit, GNU's final flush */
	bool flushing = output->holding && output->held_bytes > 0;
	if (!error && job_cancelled()) /* the output stays as it was */
		error = -ECANCELED;
	if (!error)
		error = release_held(output, true);
	if (error) {
		output_file_abort(output->file);
		return error;
	}
	double started = stats_now();
	error = output_file_commit(output->file); /* the queued writes finish here */
	stats_add(output->stats, STAGE_WRITE, started, 0);
	if (error)
		output_failed(output, error, flushing);
	return error;
}

int record_output_empty(const struct output_target *target, struct sort_stats *stats)
{
	struct record_output output;
	int error = record_output_open(&output, NULL, target, stats);
	return error ? error : record_output_finish(&output, 0);
}
