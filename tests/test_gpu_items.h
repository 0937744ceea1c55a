/* Test inputs for the GPU tests: n items of a width filled from one of the seeds'
 * distributions (128-bit items carry the key high and the position low). */
#ifndef GPUSORT_TEST_GPU_ITEMS_H
#define GPUSORT_TEST_GPU_ITEMS_H

#include <stdint.h>
#include <stdlib.h>
#include "distributions.h"
#include "kernels/items.h"

static inline void *test_items_make(enum item_width width, enum distribution distribution, uint64_t seed, size_t n)
{
	void *items = malloc(n * (size_t)width + 16);
	if (!items)
		return NULL;
	if (width == ITEM_U32) {
		distribution_fill_u32(distribution, seed, items, n);
	} else if (width == ITEM_U64) {
		distribution_fill_u64(distribution, seed, 64, items, n);
	} else {
		uint64_t *keys = malloc(n * sizeof *keys + 8);
		item_u128 *wide = items;
		if (!keys) {
			free(items);
			return NULL;
		}
		distribution_fill_u64(distribution, seed, 64, keys, n);
		/* reversed positions, so the low word matters to the order too */
		for (size_t i = 0; i < n; i++)
			wide[i] = item_u128_make(keys[i], (uint64_t)(n - i));
		free(keys);
	}
	return items;
}

#endif
