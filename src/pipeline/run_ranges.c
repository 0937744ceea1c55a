/* SPDX-License-Identifier: MIT */
/* The final merge's key ranges in the spilled runs (see run_ranges.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "range_cut.h"
#include "run_ranges.h"
#include "../common/report.h"

/* A record as a run's index holds it (a block's first record; a line without its
 * terminator), or as a splitter. */
struct entry {
	const unsigned char *bytes;
	size_t len;
};

static int entry_order(const void *a, const void *b, void *order)
{
	const struct entry *x = a, *y = b;
	return record_compare(order, x->bytes, x->len, y->bytes, y->len);
}


void range_plan_free(struct range_plan *plan)
{
	for (size_t r = 0; plan->block_starts && r < plan->k; r++)
		free(plan->block_starts[r]);
	free(plan->block_starts);
	free(plan->bounds);
}

/* The first record of block[0, bytes) not before key: its byte offset. Fixed-size
 * records by binary search; lines, whose starts are unknown, one after another. */
static size_t block_lower_bound(const struct record_order *order, const unsigned char *block, size_t bytes,
				const struct entry *key)
{
	size_t size = order->record_size;
	if (size) {
		size_t first = 0, last = bytes / size;
		while (first < last) {
			size_t middle = first + (last - first) / 2;
			if (record_compare(order, block + middle * size, size, key->bytes, key->len) < 0)
				first = middle + 1;
			else
				last = middle;
		}
		return first * size;
	}
	size_t at = 0, step;
	while (at < bytes) {
		size_t len = record_length(order, block + at, bytes - at, &step);
		if (record_compare(order, block + at, len, key->bytes, key->len) >= 0)
			break;
		at += step;
	}
	return at;
}

/* The first position in run r whose record is not before key: the last block whose
 * first record is before it (binary search over the index), then a search inside it. */
static int run_lower_bound(const struct record_order *order, struct run *run, const uint64_t *starts,
			   const struct entry *key, unsigned char *buffer, size_t buffer_bytes, uint64_t *position)
{
	size_t low = 0, high = run_reader_block_count(run->reader);
	/* invariant: blocks below low start before key; blocks at high and above do not */
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		struct run_block_info info;
		int error = run_reader_block_info(run->reader, middle, &info);
		if (error)
			return error;
		if (record_compare(order, info.index_entry, info.index_entry_bytes, key->bytes, key->len) < 0)
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
	if (bytes < 0)
		return (int)bytes; /* reported by the caller, once */
	*position = starts[block] + block_lower_bound(order, buffer, (size_t)bytes, key);
	return 0;
}

/* Locates the plan's splitters in the runs (range_cut.h): a bound costs a block read
 * and decompressed, in the thread's own block buffer. */
struct run_locator {
	const struct record_order *order;
	struct run_list *list;
	const struct range_plan *plan;
	const struct entry *const *splitters; /* per range from 1 */
	size_t max_block;
};

static int run_locate(void *context, void *scratch, size_t splitter, size_t run, uint64_t *position)
{
	const struct run_locator *locator = context;
	return run_lower_bound(locator->order, &locator->list->runs[run], locator->plan->block_starts[run],
			       locator->splitters[splitter], scratch, locator->max_block, position);
}

/* Splitters from the sorted union of the runs' index entries (each block's first
 * record), at equal distances. */
int range_plan_build(const struct record_order *order, struct run_list *list, size_t wanted_ranges,
		     unsigned threads, struct range_plan *plan)
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
			starts[b + 1] = starts[b] + info.bytes;
		}
		blocks += count;
		if (run_reader_max_block_bytes(reader) > max_block)
			max_block = run_reader_max_block_bytes(reader);
	}
	struct entry *entries = malloc((blocks ? blocks : 1) * sizeof *entries);
	if (wanted_ranges > blocks)
		wanted_ranges = blocks ? blocks : 1;
	const struct entry **splitters = calloc(wanted_ranges, sizeof *splitters);
	plan->bounds = calloc((wanted_ranges + 1) * k, sizeof *plan->bounds);
	int error = entries && splitters && plan->bounds ? 0 : -ENOMEM;
	size_t at = 0;
	for (size_t r = 0; r < k && !error; r++)
		for (size_t b = 0; b < run_reader_block_count(list->runs[r].reader); b++) {
			struct run_block_info info;
			run_reader_block_info(list->runs[r].reader, b, &info);
			entries[at++] = (struct entry){info.index_entry, info.index_entry_bytes};
		}
	if (!error)
		qsort_r(entries, blocks, sizeof *entries, entry_order, (void *)order);
	/* Range 0 starts at 0 in every run; each distinct splitter starts one more. */
	size_t ranges = 1;
	const struct entry *previous = NULL;
	for (size_t j = 1; j < wanted_ranges && !error; j++) {
		const struct entry *splitter = &entries[j * blocks / wanted_ranges];
		if (previous && entry_order(previous, splitter, (void *)order) == 0)
			continue;
		previous = splitter;
		splitters[ranges++] = splitter;
	}
	uint64_t *ends = malloc((k ? k : 1) * sizeof *ends);
	for (size_t r = 0; r < k && ends; r++)
		ends[r] = plan->block_starts[r][run_reader_block_count(list->runs[r].reader)];
	if (!error && !ends)
		error = -ENOMEM;
	struct run_locator context = {order, list, plan, splitters, max_block};
	const struct range_locator locator = {run_locate, &context, max_block, threads};
	size_t failed = k;
	if (!error && (error = range_cut(&locator, k, ranges, ends, plan->bounds, &failed)) != 0 && failed < k)
		report_file_failure("read failed", list->runs[failed].path, error);
	free(ends);
	plan->ranges = ranges;
	free(entries);
	free(splitters);
	return error;
}
