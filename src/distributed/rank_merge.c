/* SPDX-License-Identifier: MIT */
/* The merge of a rank's key range (see rank_merge.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "local_run.h"
#include "rank_merge.h"
#include "splitters.h"
#include "../common/report.h"
#include "../common/verify.h"
#include "../pipeline/merge.h"
#include "../pipeline/range_cut.h"
#include "../pipeline/record_stream.h"
#include "../../io/file_map.h"
#include "../../io/input_file.h"
#include "../common/job_context.h"

/* The merge's output blocks. */
#define MERGE_BLOCK ((size_t)4 << 20)
/* Parts below this many bytes each are not worth a thread (starting one and cutting
 * the inputs for it take some microseconds). */
#define PART_MIN ((uint64_t)64 << 10)

struct range_source {
	struct record_stream stream;
	const char *name;
	bool open;
	/* a range of a run in memory, mapped: its bytes, handed over as one block */
	struct file_map map;
	const unsigned char *bytes;
	size_t length;
	bool given;
};

/* A range of a run on a memory file system (where the runs of one machine's ranks
 * live), mapped instead of read (io/file_map.h): the merge then takes its records where
 * they lie, without a copy into a buffer first, as the host's memory bandwidth bounds
 * the merge of ranks that share a machine. Leaves the range unmapped (for the caller to read it) where io does not map it or it
 * does not end at a record's end. */
static void range_map(struct range_source *source, const struct record_order *order, const struct merge_input *input)
{
	if (order->record_size && input->length % order->record_size != 0)
		return;
	file_map_read(input->path, input->base, input->length, &source->map);
	if (!source->map.bytes)
		return;
	const unsigned char *bytes = file_map_at(&source->map, input->base);
	/* lines: the range ends with a terminator, as the runs' lines all do */
	if (!order->record_size && bytes[input->length - 1] != order->eol) {
		file_map_release(&source->map);
		return;
	}
	source->bytes = bytes;
	source->length = (size_t)input->length;
}

static int range_next(void *context, const unsigned char **bytes, size_t *len)
{
	struct range_source *source = context;
	if (source->map.bytes) {
		*bytes = source->bytes;
		*len = source->given ? 0 : source->length;
		source->given = true;
		return 0;
	}
	const char *block;
	int got = record_stream_block(&source->stream, &block, len);
	if (got < 0) {
		int error = got == RECORD_STREAM_PARTIAL ? -EIO : got;
		report_file_error(source->name, error);
		return error;
	}
	if (got == 0)
		*len = 0;
	else
		*bytes = (const unsigned char *)block;
	return 0;
}

static int range_sink_write(void *context, const unsigned char *records, size_t bytes, size_t count)
{
	(void)count;
	struct range_sink *sink = context;
	int error = sink->output ? distributed_output_write_at(sink->output, records, bytes, sink->offset + sink->written)
				 : write_whole_at(sink->fd, records, bytes, sink->offset + sink->written);
	if (error) {
		if (sink->output) /* GNU's words, as one process's */
			report_output_failure(sink->name, error, false);
		else
			report_file_failure("write failed", sink->name, error);
		return error;
	}
	sink->written += bytes;
	if (sink->ends)
		range_ends_note(sink->ends, sink->order, records, bytes);
	return 0;
}

/* One loser tree over the inputs, on this thread. */
static int merge_in_one(const struct record_order *order, const struct merge_input *inputs, size_t count,
			size_t block, struct sort_verify *verify, struct range_sink *sink)
{
	struct range_source *ranges = calloc(count ? count : 1, sizeof *ranges);
	struct merge_source *sources = calloc(count ? count : 1, sizeof *sources);
	size_t used = 0;
	int error = 0;
	if (!ranges || !sources) {
		error = -ENOMEM;
		report_errno(-ENOMEM);
		goto out;
	}
	for (size_t i = 0; i < count && !error; i++) {
		if (inputs[i].length == 0)
			continue;
		struct range_source *source = &ranges[used];
		struct input_file *file;
		source->name = inputs[i].name;
		range_map(source, order, &inputs[i]);
		if (source->map.bytes) {
			sources[used++] = (struct merge_source){range_next, source};
			continue;
		}
		error = input_file_open_range(inputs[i].path, (off_t)inputs[i].base, (off_t)inputs[i].length, &file);
		if (!error && (error = record_stream_init(&source->stream, file, order->record_size, order->eol)) != 0)
			input_file_close(file);
		if (error) {
			report_file_error(source->name, error);
			break;
		}
		source->open = true;
		record_stream_set_block(&source->stream, block);
		sources[used] = (struct merge_source){range_next, source};
		used++;
	}
	if (!error && used)
		error = merge_records(order, verify, sources, used,
				      &(struct merge_sink){range_sink_write, NULL, sink, MERGE_BLOCK, true}, NULL);
out:
	for (size_t i = 0; ranges && i < count; i++) {
		if (ranges[i].open)
			record_stream_close(&ranges[i].stream);
		file_map_release(&ranges[i].map);
	}
	free(ranges);
	free(sources);
	return error;
}

/* A part of the range, merged on a thread of its own. */
struct merge_part {
	const struct record_order *order;
	struct merge_input *inputs;
	size_t count, block;
	struct sort_verify *verify;
	struct range_sink sink;
	struct range_ends ends;
	int error;
};

static void *merge_part_main(void *context)
{
	struct merge_part *part = context;
	part->error = merge_in_one(part->order, part->inputs, part->count, part->block, part->verify, &part->sink);
	return NULL;
}

/* The parts' splitters (from 1; record NULL: past the largest input's end) located in
 * the inputs, one after another: an input's run serves one reader. */
struct part_cutter {
	const struct merge_input *inputs;
	struct local_run *runs;
	struct sample *splitters;
};

static int part_locate(void *context, void *scratch, size_t splitter, size_t input, uint64_t *position)
{
	(void)scratch;
	struct part_cutter *cutter = context;
	const struct sample *sample = &cutter->splitters[splitter];
	const struct merge_input *in = &cutter->inputs[input];
	if (!sample->record || in->length == 0) {
		*position = in->length;
		return 0;
	}
	int error = splitters_cut(&cutter->runs[input], false, (int)input, sample, position);
	if (error)
		report_file_error(in->name, error);
	return error;
}

/* The largest input's equidistant records as the parts' splitters (ties: input, then
 * position, as the merge orders them), each a copy of its own. */
static int parts_splitters(const struct merge_input *inputs, struct local_run *from, size_t largest, unsigned parts,
			   struct sample *splitters)
{
	for (unsigned t = 1; t < parts; t++) {
		uint64_t at = from->size / parts * t, start, next;
		const unsigned char *record;
		size_t len;
		int error = local_run_next_start(from, at, &start);
		if (!error && start < from->size)
			error = local_run_record(from, start, &record, &len, &next);
		if (error) {
			report_file_error(inputs[largest].name, error);
			return error;
		}
		if (start >= from->size)
			continue;
		unsigned char *copy = malloc(len ? len : 1);
		if (!copy) {
			report_errno(-ENOMEM);
			return -ENOMEM;
		}
		splitters[t] = (struct sample){memcpy(copy, record, len), len, largest, start};
	}
	return 0;
}

/* bounds[t * count + i]: where input i is cut before part t (range_cut.h). */
static int cut_parts(const struct record_order *order, const struct merge_input *inputs, size_t count, unsigned parts,
		     uint64_t *bounds)
{
	struct local_run *runs = calloc(count, sizeof *runs);
	struct sample *splitters = calloc(parts, sizeof *splitters);
	uint64_t *ends = calloc(count, sizeof *ends);
	size_t largest = 0;
	int error = runs && splitters && ends ? 0 : -ENOMEM;
	if (error)
		report_errno(-ENOMEM);
	for (size_t i = 0; i < count; i++) {
		if (runs)
			runs[i].fd = -1;
		if (ends)
			ends[i] = inputs[i].length;
		if (inputs[i].length > inputs[largest].length)
			largest = i;
	}
	/* (an empty input has no file: it stays cut at 0 throughout) */
	for (size_t i = 0; i < count && !error; i++)
		if (inputs[i].length &&
		    (error = local_run_open_range(&runs[i], inputs[i].path, inputs[i].base, inputs[i].length, order)) != 0)
			report_file_error(inputs[i].name, error);
	if (!error)
		error = parts_splitters(inputs, &runs[largest], largest, parts, splitters);
	struct part_cutter cutter = {inputs, runs, splitters};
	const struct range_locator locator = {part_locate, &cutter, 0, 1};
	if (!error)
		error = range_cut(&locator, count, parts, ends, bounds, NULL);
	for (size_t i = 0; runs && i < count; i++)
		local_run_close(&runs[i]);
	for (unsigned t = 0; splitters && t < parts; t++)
		free((void *)splitters[t].record);
	free(runs);
	free(splitters);
	free(ends);
	return error;
}

/* The parts' first and last records into the range's, and the order across parts. */
static void parts_join_ends(const struct record_order *order, struct merge_part *parts, unsigned n,
			    struct sort_verify *verify, struct range_ends *all)
{
	struct range_ends *before = NULL;
	for (unsigned t = 0; t < n; t++) {
		struct range_ends *ends = &parts[t].ends;
		if (ends->error && all)
			all->error = ends->error;
		if (!ends->have)
			continue;
		if (before && verify && verify->enabled &&
		    record_compare(order, before->last, before->last_len, ends->first, ends->first_len) > 0) {
			struct fingerprint none = {0, 0};
			sort_verify_output(verify, &none, 1);
		}
		before = ends;
	}
	if (!all)
		return;
	for (unsigned t = 0; t < n; t++) {
		struct range_ends *ends = &parts[t].ends;
		if (!ends->have)
			continue;
		if (!all->have) {
			all->first = ends->first;
			all->first_len = ends->first_len;
			ends->first = NULL;
			all->have = true;
		}
		free(all->last);
		all->last = ends->last;
		all->last_len = ends->last_len;
		all->last_capacity = ends->last_capacity;
		ends->last = NULL;
	}
}

int rank_merge(const struct record_order *order, const struct merge_input *inputs, size_t count, unsigned threads,
	       size_t block, struct sort_verify *verify, struct range_sink *sink)
{
	uint64_t total = 0;
	for (size_t i = 0; i < count; i++)
		total += inputs[i].length;
	unsigned parts = threads;
	if (total / PART_MIN < parts)
		parts = (unsigned)(total / PART_MIN);
	if (!sink->output || order->unique || parts < 2)
		return merge_in_one(order, inputs, count, block, verify, sink);

	uint64_t *cuts = calloc(count * (parts + 1), sizeof *cuts);
	struct merge_part *part = calloc(parts, sizeof *part);
	struct merge_input *pieces = calloc(count * parts, sizeof *pieces);
	pthread_t *thread = calloc(parts, sizeof *thread);
	bool *started = calloc(parts, sizeof *started);
	int error = cuts && part && pieces && thread && started ? 0 : -ENOMEM;
	if (error)
		report_errno(-ENOMEM);
	else
		error = cut_parts(order, inputs, count, parts, cuts);
	uint64_t offset = 0;
	for (unsigned t = 0; t < parts && !error; t++) {
		part[t] = (struct merge_part){order, pieces + (size_t)t * count, count, block, verify, *sink, {0}, 0};
		part[t].sink.offset = sink->offset + offset;
		part[t].sink.written = 0;
		part[t].sink.ends = sink->ends ? &part[t].ends : NULL;
		for (size_t i = 0; i < count; i++) {
			uint64_t from = cuts[t * count + i], to = cuts[(t + 1) * count + i];
			part[t].inputs[i] = (struct merge_input){inputs[i].path, inputs[i].name, inputs[i].base + from,
								    to - from};
			offset += to - from;
		}
	}
	/* the last part on this thread, the others on theirs (or here, if none starts) */
	if (!error) {
		for (unsigned t = 0; t + 1 < parts; t++)
			started[t] = job_thread_create(&thread[t], merge_part_main, &part[t]) == 0;
		for (unsigned t = 0; t < parts; t++)
			if (t + 1 == parts || !started[t])
				merge_part_main(&part[t]);
		for (unsigned t = 0; t < parts; t++) {
			if (started[t])
				pthread_join(thread[t], NULL);
			sink->written += part[t].sink.written;
			if (part[t].error && !error)
				error = part[t].error;
		}
	}
	if (part && !error)
		parts_join_ends(order, part, parts, verify, sink->ends);
	for (unsigned t = 0; part && t < parts; t++)
		range_ends_free(&part[t].ends);
	free(cuts);
	free(part);
	free(pieces);
	free(thread);
	free(started);
	return error;
}
