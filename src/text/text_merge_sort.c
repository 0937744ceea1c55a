/* SPDX-License-Identifier: MIT */
/* Top-down merge sort over line numbers with insertion sort for short ranges; stable
 * because merges take from the left on ties. Large arrays are cut into one piece per
 * thread, sorted in parallel, then merged pairwise. */
#include "text_merge_sort.h"

#include <string.h>
#include "text_compare.h"

#define INSERTION_LIMIT 12

struct sorter {
	const struct text_order *order;
	const struct text_lines *lines;
};

static int compare_indices(const struct sorter *s, uint64_t a, uint64_t b)
{
	size_t alen, blen;
	const char *pa = text_line(s->lines, a, &alen);
	const char *pb = text_line(s->lines, b, &blen);
	return text_compare_lines(s->order, pa, alen, pb, blen);
}

static void insertion_sort(const struct sorter *s, uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = a[i];
		size_t j = i;
		while (j > 0 && compare_indices(s, a[j - 1], x) > 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

static void merge(const struct sorter *s, const uint64_t *left, size_t nl,
		  const uint64_t *right, size_t nr, uint64_t *out)
{
	size_t i = 0, j = 0, k = 0;
	/* Already in order: a common case for nearly sorted input. */
	if (nl && nr && compare_indices(s, left[nl - 1], right[0]) <= 0) {
		memcpy(out, left, nl * sizeof *out);
		memcpy(out + nl, right, nr * sizeof *out);
		return;
	}
	while (i < nl && j < nr)
		out[k++] = compare_indices(s, right[j], left[i]) < 0 ? right[j++] : left[i++];
	memcpy(out + k, left + i, (nl - i) * sizeof *out);
	k += nl - i;
	memcpy(out + k, right + j, (nr - j) * sizeof *out);
}

/* Sorts a[0, n) using b as scratch; the result lands in a. */
static void sort_range(const struct sorter *s, uint64_t *a, uint64_t *b, size_t n)
{
	if (n <= INSERTION_LIMIT) {
		insertion_sort(s, a, n);
		return;
	}
	size_t half = n / 2;
	sort_range(s, a, b, half);
	sort_range(s, a + half, b + half, n - half);
	merge(s, a, half, a + half, n - half, b);
	memcpy(a, b, n * sizeof *a);
}

struct parallel_sort {
	const struct sorter *sorter;
	uint64_t *index, *scratch;
	size_t n, pieces;
};

static void piece_bounds(const struct parallel_sort *p, size_t piece, size_t *begin, size_t *end)
{
	*begin = p->n * piece / p->pieces;
	*end = p->n * (piece + 1) / p->pieces;
}

static void sort_piece(void *ctx, size_t piece)
{
	struct parallel_sort *p = ctx;
	size_t begin, end;
	piece_bounds(p, piece, &begin, &end);
	sort_range(p->sorter, p->index + begin, p->scratch + begin, end - begin);
}

void text_merge_sort(const struct text_order *order, const struct text_lines *lines,
		     uint64_t *index, uint64_t *scratch, size_t n, struct thread_pool *pool)
{
	struct sorter sorter = { order, lines };
	size_t threads = thread_pool_size(pool);
	/* a thread for each 2048 lines at most: fewer lines are not worth a thread */
	if (threads > n / 2048)
		threads = n / 2048;
	if (threads < 2) {
		sort_range(&sorter, index, scratch, n);
		return;
	}
	size_t pieces = 1;
	while (pieces < threads)
		pieces *= 2;
	struct parallel_sort p = { &sorter, index, scratch, n, pieces };
	thread_pool_parallel_for(pool, pieces, sort_piece, &p);
	/* Pairwise merges, widening the runs each round; the last rounds run on one thread. */
	uint64_t *from = index, *to = scratch;
	for (size_t width = 1; width < pieces; width *= 2) {
		for (size_t piece = 0; piece < pieces; piece += 2 * width) {
			size_t begin, middle, end, unused;
			piece_bounds(&p, piece, &begin, &unused);
			piece_bounds(&p, piece + width - 1, &unused, &middle);
			piece_bounds(&p, piece + 2 * width - 1, &unused, &end);
			merge(&sorter, from + begin, middle - begin, from + middle, end - middle, to + begin);
		}
		uint64_t *swap = from;
		from = to;
		to = swap;
	}
	if (from != index)
		memcpy(index, from, n * sizeof *index);
}
