/* SPDX-License-Identifier: MIT */
/* The whole CPU bucket sort against qsort: the seeds' eight distributions, sizes from
 * 0 to past the plan's boundaries (small primes, a sublist and two buckets' worth, each
 * with its neighbours) for every item width with items built as key image + position,
 * raw 64-bit keys with duplicates (the key-only form gpusort sorts) one past the direct
 * sort's limit, one and two threads, and 10^7 items of one width. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/bucket_sort_steps.h"
#include "kernels/thread_pool.h"
#include "tests/distributions.h"
#include "tests/item_oracle.h"
#include "tests/tap.h"

static const char *width_name(enum item_width width)
{
	return width == ITEM_U32 ? "u32" : width == ITEM_U64 ? "u64" : width == ITEM_U96 ? "u96" : "u128";
}

static unsigned position_bits(size_t n)
{
	unsigned bits = 1;
	while (bits < 64 && ((size_t)1 << bits) < n)
		bits++;
	return bits;
}

/* Items of the width: key image high, position low (u32 gives up the key's low bits
 * to the position, as src/ does for 32-bit items). With positions false, raw keys. */
static void *make_items(enum item_width width, enum distribution distribution, size_t n,
			bool positions)
{
	uint64_t *keys = malloc((n + 1) * sizeof(*keys));
	void *items = malloc(n * (size_t)width + 16);
	unsigned p = position_bits(n);
	distribution_fill_u64(distribution, 1000 + n, width >= ITEM_U96 || !positions ? 64 : 32,
			      keys, n);
	for (size_t i = 0; i < n; i++) {
		switch (width) {
		case ITEM_U32:
			((uint32_t *)items)[i] = (uint32_t)(((keys[i] >> p) << p) | i);
			break;
		case ITEM_U64:
			((uint64_t *)items)[i] = positions ? keys[i] << 32 | i : keys[i];
			break;
		case ITEM_U96:
			((item_u96 *)items)[i] = item_u96_make(keys[i], (uint32_t)i);
			break;
		case ITEM_U128:
			((item_u128 *)items)[i] = item_u128_make(keys[i], i);
			break;
		}
	}
	free(keys);
	return items;
}

static bool sorts_like_qsort(struct thread_pool *pool, enum item_width width, void *items, size_t n)
{
	size_t bytes = n * (size_t)width;
	void *expect = malloc(bytes + 16);
	memcpy(expect, items, bytes);
	item_oracle_sort(width, expect, n);
	int error = bucket_sort_cpu(pool, width, items, n);
	bool same = error == 0 && memcmp(expect, items, bytes) == 0;
	free(expect);
	return same;
}

/* The sizes where the CPU plan changes (kernels/bucket_sort_cpu.c, at its default
 * CPU_SUBLIST_BYTES of 256 KiB and CPU_BUCKET_BYTES of 1 MiB) for items of the width:
 * up to a sublist the local sort alone, one item more the bucket path; up to two
 * buckets' worth two buckets, one item more four. Each boundary at k - 1, k and k + 1. */
#define SUBLIST_BYTES ((size_t)256 << 10)
#define BUCKET_BYTES ((size_t)1 << 20)

static size_t sizes_of(enum item_width width, size_t *sizes)
{
	static const size_t fixed[] = { 0, 1, 2, 3, 7919, 104729 };
	size_t count = 0, sublist = SUBLIST_BYTES / (size_t)width, buckets = 2 * (BUCKET_BYTES / (size_t)width);
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		sizes[count++] = fixed[i];
	for (size_t k = 0; k < 3; k++)
		sizes[count++] = sublist - 1 + k;
	for (size_t k = 0; k < 3; k++)
		sizes[count++] = buckets - 1 + k;
	return count;
}

int main(void)
{
	static const enum item_width widths[] = { ITEM_U32, ITEM_U64, ITEM_U96, ITEM_U128 };
	struct thread_pool *pool, *single;

	if (thread_pool_create(2, &pool) < 0 || thread_pool_create(1, &single) < 0) {
		tap_plan_skip_all("no threads");
		return 0;
	}
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
		size_t sizes[16], count = sizes_of(widths[w], sizes);
		for (int d = 0; d < DIST_COUNT; d++)
			for (size_t i = 0; i < count; i++) {
				size_t n = sizes[i];
				void *items = make_items(widths[w], d, n, true);
				tap_ok(sorts_like_qsort(pool, widths[w], items, n), "%s %s n=%zu",
				       width_name(widths[w]), distribution_name(d), n);
				free(items);
			}
	}
	for (int d = 0; d < DIST_COUNT; d++) {
		size_t n = (1 << 20) + 1;
		void *items = make_items(ITEM_U64, d, n, false);
		tap_ok(sorts_like_qsort(pool, ITEM_U64, items, n), "raw u64 keys (duplicates) %s n=%zu",
		       distribution_name(d), n);
		free(items);
	}
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
		size_t n = 300007;
		void *items = make_items(widths[w], DIST_UNIFORM, n, true);
		tap_ok(sorts_like_qsort(single, widths[w], items, n), "%s uniform n=%zu on one thread",
		       width_name(widths[w]), n);
		free(items);
	}
	static const enum distribution large[] = { DIST_UNIFORM, DIST_FEW_UNIQUE };
	for (size_t d = 0; d < 2; d++) {
		size_t n = 10000000;
		void *items = make_items(ITEM_U64, large[d], n, true);
		tap_ok(sorts_like_qsort(pool, ITEM_U64, items, n), "u64 %s n=%zu",
		       distribution_name(large[d]), n);
		free(items);
	}
	/* four distinct keys and no positions: buckets of equal items beyond the direct
	 * limit go one level down, where splitting cannot progress and the local sort ends */
	size_t n = 3000000;
	item_u128 *equalish = malloc(n * sizeof(*equalish));
	uint64_t state = 5;
	for (size_t i = 0; i < n; i++)
		equalish[i] = item_u128_make(random_next(&state) % 4, 0) | (random_next(&state) % 4);
	tap_ok(sorts_like_qsort(pool, ITEM_U128, equalish, n),
	       "u128 items of 16 distinct values n=%zu (large equal buckets)", n);
	free(equalish);
	thread_pool_destroy(single);
	thread_pool_destroy(pool);
	return tap_done();
}
