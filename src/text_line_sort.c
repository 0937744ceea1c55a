/* Run formation for text: prefixes computed in parallel, items sorted by the engine,
 * then the runs of equal prefixes ordered by the comparator (in parallel over batches
 * of runs). The item array is reused in place for the line numbers. */
#include "text_line_sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "text_merge_sort.h"
#include "text_prefix.h"

#define SLICE_LINES 65536
#define BATCH_LINES 4096

struct prefix_job {
	const struct text_order *order;
	const struct text_lines *lines;
	item_u128 *items;
};

static void make_items(void *ctx, size_t slice)
{
	struct prefix_job *job = ctx;
	size_t begin = slice * SLICE_LINES, end = begin + SLICE_LINES;
	if (end > job->lines->count)
		end = job->lines->count;
	for (size_t i = begin; i < end; i++) {
		size_t len;
		const char *line = text_line(job->lines, i, &len);
		job->items[i] = item_u128_make(text_prefix(job->order, line, len), i);
	}
}

/* A tie run [start, start + length) of the sorted array. */
struct tie_run {
	size_t start, length;
};

struct tie_job {
	const struct text_order *order;
	const struct text_lines *lines;
	uint64_t *index;
	const struct tie_run *runs;
	const size_t *batch_starts; /* batch b covers runs [batch_starts[b], batch_starts[b+1]) */
};

static void finish_batch(void *ctx, size_t batch)
{
	struct tie_job *job = ctx;
	uint64_t stack[BATCH_LINES];
	for (size_t r = job->batch_starts[batch]; r < job->batch_starts[batch + 1]; r++) {
		const struct tie_run *run = &job->runs[r];
		if (run->length <= BATCH_LINES) /* larger runs were sorted on their own */
			text_merge_sort(job->order, job->lines, job->index + run->start, stack,
					run->length, NULL);
	}
}

/* Sorts the items, in pieces the engine can take and merged here when it cannot take
 * them all at once. */
static int sort_items(struct sort_engine *engine, item_u128 *items, size_t n)
{
	size_t most = sort_engine_max_items(engine, ITEM_U128);
	if (most == 0 || most >= n)
		return sort_engine_sort(engine, ITEM_U128, items, n);
	item_u128 *scratch = malloc(n * sizeof *scratch);
	if (!scratch)
		return -ENOMEM;
	int err = 0;
	for (size_t begin = 0; begin < n && !err; begin += most)
		err = sort_engine_sort(engine, ITEM_U128, items + begin, n - begin < most ? n - begin : most);
	for (size_t width = most; width < n && !err; width *= 2) {
		for (size_t begin = 0; begin < n; begin += 2 * width) {
			size_t middle = begin + width < n ? begin + width : n;
			size_t end = middle + width < n ? middle + width : n;
			size_t i = begin, j = middle, k = begin;
			while (i < middle && j < end)
				scratch[k++] = items[j] < items[i] ? items[j++] : items[i++];
			while (i < middle)
				scratch[k++] = items[i++];
			while (j < end)
				scratch[k++] = items[j++];
		}
		memcpy(items, scratch, n * sizeof *items);
	}
	free(scratch);
	return err;
}

int text_line_sort(const struct text_order *order, const struct text_lines *lines,
		   struct sort_engine *engine, struct thread_pool *pool, uint64_t **sorted)
{
	size_t n = lines->count;
	*sorted = NULL;
	/* malloc, not the engine's pinned buffers: the array outlives the engine's use as
	 * the output order and is released with free(). */
	item_u128 *items = malloc((n ? n : 1) * sizeof *items);
	if (!items)
		return -ENOMEM;
	struct prefix_job prefix_job = { order, lines, items };
	thread_pool_parallel_for(pool, (n + SLICE_LINES - 1) / SLICE_LINES, make_items, &prefix_job);

	int err = sort_items(engine, items, n);
	if (err) {
		free(items);
		return err;
	}

	/* Find the tie runs, then turn items into line numbers in place (entry i of the
	 * narrower array never overwrites an item not yet read). */
	struct tie_run *runs = NULL;
	size_t run_count = 0, run_capacity = 0;
	for (size_t i = 0; i + 1 < n;) {
		uint64_t prefix = item_u128_high(items[i]);
		size_t j = i + 1;
		while (j < n && item_u128_high(items[j]) == prefix)
			j++;
		if (j - i > 1) {
			if (run_count == run_capacity) {
				run_capacity = run_capacity ? 2 * run_capacity : 1024;
				struct tie_run *grown = realloc(runs, run_capacity * sizeof *runs);
				if (!grown) {
					free(runs);
					free(items);
					return -ENOMEM;
				}
				runs = grown;
			}
			runs[run_count++] = (struct tie_run){ i, j - i };
		}
		i = j;
	}
	uint64_t *index = (uint64_t *)items;
	for (size_t i = 0; i < n; i++)
		index[i] = item_u128_low(items[i]);

	/* A run larger than a batch is sorted on its own with all threads; the small runs
	 * go to the pool in batches of about BATCH_LINES lines. */
	size_t *batch_starts = malloc((run_count + 1) * sizeof *batch_starts);
	if (!batch_starts) {
		free(runs);
		free(items);
		return -ENOMEM;
	}
	size_t batches = 0, in_batch = 0;
	for (size_t r = 0; r < run_count && !err; r++) {
		if (runs[r].length > BATCH_LINES) {
			uint64_t *scratch = malloc(runs[r].length * sizeof *scratch);
			if (!scratch)
				err = -ENOMEM;
			else
				text_merge_sort(order, lines, index + runs[r].start, scratch,
						runs[r].length, pool);
			free(scratch);
			continue;
		}
		if (in_batch == 0)
			batch_starts[batches] = r;
		in_batch += runs[r].length;
		if (in_batch >= BATCH_LINES) {
			batch_starts[++batches] = r + 1;
			in_batch = 0;
		}
	}
	if (in_batch)
		batch_starts[++batches] = run_count;
	if (!err) {
		struct tie_job tie_job = { order, lines, index, runs, batch_starts };
		thread_pool_parallel_for(pool, batches, finish_batch, &tie_job);
	}
	free(runs);
	free(batch_starts);
	if (err) {
		free(items);
		return err;
	}
	*sorted = index;
	return 0;
}
