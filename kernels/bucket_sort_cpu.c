/* SPDX-License-Identifier: MIT */
/* GPU Bucket Sort (Dehne and Zaboli) on CPU threads: the steps of bucket_sort_steps.h
 * and the whole sort. The algorithm lives in bucket_sort_cpu_template.h, included once
 * per item width; this file holds the plan, the width dispatch and the tuning. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "huge_memory.h"
#include "bucket_sort_steps.h"
#include "thread_pool.h"

/* Sublist bytes: a sublist and its radix scratch stay in one core's L2 cache. Bucket
 * bytes: the average bucket the plan aims at; buckets need not fit L2, since the radix
 * sort's first pass splits them into pieces that do, and fewer buckets mean fewer
 * samples and larger pieces to relocate (bench/RESULTS.md has the sweep). */
#ifndef CPU_SUBLIST_BYTES
#define CPU_SUBLIST_BYTES (256u << 10)
#endif
#ifndef CPU_BUCKET_BYTES
#define CPU_BUCKET_BYTES (1u << 20)
#endif
/* Buckets up to this many times the aimed-at size are sorted directly, larger ones
 * recursively (the 2n/s bound allows twice, equal keys more). */
#define CPU_BUCKET_DIRECT_FACTOR 8
/* Recursion stops here whatever the bucket sizes (only many equal items get this deep). */
#define CPU_MAX_DEPTH 4

/* The local sort: radix bins this short are finished by rank sort; radix digits are
 * at most RADIX_MAX_BITS wide and chosen so bins average RADIX_BIN_ITEMS. */
#ifndef RANK_SORT_LIMIT
#define RANK_SORT_LIMIT 24
#endif
#ifndef RADIX_MAX_BITS
#define RADIX_MAX_BITS 12
#endif
#ifndef RADIX_BIN_ITEMS
#define RADIX_BIN_ITEMS 12
#endif

/* Step timings on stderr when built with -DBUCKET_CPU_PROFILE (for tuning only). */
#ifdef BUCKET_CPU_PROFILE
#include <stdio.h>
#include <time.h>
static void profile_mark(unsigned depth, const char *step)
{
	static double last;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double t = now.tv_sec + now.tv_nsec * 1e-9;
	if (depth == 0 && last > 0 && step[0] != 's')
		fprintf(stderr, "  %-16s %.3f s\n", step, t - last);
	last = t;
}
#define PROFILE_MARK(depth, step) profile_mark(depth, step)
#else
#define PROFILE_MARK(depth, step) ((void)0)
#endif

int bucket_plan_init(struct bucket_plan *plan, size_t n, size_t m, size_t s)
{
	if (s < 2 || m < s || (s & (s - 1)) != 0 || m > UINT32_MAX)
		return -EINVAL;
	plan->n = n;
	plan->m = m;
	plan->s = s;
	plan->sublists = (n + m - 1) / m;
	return 0;
}

static inline size_t sublist_length(const struct bucket_plan *plan, size_t j)
{
	size_t start = j * plan->m;
	return plan->n - start < plan->m ? plan->n - start : plan->m;
}

static inline unsigned radix_digit_bits(size_t n, unsigned top)
{
	unsigned bits = 0;
	while (bits < RADIX_MAX_BITS && ((size_t)RADIX_BIN_ITEMS << bits) < n)
		bits++;
	if (bits < 4)
		bits = 4;
	return bits < top ? bits : top;
}

static size_t cpu_sublist_items(size_t item_bytes)
{
	return CPU_SUBLIST_BYTES / item_bytes;
}

/* A bucket this large is split again rather than sorted directly. */
static size_t cpu_direct_limit(size_t item_bytes)
{
	return CPU_BUCKET_DIRECT_FACTOR * (CPU_BUCKET_BYTES / item_bytes);
}

/* The CPU's plan: cache-sized sublists and buckets that average CPU_BUCKET_BYTES,
 * capped at m/4 buckets so the bounds and offsets tables stay small next to the items
 * (beyond that, buckets recurse). */
static int cpu_plan(struct bucket_plan *plan, size_t n, size_t item_bytes)
{
	size_t m = cpu_sublist_items(item_bytes);
	size_t s = 2;
	while (s < m / 4 && s * (CPU_BUCKET_BYTES / item_bytes) < n)
		s *= 2;
	return bucket_plan_init(plan, n, m, s);
}

/* The integer widths are their own values. */
#define ITEM_VALUE(item) (item)

#define WIDTH_NAME(name) name##_u32
#define ITEM_T uint32_t
#define VALUE_T uint32_t
#include "bucket_sort_cpu_template.h"
#undef VALUE_T
#undef ITEM_T
#undef WIDTH_NAME

#define WIDTH_NAME(name) name##_u64
#define ITEM_T uint64_t
#define VALUE_T uint64_t
#include "bucket_sort_cpu_template.h"
#undef VALUE_T
#undef ITEM_T
#undef WIDTH_NAME

#define WIDTH_NAME(name) name##_u128
#define ITEM_T item_u128
#define VALUE_T item_u128
#include "bucket_sort_cpu_template.h"
#undef VALUE_T
#undef ITEM_T
#undef WIDTH_NAME
#undef ITEM_VALUE

/* The 96-bit item is stored in 12 bytes and compared as an integer in the same order as
 * its value: the image above the position, 64 bits each, which two loads make without
 * the shifts that image << 32 | position takes (in the rank sort's inner loop, the
 * shifts cost more than the loads). Digits of the 32 zero bits between are shared
 * by all items, each skipped after one counting pass. */
static inline item_u128 item_u96_order(item_u96 item)
{
	return item_u128_make(item_u96_image(item), item_u96_position(item));
}
#define ITEM_VALUE(item) item_u96_order(item)
#define WIDTH_NAME(name) name##_u96
#define ITEM_T item_u96
#define VALUE_T item_u128
#include "bucket_sort_cpu_template.h"
#undef VALUE_T
#undef ITEM_T
#undef WIDTH_NAME
#undef ITEM_VALUE

/* Runs call(u32), call(u64), call(u96) or call(u128) for the width, with item_t its
 * item type. */
#define FOR_WIDTH(width, call)                                                   \
	do {                                                                     \
		switch (width) {                                                 \
		case ITEM_U32: { typedef uint32_t item_t; call(u32); } break;    \
		case ITEM_U64: { typedef uint64_t item_t; call(u64); } break;    \
		case ITEM_U96: { typedef item_u96 item_t; call(u96); } break;    \
		case ITEM_U128: { typedef item_u128 item_t; call(u128); } break; \
		}                                                                \
	} while (0)

void bucket_cpu_sort_sublists(struct thread_pool *pool, enum item_width width, void *items,
			      const struct bucket_plan *plan)
{
#define CALL(w) sort_sublists_##w(pool, (item_t *)items, plan, false)
	FOR_WIDTH(width, CALL);
#undef CALL
}

void bucket_cpu_take_samples(struct thread_pool *pool, enum item_width width, const void *items,
			     const struct bucket_plan *plan, void *samples)
{
#define CALL(w) take_samples_##w(pool, (const item_t *)items, plan, (item_t *)samples)
	FOR_WIDTH(width, CALL);
#undef CALL
}

void bucket_cpu_choose_splitters(enum item_width width, void *samples,
				 const struct bucket_plan *plan, void *splitters)
{
#define CALL(w) choose_splitters_##w(NULL, (item_t *)samples, NULL, plan, (item_t *)splitters, 0)
	FOR_WIDTH(width, CALL);
#undef CALL
}

void bucket_cpu_locate(struct thread_pool *pool, enum item_width width, const void *items,
		       const struct bucket_plan *plan, const void *splitters, uint32_t *bounds)
{
#define CALL(w) locate_##w(pool, (const item_t *)items, plan, (const item_t *)splitters, bounds)
	FOR_WIDTH(width, CALL);
#undef CALL
}

void bucket_cpu_offsets(const struct bucket_plan *plan, const uint32_t *bounds, uint64_t *offsets)
{
	size_t L = plan->sublists, s = plan->s;
	uint64_t position = 0;
	for (size_t b = 0; b < s; b++) {
		for (size_t j = 0; j < L; j++) {
			const uint32_t *sublist_bounds = bounds + j * (s + 1);
			offsets[b * L + j] = position;
			position += sublist_bounds[b + 1] - sublist_bounds[b];
		}
	}
	offsets[s * L] = position;
}

void bucket_cpu_relocate(struct thread_pool *pool, enum item_width width, const void *items,
			 const struct bucket_plan *plan, const uint32_t *bounds,
			 const uint64_t *offsets, void *out)
{
#define CALL(w) relocate_##w(pool, (const item_t *)items, plan, bounds, offsets, (item_t *)out)
	FOR_WIDTH(width, CALL);
#undef CALL
}

int bucket_sort_cpu_with(struct thread_pool *pool, enum item_width width, void *items, size_t n, void *scratch)
{
	if (n < 2)
		return 0;
	/* Without room for the plan's tables, the local sort alone still sorts; a sort
	 * stopped through the pool (thread_pool_set_stop) returns -ECANCELED, its items a
	 * permutation of what they were or, stopped among the buckets, not wanted. */
	int error = 0;
#define CALL(w)                                                                       \
	do {                                                                          \
		error = bucket_sort_range_##w(pool, (item_t *)items, (item_t *)scratch, n, 0); \
		if (error && error != -ECANCELED)                                     \
			local_sort_##w((item_t *)items, (item_t *)scratch, n);        \
	} while (0)
	FOR_WIDTH(width, CALL);
#undef CALL
	return error == -ECANCELED ? error : 0;
}

int bucket_sort_cpu(struct thread_pool *pool, enum item_width width, void *items, size_t n)
{
	if (n < 2)
		return 0;
	void *scratch = huge_memory_alloc(n * (size_t)width);
	if (!scratch)
		return -ENOMEM;
	int error = bucket_sort_cpu_with(pool, width, items, n, scratch);
	huge_memory_free(scratch);
	return error;
}
