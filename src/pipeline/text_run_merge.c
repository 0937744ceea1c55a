/* Key ranges: a splitter S cuts every run at its first line that compares above S, so
 * lines equal to S all fall in one range (stability and -u need no look across ranges).
 * Within a run the cut lies in the last block whose first line is not above S (binary
 * search over the index); a range's reader skips the lines not above its lower
 * splitter in its first block and stops above its upper one in its last block. Each
 * range is merged by text_merge_sources into a writer in memory; ranges go in rounds
 * of as many as the budget lets run at once, and each round is written in order. */
#include "text_run_merge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../text/text_compare.h"
#include "../text/text_lines.h"
#include "text_merge.h"
#include "../text/text_merge_sort.h"

struct split_line {
	const char *line;
	size_t len;
};

/* One run's part of one range. */
struct range_source {
	const struct text_order *order;
	struct run_reader *reader;
	char *buffer;
	size_t buffer_bytes, position, end;
	size_t block, last_block;   /* blocks [block, last_block] remain */
	size_t current;             /* the block in the buffer */
	const struct split_line *lower, *upper; /* NULL: unbounded */
	bool skipping, done;
};

static int next_in_range(void *state, const char **line, size_t *len)
{
	struct range_source *s = state;
	const unsigned char eol = s->order->eol;
	for (;;) {
		if (s->done)
			return 0;
		if (s->position == s->end) {
			if (s->block > s->last_block) {
				s->done = true;
				return 0;
			}
			ssize_t got = run_reader_read_block(s->reader, s->block, s->buffer, s->buffer_bytes);
			if (got < 0)
				return (int)got;
			s->current = s->block++;
			s->position = 0;
			s->end = (size_t)got;
			continue;
		}
		char *start = s->buffer + s->position;
		char *hit = memchr(start, eol, s->end - s->position);
		size_t n = hit ? (size_t)(hit - start) : s->end - s->position;
		s->position += n + (hit != NULL);
		if (s->skipping) {
			if (text_compare_lines(s->order, start, n, s->lower->line, s->lower->len) <= 0)
				continue;
			s->skipping = false;
		}
		if (s->upper && s->current == s->last_block &&
		    text_compare_lines(s->order, start, n, s->upper->line, s->upper->len) > 0) {
			s->done = true;
			return 0;
		}
		*line = start;
		*len = n;
		return 1;
	}
}

struct merge_plan {
	const struct text_order *order;
	struct run_reader *const *runs;
	size_t count;
	struct split_line *splitters; /* ranges - 1 of them */
	size_t ranges;
	long *cuts;                   /* cuts[k * count + r]: run r's block for splitter k, -1: none */
	struct text_writer *outputs;  /* one per range of the round */
	char **buffers;               /* per range of the round: count block buffers */
	size_t round_first;
	int *errors;
};

static int first_line(struct run_reader *reader, size_t block, struct split_line *line)
{
	struct run_block_info info;
	int err = run_reader_block_info(reader, block, &info);
	if (err)
		return err;
	line->line = info.index_entry;
	line->len = info.index_entry_bytes;
	return 0;
}

/* The last block of the run whose first line is not above s, or -1. */
static long cut_block(const struct text_order *order, struct run_reader *reader,
		      const struct split_line *s)
{
	long low = 0, high = (long)run_reader_block_count(reader) - 1, found = -1;
	while (low <= high) {
		long middle = low + (high - low) / 2;
		struct split_line first;
		if (first_line(reader, (size_t)middle, &first) != 0)
			return -1;
		if (text_compare_lines(order, first.line, first.len, s->line, s->len) <= 0) {
			found = middle;
			low = middle + 1;
		} else {
			high = middle - 1;
		}
	}
	return found;
}

static void merge_range(void *ctx, size_t index)
{
	struct merge_plan *plan = ctx;
	size_t range = plan->round_first + index;
	size_t count = plan->count;
	struct range_source *states = calloc(count, sizeof *states);
	struct text_source *sources = calloc(count, sizeof *sources);
	int err = states && sources ? 0 : -ENOMEM;
	size_t live = 0;
	for (size_t r = 0; r < count && !err; r++) {
		struct run_reader *reader = plan->runs[r];
		size_t blocks = run_reader_block_count(reader);
		long first = range == 0 ? 0 : plan->cuts[(range - 1) * count + r];
		long last = range + 1 == plan->ranges ? (long)blocks - 1 : plan->cuts[range * count + r];
		if (first < 0)
			first = 0;
		if (last < first)
			continue; /* nothing of this run is in the range */
		struct range_source *s = &states[live];
		s->order = plan->order;
		s->reader = reader;
		s->buffer = plan->buffers[index * count + r];
		s->buffer_bytes = run_reader_max_block_bytes(reader);
		s->block = (size_t)first;
		s->last_block = (size_t)last;
		s->lower = range == 0 ? NULL : &plan->splitters[range - 1];
		s->upper = range + 1 == plan->ranges ? NULL : &plan->splitters[range];
		s->skipping = s->lower != NULL;
		sources[live] = (struct text_source){ next_in_range, s };
		live++;
	}
	if (!err) {
		size_t failed;
		err = text_merge_sources(plan->order, sources, live, &plan->outputs[index], &failed);
	}
	free(states);
	free(sources);
	plan->errors[index] = err;
}

/* Picks the splitters: the blocks' first lines of all runs, sorted, taken at equal
 * steps. Fills plan->splitters and plan->ranges (at most `wanted` ranges). */
static int choose_splitters(struct merge_plan *plan, size_t wanted, struct text_lines *samples,
			    struct thread_pool *pool)
{
	size_t total = 0, bytes = 0;
	for (size_t r = 0; r < plan->count; r++) {
		size_t blocks = run_reader_block_count(plan->runs[r]);
		for (size_t b = 0; b < blocks; b++) {
			struct split_line line;
			int err = first_line(plan->runs[r], b, &line);
			if (err)
				return err;
			total++;
			bytes += line.len + 1;
		}
	}
	int err = text_lines_reserve(samples, bytes + 1);
	if (err)
		return err;
	for (size_t r = 0; r < plan->count; r++) {
		size_t blocks = run_reader_block_count(plan->runs[r]);
		for (size_t b = 0; b < blocks; b++) {
			struct split_line line;
			if ((err = first_line(plan->runs[r], b, &line)) != 0)
				return err;
			memcpy(samples->data + samples->size, line.line, line.len);
			samples->size += line.len;
			samples->data[samples->size++] = (char)samples->eol;
		}
	}
	if ((err = text_lines_index(samples, NULL)) != 0)
		return err;
	uint64_t *index = malloc((total ? total : 1) * 2 * sizeof *index);
	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < total; i++)
		index[i] = i;
	text_merge_sort(plan->order, samples, index, index + total, total, pool);
	size_t ranges = wanted < total ? wanted : total;
	if (ranges < 1)
		ranges = 1;
	plan->splitters = calloc(ranges, sizeof *plan->splitters);
	if (!plan->splitters) {
		free(index);
		return -ENOMEM;
	}
	for (size_t k = 1; k < ranges; k++) {
		size_t len;
		const char *line = text_line(samples, index[total * k / ranges], &len);
		plan->splitters[k - 1] = (struct split_line){ line, len };
	}
	plan->ranges = ranges;
	free(index);
	return 0;
}

int text_run_merge(const struct text_order *order, struct run_reader *const *runs,
		   size_t count, struct text_writer *writer, struct thread_pool *pool,
		   size_t budget)
{
	size_t threads = thread_pool_size(pool);
	uint64_t raw = 0;
	size_t block_bytes = 0;
	for (size_t r = 0; r < count; r++) {
		size_t blocks = run_reader_block_count(runs[r]);
		for (size_t b = 0; b < blocks; b++) {
			struct run_block_info info;
			int err = run_reader_block_info(runs[r], b, &info);
			if (err)
				return err;
			raw += info.bytes;
		}
		block_bytes += run_reader_max_block_bytes(runs[r]);
	}
	/* A range in flight holds a block of every run and its merged lines. Its lines
	 * should at least match those blocks (it reads most of each of them, its first and
	 * last partly), and there should be 4 ranges per thread; as many go at once as
	 * the budget holds (the chunks' memory is free by now). */
	uint64_t target = raw / (4 * threads) + 1;
	if (target < block_bytes)
		target = block_bytes;
	size_t wanted = (size_t)(raw / target) + 1;
	size_t at_once = budget / (block_bytes + (size_t)target);
	if (at_once > threads)
		at_once = threads;
	if (at_once < 1)
		at_once = 1;

	struct merge_plan plan = { .order = order, .runs = runs, .count = count };
	struct text_lines samples;
	text_lines_init(&samples, order->eol);
	int err = choose_splitters(&plan, wanted, &samples, pool);
	if (!err) {
		plan.cuts = malloc((plan.ranges ? plan.ranges : 1) * count * sizeof *plan.cuts);
		plan.outputs = calloc(at_once, sizeof *plan.outputs);
		plan.buffers = calloc(at_once * count, sizeof *plan.buffers);
		plan.errors = calloc(at_once, sizeof *plan.errors);
		if (!plan.cuts || !plan.outputs || !plan.buffers || !plan.errors)
			err = -ENOMEM;
	}
	for (size_t i = 0; i < at_once * count && !err; i++) {
		plan.buffers[i] = malloc(run_reader_max_block_bytes(runs[i % count]) + 1);
		if (!plan.buffers[i])
			err = -ENOMEM;
	}
	for (size_t k = 0; !err && k + 1 < plan.ranges; k++)
		for (size_t r = 0; r < count; r++)
			plan.cuts[k * count + r] = cut_block(order, runs[r], &plan.splitters[k]);
	for (size_t first = 0; !err && first < plan.ranges; first += at_once) {
		size_t round = plan.ranges - first < at_once ? plan.ranges - first : at_once;
		plan.round_first = first;
		for (size_t i = 0; i < round && !err; i++) {
			err = text_writer_init_memory(&plan.outputs[i], order, 1 << 16);
			/* each range checks its own lines; writer checks the seams between them */
			plan.outputs[i].verify = writer->verify;
			plan.outputs[i].to_output = writer->to_output;
		}
		if (!err)
			thread_pool_parallel_for(pool, round, merge_range, &plan);
		for (size_t i = 0; i < round; i++) {
			if (!err)
				err = plan.errors[i];
			if (!err)
				err = text_writer_bytes(writer, plan.outputs[i].buffer, plan.outputs[i].used);
			text_writer_free(&plan.outputs[i]);
		}
	}
	for (size_t i = 0; plan.buffers && i < at_once * count; i++)
		free(plan.buffers[i]);
	free(plan.buffers);
	free(plan.outputs);
	free(plan.errors);
	free(plan.cuts);
	free(plan.splitters);
	text_lines_free(&samples);
	return err;
}
