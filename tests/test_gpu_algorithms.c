/* SPDX-License-Identifier: MIT */
/* The seeds' other methods on the GPU (sample, radix, bitonic, quick) through the
 * backend, each byte-identical to bucket_sort_cpu for every width, the eight
 * distributions and awkward sizes (0, 1, 2, primes, 2^k±1, about 10^6). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/bucket_sort_steps.h"
#include "kernels/gpu_backend.h"
#include "kernels/thread_pool.h"
#include "tap.h"
#include "test_gpu_items.h"

static const enum sort_algorithm algorithms[] = { SORT_SAMPLE, SORT_RADIX, SORT_BITONIC, SORT_QUICK };
#define ALGORITHM_COUNT (sizeof algorithms / sizeof algorithms[0])

/* 8191/8193 and 16385 straddle the shared-memory piece sizes (2048, 4096, 8192 items) */
static const size_t sizes[] = { 0, 1, 2, 3, 7, 31, 257, 2047, 2049, 4097, 8191, 8193, 16385,
				32769, 65537, 131071, 1000003 };
static const size_t small_sizes[] = { 0, 1, 2, 31, 2049, 4097, 8193, 32769 };

static void check_all(struct gpu_backend *backend, struct thread_pool *pool, enum item_width width,
		      enum distribution distribution, size_t n)
{
	size_t bytes = n * (size_t)width;
	void *expected = test_items_make(width, distribution, n + 11, n);
	void *actual = malloc(bytes + 16);
	if (!expected || !actual || bucket_sort_cpu(pool, width, expected, n) != 0) {
		tap_ok(0, "memory and CPU sort for n=%zu", n);
		free(expected);
		free(actual);
		return;
	}
	void *input = test_items_make(width, distribution, n + 11, n);
	for (size_t a = 0; input && a < ALGORITHM_COUNT; a++) {
		char reason[256] = "";
		memcpy(actual, input, bytes);
		int rc = gpu_cuda.sort(backend, algorithms[a], width, actual, n, false, reason, sizeof reason);
		if (rc)
			tap_diag("gpu_cuda.sort: %d %s", rc, reason);
		tap_ok(rc == 0 && memcmp(expected, actual, bytes) == 0, "%s w%d %s n=%zu",
		       sort_algorithm_name(algorithms[a]), (int)width, distribution_name(distribution), n);
	}
	if (!input)
		tap_ok(0, "memory for n=%zu", n);
	free(input);
	free(expected);
	free(actual);
}

int main(void)
{
	struct gpu_backend *backend = NULL;
	struct thread_pool *pool = NULL;
	if (test_gpu_open(&backend, &pool) != 0)
		return 0;
	static const enum item_width widths[] = { ITEM_U32, ITEM_U64, ITEM_U96, ITEM_U128 };
	/* GPUSORT_TEST_SMALL: fewer, smaller sizes (for compute-sanitizer runs) */
	int small = getenv("GPUSORT_TEST_SMALL") != NULL;
	const size_t *list = small ? small_sizes : sizes;
	size_t count = small ? sizeof small_sizes / sizeof small_sizes[0] : sizeof sizes / sizeof sizes[0];
	for (int wi = 0; wi < (int)(sizeof widths / sizeof *widths); wi++)
		for (int d = 0; d < DIST_COUNT; d++)
			for (size_t si = 0; si < count; si++)
				check_all(backend, pool, widths[wi], (enum distribution)d, list[si]);
	/* one size past 2^22 per width, where the sample and quick sorts go three levels deep */
	if (!small)
		for (int wi = 0; wi < (int)(sizeof widths / sizeof *widths); wi++)
			check_all(backend, pool, widths[wi], DIST_UNIFORM, (1u << 22) + 1);
	gpu_cuda.close(backend);
	thread_pool_destroy(pool);
	return tap_done();
}
