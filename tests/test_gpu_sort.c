/* The whole GPU sort through the backend (gpu_backend.h) byte-identical to
 * bucket_sort_cpu for every width, the eight distributions and awkward sizes (0, 1, 2,
 * primes, 2^k±1), with pageable and page-locked host memory; keys that differ only in
 * their low bits (the local sort's all-equal and radix paths); and the backend's
 * refusals (capacity, an unknown algorithm). */
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

static const size_t sizes[] = { 0, 1, 2, 3, 7, 31, 1021, 4095, 4097, 32767, 32769, 65537, 1000003, (1u << 22) + 1 };

/* Sorts a copy of expected on the GPU into actual and expected itself on the CPU;
 * true when both succeeded with identical bytes. */
static int gpu_matches_cpu(struct gpu_backend *backend, struct thread_pool *pool, enum item_width width,
			   void *expected, void *actual, size_t n)
{
	char reason[256] = "";
	memcpy(actual, expected, n * (size_t)width);
	int cpu = bucket_sort_cpu(pool, width, expected, n);
	int gpu = gpu_backend_sort(backend, SORT_BUCKET, width, actual, n, reason, sizeof reason);
	if (gpu)
		tap_diag("gpu_backend_sort: %d %s", gpu, reason);
	return cpu == 0 && gpu == 0 && memcmp(expected, actual, n * (size_t)width) == 0;
}

static void check_sort(struct gpu_backend *backend, struct thread_pool *pool, enum item_width width,
		       enum distribution distribution, size_t n, int pinned)
{
	size_t bytes = n * (size_t)width;
	void *expected = test_items_make(width, distribution, n + 7, n);
	void *actual = pinned ? gpu_backend_host_alloc(bytes + 16) : malloc(bytes + 16);
	if (!expected || !actual) {
		tap_ok(0, "memory for n=%zu", n);
		return;
	}
	tap_ok(gpu_matches_cpu(backend, pool, width, expected, actual, n), "w%d %s n=%zu%s", (int)width,
	       distribution_name(distribution), n, pinned ? " pinned" : "");
	free(expected);
	if (pinned)
		gpu_backend_host_free(actual);
	else
		free(actual);
}

/* n keys sharing their high bits, random in the low `bits`; every 97th key has all of
 * them set, the value that pads a narrow block (it must tie harmlessly). */
static void check_narrow(struct gpu_backend *backend, struct thread_pool *pool, enum item_width width, int bits,
			 size_t n)
{
	size_t bytes = n * (size_t)width;
	unsigned char *expected = malloc(bytes + 16), *actual = malloc(bytes + 16);
	if (!expected || !actual) {
		tap_ok(0, "memory for n=%zu", n);
		free(expected);
		free(actual);
		return;
	}
	uint64_t low = bits >= 64 ? ~0ull : (1ull << bits) - 1, state = 0x9e3779b97f4a7c15ull * (uint64_t)(bits + 1);
	uint64_t high = 0xa5c3f00dcafe1234ull & ~low;
	for (size_t i = 0; i < n; i++) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t key = high | (i % 97 == 0 ? low : (state >> 17) & low);
		if (width == ITEM_U32)
			((uint32_t *)expected)[i] = (uint32_t)key;
		else
			((uint64_t *)expected)[i] = key;
	}
	tap_ok(gpu_matches_cpu(backend, pool, width, expected, actual, n), "w%d keys differing in %d low bits n=%zu",
	       (int)width, bits, n);
	free(expected);
	free(actual);
}

int main(void)
{
	struct gpu_backend *backend = NULL;
	struct thread_pool *pool = NULL;
	if (test_gpu_open(&backend, &pool) != 0)
		return 0;
	static const enum item_width widths[] = { ITEM_U32, ITEM_U64, ITEM_U128 };
	size_t nsizes = sizeof sizes / sizeof sizes[0];
	/* GPUSORT_TEST_SMALL: the small sizes only (for compute-sanitizer runs) */
	int small = getenv("GPUSORT_TEST_SMALL") != NULL;
	if (small)
		nsizes = 9;
	for (int wi = 0; wi < 3; wi++)
		for (int d = 0; d < DIST_COUNT; d++)
			for (size_t si = 0; si < nsizes; si++)
				check_sort(backend, pool, widths[wi], (enum distribution)d, sizes[si], si % 3 == 0);
	static const int narrow_bits[] = { 0, 1, 5, 13, 24, 25, 31 };
	static const size_t narrow_sizes[] = { 1021, 32769, 1000003 };
	for (int wi = 0; wi < 2; wi++)
		for (size_t b = 0; b < sizeof narrow_bits / sizeof narrow_bits[0]; b++)
			for (size_t si = 0; si < (small ? 2u : 3u); si++)
				check_narrow(backend, pool, widths[wi], narrow_bits[b], narrow_sizes[si]);
	/* the largest sizes for one width only */
	if (!small)
		check_sort(backend, pool, ITEM_U64, DIST_UNIFORM, (1u << 24) - 1, 1);
	if (!small)
		check_sort(backend, pool, ITEM_U64, DIST_FEW_UNIQUE, (1u << 24) + 1, 0);
	if (getenv("GPUSORT_TEST_HUGE")) {
		check_sort(backend, pool, ITEM_U32, DIST_UNIFORM, 1u << 28, 1);
		check_sort(backend, pool, ITEM_U32, DIST_NORMAL, (1u << 28) - 1, 0);
	}

	char why[256] = "";
	uint32_t one[4] = { 3, 1, 2, 0 };
	/* every method of sort_engine.h has a GPU version: a number outside the enum has none */
	int rc = gpu_backend_sort(backend, (enum sort_algorithm)99, ITEM_U32, one, 4, why, sizeof why);
	tap_ok(rc == -ENOTSUP && why[0] != 0, "an unknown algorithm is refused with a reason (%s)", why);
	size_t capacity = gpu_backend_capacity(backend, ITEM_U64);
	rc = gpu_backend_sort(backend, SORT_BUCKET, ITEM_U64, one, capacity + 1, why, sizeof why);
	tap_ok(rc == -E2BIG && capacity > (1u << 24), "more than the capacity (%zu) is refused", capacity);

	gpu_backend_close(backend);
	thread_pool_destroy(pool);
	return tap_done();
}
