/* SPDX-License-Identifier: MIT */
/* Shared pieces of the GPU tests: opening the device (or planning the skip) with a CPU
 * thread pool for the reference sort, and n items of a width filled from one of the
 * seeds' distributions (128-bit items carry the key high and the position low). */
#ifndef GPUSORT_TEST_GPU_ITEMS_H
#define GPUSORT_TEST_GPU_ITEMS_H

#include <stdint.h>
#include <stdlib.h>
#include "distributions.h"
#include "kernels/gpu_backend.h"
#include "kernels/items.h"
#include "kernels/thread_pool.h"
#include "tap.h"

/* Opens device 0 and a thread pool (NULL if none could start: the CPU sort then runs
 * on one thread); returns 0. Without a GPU, plans "skip all" and returns -1. */
static inline int test_gpu_open(struct gpu_backend **backend, struct thread_pool **pool)
{
	char reason[256] = "";
	if (gpu_cuda.open(0, 0, backend, reason, sizeof reason) != 0) {
		tap_diag("%s", reason);
		tap_plan_skip_all("no GPU");
		return -1;
	}
	if (thread_pool_create(0, pool) != 0)
		*pool = NULL;
	tap_diag("device: %s", gpu_cuda.device_name(*backend));
	return 0;
}

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
		if (!keys) {
			free(items);
			return NULL;
		}
		distribution_fill_u64(distribution, seed, 64, keys, n);
		/* reversed positions, so the low word matters to the order too */
		for (size_t i = 0; i < n; i++) {
			if (width == ITEM_U96)
				((item_u96 *)items)[i] = item_u96_make(keys[i], (uint32_t)(n - i));
			else
				((item_u128 *)items)[i] = item_u128_make(keys[i], (uint64_t)(n - i));
		}
		free(keys);
	}
	return items;
}

#endif
