/* SPDX-License-Identifier: MIT */
/* The steps of GPU Bucket Sort (Dehne and Zaboli) as the CPU runs them. The CUDA
 * backend implements the same steps with the same definitions, so each GPU step can be
 * tested against its CPU twin here. All items are distinct (positions break ties).
 *
 * For n items, sublist size m and s buckets:
 *   sublists:  L = ceil(n / m); sublist j is items[j*m, min(n, (j+1)*m)), length len_j.
 *   step 2:    each sublist sorted ascending in place.
 *   step 3:    samples[j*s + k] = sublist_j[(k * len_j) / s], k = 0 .. s-1.
 *   step 4:    the L*s samples sorted ascending.
 *   step 5:    splitters[k-1] = sorted_samples[k * L], k = 1 .. s-1 (s-1 splitters).
 *              Bucket b holds the items x with splitter[b-1] <= x < splitter[b]
 *              (splitter[-1] = -infinity, splitter[s-1] = +infinity).
 *   step 6:    bounds[j*(s+1) + b] = number of items of sorted sublist j below
 *              splitter[b-1] (lower bound), so bounds[j*(s+1)] = 0 and
 *              bounds[j*(s+1) + s] = len_j.
 *   step 7:    offsets[b*L + j] = where the piece of sublist j in bucket b starts in the
 *              output: an exclusive prefix sum, bucket-major (bucket 0's pieces from
 *              sublists 0..L-1, then bucket 1's, ...); offsets[s*L] = n.
 *   step 8:    out[offsets[b*L+j] + i] = sublist_j[bounds[j*(s+1)+b] + i].
 *   step 9:    each bucket out[offsets[b*L], offsets[(b+1)*L]) sorted: by the same method
 *              when it is larger than m, directly otherwise. Each holds at most about 2n/s.
 */
#ifndef GPUSORT_BUCKET_SORT_STEPS_H
#define GPUSORT_BUCKET_SORT_STEPS_H

#include <stddef.h>
#include <stdint.h>
#include "items.h"

struct bucket_plan {
	size_t n;        /* items */
	size_t m;        /* sublist size */
	size_t s;        /* buckets = samples per sublist */
	size_t sublists; /* L = ceil(n / m) */
};

struct thread_pool;

/* Fills a plan; returns -EINVAL unless m >= s >= 2 and s is a power of two. */
int bucket_plan_init(struct bucket_plan *plan, size_t n, size_t m, size_t s);

void bucket_cpu_sort_sublists(struct thread_pool *pool, enum item_width width, void *items,
			      const struct bucket_plan *plan);
void bucket_cpu_take_samples(struct thread_pool *pool, enum item_width width, const void *items,
			     const struct bucket_plan *plan, void *samples);
/* Sorts samples in place and writes the s-1 splitters. */
void bucket_cpu_choose_splitters(enum item_width width, void *samples,
				 const struct bucket_plan *plan, void *splitters);
void bucket_cpu_locate(struct thread_pool *pool, enum item_width width, const void *items,
		       const struct bucket_plan *plan, const void *splitters, uint32_t *bounds);
void bucket_cpu_offsets(const struct bucket_plan *plan, const uint32_t *bounds, uint64_t *offsets);
void bucket_cpu_relocate(struct thread_pool *pool, enum item_width width, const void *items,
			 const struct bucket_plan *plan, const uint32_t *bounds,
			 const uint64_t *offsets, void *out);

/* The whole sort on CPU threads, with a scratch array of n items of its own. Returns 0,
 * -ENOMEM, or -ECANCELED when the pool's owner asked it to stop (thread_pool_set_stop):
 * the items are then not sorted. */
int bucket_sort_cpu(struct thread_pool *pool, enum item_width width, void *items, size_t n);
/* The same with the caller's scratch of n * width bytes (the engine keeps one from chunk to
 * chunk: a fresh mapping each time cost its faults, and its map and unmap stalled the
 * other threads' page faults). */
int bucket_sort_cpu_with(struct thread_pool *pool, enum item_width width, void *items, size_t n, void *scratch);

#endif
