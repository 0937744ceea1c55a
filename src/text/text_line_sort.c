/* SPDX-License-Identifier: MIT */
/* Run formation for text: prefixes computed as the lines are indexed, items sorted by
 * the engine, then the runs of equal prefixes ordered by the comparator (in parallel
 * over slices of the sorted array). An item is the line's 8-byte prefix over its
 * number: 12 bytes (ITEM_U96) while the numbers fit 32 bits, as they do in any chunk of
 * fewer than 2^32 lines, else 16 (ITEM_U128). */
#include "text_line_sort.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "text_merge_sort.h"
#include "../common/job_context.h"
#include "../../kernels/huge_memory.h"
#include "text_prefix.h"

#define SLICE_LINES 65536
#define BATCH_LINES 4096
#define LARGE_RUN_LINES (1u << 16) /* longer tie runs are sorted with all threads */

static enum item_width items_width(size_t n)
{
	return item_positions_fit_u32(n) ? ITEM_U96 : ITEM_U128;
}

static inline void item_put(enum item_width width, void *items, size_t i, uint64_t prefix)
{
	if (width == ITEM_U96)
		((item_u96 *)items)[i] = item_u96_make(prefix, (uint32_t)i);
	else
		((item_u128 *)items)[i] = item_u128_make(prefix, i);
}

static inline uint64_t item_prefix(enum item_width width, const void *items, size_t i)
{
	return item_pair_image(width, (const unsigned char *)items + i * (size_t)width);
}

static inline uint64_t item_line(enum item_width width, const void *items, size_t i)
{
	return item_pair_position(width, (const unsigned char *)items + i * (size_t)width);
}

/* Whether item i of a goes before item j of b: prefix, then line number. */
static inline bool item_before(enum item_width width, const void *a, size_t i, const void *b, size_t j)
{
	uint64_t x = item_prefix(width, a, i), y = item_prefix(width, b, j);
	return x < y || (x == y && item_line(width, a, i) < item_line(width, b, j));
}

/* Fewer collated lines than this are sorted by the comparator alone: a merge sort's
 * n log n strcoll calls, each stopping at the first difference, cost less than the
 * prefixes' strxfrm of every line (a whole image each). */
#define COLLATED_COMPARED_LINES 2048

size_t text_line_sort_item_bytes(size_t n)
{
	return (size_t)items_width(n);
}

size_t text_line_sort_extra_bytes(const struct text_order *order)
{
	return text_prefix_keeps_next(order) ? sizeof(uint64_t) : 0;
}

/* The bytes to allocate for n entries of size each where have are allocated: 0 when
 * they fit; past a chunk with fewer lines, room for an eighth more yet. */
static size_t grown_bytes(size_t n, size_t size, size_t have)
{
	size_t bytes = (n ? n : 1) * size;
	return bytes <= have ? 0 : have ? bytes + bytes / 8 : bytes;
}

/* Room for n next words, kept from chunk to chunk as the items are. */
static int next_words_reserve(struct text_line_items *items, size_t n)
{
	size_t bytes = grown_bytes(n, sizeof *items->next_words, items->next_bytes);
	if (!bytes)
		return 0;
	huge_memory_free(items->next_words);
	items->next_bytes = 0;
	items->next_words = huge_memory_alloc(bytes);
	if (!items->next_words)
		return -ENOMEM;
	items->next_bytes = bytes;
	return 0;
}

int text_line_items_reserve(struct text_line_items *items, const struct text_order *order, size_t n,
			    struct sort_engine *engine)
{
	items->order = order;
	items->compared = n < COLLATED_COMPARED_LINES && text_prefix_collates(order);
	items->width = items_width(n);
	if (!items->compared && text_prefix_keeps_next(order)) {
		int err = next_words_reserve(items, n);
		if (err)
			return err;
	}
	size_t bytes = grown_bytes(n, items->width, items->bytes);
	if (!bytes)
		return 0;
	sort_engine_host_free(engine, items->items, items->bytes);
	items->bytes = 0;
	items->items = sort_engine_host_alloc(engine, bytes);
	if (!items->items)
		return -ENOMEM;
	items->bytes = bytes;
	return 0;
}

void text_line_items_free(struct text_line_items *items, struct sort_engine *engine)
{
	sort_engine_host_free(engine, items->items, items->bytes);
	items->items = NULL;
	items->bytes = 0;
	huge_memory_free(items->next_words);
	items->next_words = NULL;
	items->next_bytes = 0;
}

void text_line_items_make(void *context, const struct text_lines *lines, size_t first, size_t end)
{
	struct text_line_items *items = context;
	if (items->compared)
		return;
	if (text_prefix_keeps_next(items->order)) {
		for (size_t i = first; i < end; i++) {
			size_t len;
			const char *line = text_line(lines, i, &len);
			uint64_t prefix = text_prefix_pair(items->order, line, len, &items->next_words[i]);
			item_put(items->width, items->items, i, prefix);
		}
		return;
	}
	for (size_t i = first; i < end; i++) {
		size_t len;
		const char *line = text_line(lines, i, &len);
		item_put(items->width, items->items, i, text_prefix(items->order, line, len));
	}
}

/* A tie run [start, start + length) of the sorted array. */
struct tie_run {
	size_t start, length;
};

/* After the engine: each slice turns the runs of equal prefixes that start in it into
 * line numbers and orders those that tie (a run may reach into the next slice, which
 * skips it), in one pass over the sorted items. Runs too large for one thread are kept
 * per slice and sorted afterwards (sort_large_runs). */
struct finish_job {
	const struct text_order *order;
	const struct text_lines *lines;
	enum item_width width;
	const void *items;
	uint64_t *index;
	size_t n;
	const uint64_t *next_words; /* the lines' text_prefix_at at depth 1, or NULL */
	struct tie_run **large; /* per slice: its large runs, NULL when none */
	size_t *large_count;
	atomic_int error; /* set by any slice's thread */
	struct thread_pool *pool;
};

/* A collated key's images take a strxfrm of every line of the run, where the comparator
 * (strcoll, which stops at the first difference) takes a few per line: shorter runs
 * than this are left to it. */
#ifndef COLLATED_DEEPER_LINES
#define COLLATED_DEEPER_LINES 256
#endif

/* Whether a tie run of length lines is told apart by the deeper prefixes. */
static bool run_deepens(const struct text_order *order, size_t length)
{
	return text_prefix_deepens(order) && (text_prefix_exact(order) || length >= COLLATED_DEEPER_LINES);
}

/* How many 8-byte steps past the prefix a tie run is told apart by its keys' bytes (and
 * then its lines') before the comparator orders what still ties. */
#define DEEPER_STEPS 6

/* A line of a tie run by its key's next 8 bytes: the image, its place in the run. */
struct deeper {
	uint64_t image;
	uint64_t line;
	size_t at;
	size_t size; /* the key's (the line's) bytes */
};

static int deeper_order(const void *a, const void *b)
{
	const struct deeper *x = a, *y = b;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* Orders index[0, n) by the comparator (text_merge_sort). */
static int sort_compared(const struct text_order *order, const struct text_lines *lines, uint64_t *index,
			 size_t n, uint64_t *stack)
{
	uint64_t *scratch = n > BATCH_LINES ? malloc(n * sizeof *scratch) : stack;
	if (!scratch)
		return -ENOMEM;
	text_merge_sort(order, lines, index, scratch, n, NULL);
	if (scratch != stack)
		free(scratch);
	return 0;
}

/* Tie runs this short are told apart in a table on the stack. */
#define DEEPER_STACK_LINES 32

/* Orders index[0, n), lines whose keys (with whole_line: whole lines, the keys all
 * equal) tie in their first 8 * depth bytes: by the next 8 (text_prefix_at, or at depth
 * 1 next_words where kept), and each group that ties there again one step deeper, up
 * to DEEPER_STEPS, then by the comparator. Keeps the order of lines equal throughout
 * (the comparator sees them in it), so the result is text_merge_sort's. */
static int sort_deeper(const struct text_order *order, const struct text_lines *lines, uint64_t *index,
		       size_t n, size_t depth, bool whole_line, uint64_t *stack, const uint64_t *next_words)
{
	if (n < 2)
		return 0;
	struct deeper small[DEEPER_STACK_LINES];
	struct deeper *all = depth > DEEPER_STEPS ? NULL : n <= DEEPER_STACK_LINES ? small : malloc(n * sizeof *all);
	if (!all)
		return sort_compared(order, lines, index, n, stack);
	bool kept = next_words && depth == 1 && !whole_line;
	for (size_t k = 0; k < n; k++) {
		all[k] = (struct deeper){.line = index[k], .at = k};
		if (kept) { /* the key's size unknown: it may go on */
			all[k].image = next_words[index[k]];
			all[k].size = SIZE_MAX;
			continue;
		}
		size_t len;
		const char *line = text_line(lines, index[k], &len);
		all[k].image = text_prefix_at(order, line, len, depth, whole_line, &all[k].size);
	}
	qsort(all, n, sizeof *all, deeper_order);
	for (size_t k = 0; k < n; k++)
		index[k] = all[k].line;
	int error = 0;
	for (size_t k = 0; k < n && !error;) {
		size_t j = k + 1, end = 8 * (depth + 1);
		bool more = all[k].size > end, same_size = true;
		for (; j < n && all[j].image == all[k].image; j++) {
			more |= all[j].size > end;
			same_size &= all[j].size == all[k].size;
		}
		if (j - k > 1) {
			if (more && (whole_line || run_deepens(order, j - k)))
				error = sort_deeper(order, lines, index + k, j - k, depth + 1, whole_line, stack,
						    next_words);
			else if (more || !same_size || !text_prefix_exact(order))
				/* a short group, a NUL byte read as the padding, or an image that is
				 * not the whole key: compare */
				error = sort_compared(order, lines, index + k, j - k, stack);
			else if (!whole_line && text_prefix_line_deepens(order))
				/* equal keys: the last resort compares whole lines */
				error = sort_deeper(order, lines, index + k, j - k, 0, true, stack, NULL);
			else if (!whole_line && (order->key_count > 1 || order->last_resort))
				error = sort_compared(order, lines, index + k, j - k, stack);
			/* else equal lines, which stay as they are */
		}
		k = j;
	}
	if (all != small)
		free(all);
	return error;
}

/* The step a tie run's sort_deeper starts at: past the kept next words' depth. */
static size_t deeper_start(const struct text_order *order, const uint64_t *next_words)
{
	return next_words ? 1 : text_prefix_deeper_start(order);
}

static void slice_range(size_t n, size_t slice, size_t *begin, size_t *end)
{
	*begin = slice * SLICE_LINES;
	*end = *begin + SLICE_LINES < n ? *begin + SLICE_LINES : n;
}

static void finish_slice(void *ctx, size_t slice)
{
	struct finish_job *job = ctx;
	const void *items = job->items;
	enum item_width width = job->width;
	size_t begin, end, capacity = 0;
	if (job_cancelled()) {
		atomic_store(&job->error, -ECANCELED);
		return;
	}
	slice_range(job->n, slice, &begin, &end);
	uint64_t stack[BATCH_LINES];
	size_t i = begin;
	/* The run going on at the slice's start belongs to an earlier slice. */
	while (i > 0 && i < end && item_prefix(width, items, i) == item_prefix(width, items, i - 1))
		i++;
	while (i < end) {
		uint64_t prefix = item_prefix(width, items, i);
		job->index[i] = item_line(width, items, i);
		size_t j = i + 1;
		for (; j < job->n && item_prefix(width, items, j) == prefix; j++)
			job->index[j] = item_line(width, items, j);
		size_t length = j - i;
		if (length > LARGE_RUN_LINES) {
			if (job->large_count[slice] == capacity) {
				capacity = capacity ? 2 * capacity : 4;
				struct tie_run *grown = realloc(job->large[slice], capacity * sizeof *grown);
				if (!grown) {
					atomic_store(&job->error, -ENOMEM);
					return;
				}
				job->large[slice] = grown;
			}
			job->large[slice][job->large_count[slice]++] = (struct tie_run){ i, length };
		} else if (length > 1 && (job->next_words || run_deepens(job->order, length))) {
			int error = sort_deeper(job->order, job->lines, job->index + i, length,
						deeper_start(job->order, job->next_words), false, stack, job->next_words);
			if (error) {
				atomic_store(&job->error, error);
				return;
			}
		} else if (length > BATCH_LINES) {
			uint64_t *scratch = malloc(length * sizeof *scratch);
			if (!scratch) {
				atomic_store(&job->error, -ENOMEM);
				return;
			}
			text_merge_sort(job->order, job->lines, job->index + i, scratch, length, NULL);
			free(scratch);
		} else if (length > 1) {
			text_merge_sort(job->order, job->lines, job->index + i, stack, length, NULL);
		}
		i = j;
	}
	thread_pool_progress(job->pool, end - begin);
}

/* Large tie runs told apart by the deeper prefixes, a run to a thread. */
struct deepen_job {
	const struct text_order *order;
	const struct text_lines *lines;
	uint64_t *index;
	const struct tie_run *runs;
	const uint64_t *next_words;
	atomic_int error;
};

static void deepen_run(void *ctx, size_t r)
{
	struct deepen_job *job = ctx;
	if (job_cancelled()) {
		atomic_store(&job->error, -ECANCELED);
		return;
	}
	uint64_t stack[BATCH_LINES];
	int error = sort_deeper(job->order, job->lines, job->index + job->runs[r].start, job->runs[r].length,
				deeper_start(job->order, job->next_words), false, stack, job->next_words);
	if (error)
		atomic_store(&job->error, error);
}

/* The tie runs too long for a slice's thread: where the key has deeper prefixes, those
 * of at most half the lines by them, many runs at once; the others one after another
 * by the comparator's merge sort on all threads. Frees the slices' lists; returns err
 * (the slices' error, when they failed: then nothing is sorted) or the first of its own. */
static int sort_large_runs(const struct finish_job *finish, struct thread_pool *pool, size_t slices, int err)
{
	size_t total = 0, deep = 0;
	for (size_t slice = 0; slice < slices; slice++)
		total += finish->large_count[slice];
	struct tie_run *runs = total && !err ? malloc(total * sizeof *runs) : NULL;
	if (total && !err && !runs)
		err = -ENOMEM;
	for (size_t slice = 0; slice < slices; slice++) {
		for (size_t r = 0; r < finish->large_count[slice] && !err; r++) {
			struct tie_run run = finish->large[slice][r];
			if (run_deepens(finish->order, run.length) && run.length <= finish->n / 2) {
				runs[deep++] = run;
				continue;
			}
			uint64_t *scratch = huge_memory_alloc(run.length * sizeof *scratch);
			if (!scratch)
				err = -ENOMEM;
			else
				text_merge_sort(finish->order, finish->lines, finish->index + run.start, scratch, run.length,
						pool);
			huge_memory_free(scratch);
		}
		free(finish->large[slice]);
	}
	if (!err && deep) {
		struct deepen_job job = {finish->order, finish->lines, finish->index, runs, finish->next_words, 0};
		thread_pool_parallel_for(pool, deep, deepen_run, &job);
		err = atomic_load(&job.error);
	}
	free(runs);
	return err;
}

/* Sorts the items, in pieces the engine can take and merged here when it cannot take
 * them all at once. */
static int sort_items(struct sort_engine *engine, enum item_width width, void *items, size_t n)
{
	size_t most = sort_engine_max_items(engine, width), w = (size_t)width;
	if (most == 0 || most >= n)
		return sort_engine_sort(engine, width, items, n);
	unsigned char *all = items, *scratch = huge_memory_alloc(n * w);
	if (!scratch)
		return -ENOMEM;
	int err = 0;
	for (size_t begin = 0; begin < n && !err; begin += most)
		err = sort_engine_sort(engine, width, all + begin * w, n - begin < most ? n - begin : most);
	for (size_t run = most; run < n && !err; run *= 2) {
		for (size_t begin = 0; begin < n; begin += 2 * run) {
			size_t middle = begin + run < n ? begin + run : n;
			size_t end = middle + run < n ? middle + run : n;
			size_t i = begin, j = middle, k = begin;
			while (i < middle && j < end) {
				size_t from = item_before(width, all, j, all, i) ? j++ : i++;
				memcpy(scratch + k++ * w, all + from * w, w);
			}
			memcpy(scratch + k * w, all + i * w, (middle - i) * w);
			k += middle - i;
			memcpy(scratch + k * w, all + j * w, (end - j) * w);
		}
		memcpy(all, scratch, n * w);
	}
	huge_memory_free(scratch);
	return err;
}

/* The lines' index ordered by the comparator alone (text_line_items.compared). */
static int sort_by_comparator(const struct text_order *order, const struct text_lines *lines, size_t n,
			      uint64_t **sorted)
{
	uint64_t *index = huge_memory_alloc((n ? n : 1) * sizeof *index);
	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		index[i] = i;
	uint64_t stack[BATCH_LINES];
	int err = sort_compared(order, lines, index, n, stack);
	if (err) {
		huge_memory_free(index);
		return err;
	}
	*sorted = index;
	return 0;
}

int text_line_sort(struct text_line_items *made, const struct text_lines *lines, struct sort_engine *engine,
		   struct thread_pool *pool, uint64_t **sorted)
{
	const struct text_order *order = made->order;
	size_t n = lines->count;
	enum item_width width = made->width;
	void *items = made->items;
	*sorted = NULL;
	if (made->compared)
		return sort_by_comparator(order, lines, n, sorted);
	int err = sort_items(engine, width, items, n);
	if (err)
		return err;

	uint64_t *index = huge_memory_alloc((n ? n : 1) * sizeof *index);
	size_t slices = (n + SLICE_LINES - 1) / SLICE_LINES;
	struct tie_run **large = calloc(slices ? slices : 1, sizeof *large);
	size_t *large_count = calloc(slices ? slices : 1, sizeof *large_count);
	if (!index || !large || !large_count) {
		huge_memory_free(index);
		free(large);
		free(large_count);
		return -ENOMEM;
	}
	struct finish_job job = { order, lines, width, items, index, n, made->next_words, large, large_count, 0, pool };
	thread_pool_parallel_for(pool, slices, finish_slice, &job);
	err = sort_large_runs(&job, pool, slices, atomic_load(&job.error));
	free(large);
	free(large_count);
	if (err) {
		huge_memory_free(index);
		return err;
	}
	*sorted = index;
	return 0;
}
