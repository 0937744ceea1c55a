/* SPDX-License-Identifier: MIT */
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
#include <sys/mman.h>
#include "kernels/bucket_sort_steps.h"
#include "kernels/gpu_backend.h"
#include "kernels/thread_pool.h"
#include "tap.h"
#include "test_gpu_items.h"

static const size_t sizes[] = { 0, 1, 2, 3, 7, 31, 1021, 4095, 4097, 32767, 32769, 65537, 1000003, (1u << 22) + 1 };

/* Where the GPU's result differs from the CPU's: the first and last differing item and
 * how many differ, so that a failure points at a piece of the copy or the sort. */
static void describe_difference(const void *expected, const void *actual, size_t n, enum item_width width)
{
	const unsigned char *e = expected, *a = actual;
	size_t first = SIZE_MAX, last = 0, count = 0;
	for (size_t i = 0; i < n; i++) {
		if (memcmp(e + i * (size_t)width, a + i * (size_t)width, width) == 0)
			continue;
		if (first == SIZE_MAX)
			first = i;
		last = i;
		count++;
	}
	tap_diag("%zu of %zu items differ, first at %zu, last at %zu", count, n, first, last);
}

/* Sorts a copy of expected on the GPU into actual and expected itself on the CPU;
 * true when both succeeded with identical bytes. */
static int gpu_matches_cpu(struct gpu_backend *backend, struct thread_pool *pool, enum item_width width,
			   void *expected, void *actual, size_t n)
{
	char reason[256] = "";
	memcpy(actual, expected, n * (size_t)width);
	int cpu = bucket_sort_cpu(pool, width, expected, n);
	int gpu = gpu_cuda.sort(backend, SORT_BUCKET, width, actual, n, false, reason, sizeof reason);
	if (gpu)
		tap_diag("gpu_cuda.sort: %d %s", gpu, reason);
	if (cpu == 0 && gpu == 0 && memcmp(expected, actual, n * (size_t)width) != 0)
		describe_difference(expected, actual, n, width);
	return cpu == 0 && gpu == 0 && memcmp(expected, actual, n * (size_t)width) == 0;
}

/* Host memory of the kinds the program hands the backend: malloc'ed, page-locked, and a
 * huge-page mapping (what sort_engine_host_alloc gives large buffers). */
enum buffer_kind { BUFFER_MALLOC, BUFFER_PINNED, BUFFER_MAPPED };
static const char *const buffer_names[] = { "", " pinned", " mapped" };

static void *buffer_alloc(enum buffer_kind kind, size_t bytes)
{
	if (kind == BUFFER_PINNED)
		return gpu_cuda.host_alloc(bytes);
	if (kind == BUFFER_MALLOC)
		return malloc(bytes);
	void *mapped = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mapped == MAP_FAILED)
		return NULL;
	madvise(mapped, bytes, MADV_HUGEPAGE);
	return mapped;
}

static void buffer_free(enum buffer_kind kind, void *buffer, size_t bytes)
{
	if (kind == BUFFER_PINNED)
		gpu_cuda.host_free(buffer);
	else if (kind == BUFFER_MALLOC)
		free(buffer);
	else if (buffer)
		munmap(buffer, bytes);
}

static void check_sort(struct gpu_backend *backend, struct thread_pool *pool, enum item_width width,
		       enum distribution distribution, size_t n, enum buffer_kind kind)
{
	size_t bytes = n * (size_t)width + 16;
	void *expected = test_items_make(width, distribution, n + 7, n);
	void *actual = buffer_alloc(kind, bytes);
	if (!expected || !actual) {
		tap_ok(0, "memory for n=%zu", n);
		free(expected);
		buffer_free(kind, actual, bytes);
		return;
	}
	tap_ok(gpu_matches_cpu(backend, pool, width, expected, actual, n), "w%d %s n=%zu%s", (int)width,
	       distribution_name(distribution), n, buffer_names[kind]);
	free(expected);
	buffer_free(kind, actual, bytes);
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
	static const enum item_width widths[] = { ITEM_U32, ITEM_U64, ITEM_U96, ITEM_U128 };
	size_t nsizes = sizeof sizes / sizeof sizes[0];
	/* GPUSORT_TEST_SMALL: the small sizes only (for compute-sanitizer runs) */
	int small = getenv("GPUSORT_TEST_SMALL") != NULL;
	if (small)
		nsizes = 9;
	for (int wi = 0; wi < (int)(sizeof widths / sizeof *widths); wi++)
		for (int d = 0; d < DIST_COUNT; d++)
			for (size_t si = 0; si < nsizes; si++)
				check_sort(backend, pool, widths[wi], (enum distribution)d, sizes[si],
					   (enum buffer_kind)(si % 3));
	static const int narrow_bits[] = { 0, 1, 5, 13, 24, 25, 31 };
	static const size_t narrow_sizes[] = { 1021, 32769, 1000003 };
	for (int wi = 0; wi < 2; wi++)
		for (size_t b = 0; b < sizeof narrow_bits / sizeof narrow_bits[0]; b++)
			for (size_t si = 0; si < (small ? 2u : 3u); si++)
				check_narrow(backend, pool, widths[wi], narrow_bits[b], narrow_sizes[si]);
	/* the largest sizes for one width only */
	if (!small)
		check_sort(backend, pool, ITEM_U64, DIST_UNIFORM, (1u << 24) - 1, BUFFER_PINNED);
	if (!small)
		check_sort(backend, pool, ITEM_U64, DIST_FEW_UNIQUE, (1u << 24) + 1, BUFFER_MALLOC);
	/* The sizes at which the CLI lost keys on the H100 (issue 11), in pageable memory:
	 * several copy chunks through staging buffers smaller than a chunk. */
	static const struct { enum item_width width; size_t n; } regressions[] = {
		{ ITEM_U32, (1u << 24) + 1 }, { ITEM_U32, (1u << 25) + 1 }, { ITEM_U32, (1u << 25) + 3 },
		{ ITEM_U32, (1u << 26) + 1 }, { ITEM_U64, (1u << 24) + 1 }, { ITEM_U64, (1u << 25) + 1 },
		{ ITEM_U96, (1u << 24) + 1 }, { ITEM_U128, (1u << 24) + 1 },
	};
	for (size_t r = 0; !small && r < sizeof regressions / sizeof regressions[0]; r++)
		for (int kind = BUFFER_MALLOC; kind <= BUFFER_MAPPED; kind += BUFFER_MAPPED)
			check_sort(backend, pool, regressions[r].width, DIST_UNIFORM, regressions[r].n,
				   (enum buffer_kind)kind);
	char why[256] = "";
	/* Items the backend leaves locked in place (keep_locked): changed and sorted again
	 * while still locked (the next sort lets go first), then let go; each sort gives the
	 * CPU's order. Two copy chunks, the second ending inside a page. */
	if (!small) {
		size_t n = (1u << 23) + 3, bytes = n * sizeof(uint64_t);
		uint64_t *keys = buffer_alloc(BUFFER_MAPPED, bytes);
		uint64_t *expected = test_items_make(ITEM_U64, DIST_UNIFORM, 21, n);
		bool ok = keys && expected;
		for (int round = 0; ok && round < 2; round++) {
			for (size_t i = 0; round == 1 && i < n; i++)
				expected[i] = ~expected[i]; /* sorted keys made descending */
			memcpy(keys, expected, bytes);
			ok = bucket_sort_cpu(pool, ITEM_U64, expected, n) == 0 &&
			     gpu_cuda.sort(backend, SORT_BUCKET, ITEM_U64, keys, n, true, why, sizeof why) == 0 &&
			     memcmp(keys, expected, bytes) == 0;
		}
		gpu_cuda.unlock(backend);
		gpu_cuda.unlock(backend); /* nothing left: no effect */
		tap_ok(ok, "u64 2^23+3 mapped, left locked in place, changed and sorted again, then let go%s%s",
		       why[0] ? ": " : "", why);
		buffer_free(BUFFER_MAPPED, keys, bytes);
		free(expected);
	}
	if (getenv("GPUSORT_TEST_HUGE")) {
		check_sort(backend, pool, ITEM_U32, DIST_UNIFORM, 1u << 28, BUFFER_PINNED);
		check_sort(backend, pool, ITEM_U32, DIST_NORMAL, (1u << 28) - 1, BUFFER_MALLOC);
		check_sort(backend, pool, ITEM_U32, DIST_UNIFORM, (1u << 28) + 1, BUFFER_MAPPED);
	}
	/* GPUSORT_TEST_SIZES=n,n,...: more sizes, every width, uniform, in mapped memory */
	for (const char *list = getenv("GPUSORT_TEST_SIZES"); list && *list;) {
		char *end;
		size_t n = strtoull(list, &end, 0);
		for (int wi = 0; wi < (int)(sizeof widths / sizeof *widths) && end != list; wi++)
			check_sort(backend, pool, widths[wi], DIST_UNIFORM, n, BUFFER_MAPPED);
		list = *end ? end + 1 : end;
	}

	uint32_t one[4] = { 3, 1, 2, 0 };
	/* every method of sort_engine.h has a GPU version: a number outside the enum has none */
	int rc = gpu_cuda.sort(backend, (enum sort_algorithm)99, ITEM_U32, one, 4, false, why, sizeof why);
	tap_ok(rc == -ENOTSUP && why[0] != 0, "an unknown algorithm is refused with a reason (%s)", why);
	size_t capacity = gpu_cuda.capacity(backend, ITEM_U64);
	rc = gpu_cuda.sort(backend, SORT_BUCKET, ITEM_U64, one, capacity + 1, false, why, sizeof why);
	tap_ok(rc == -E2BIG && capacity > (1u << 24), "more than the capacity (%zu) is refused", capacity);

	gpu_cuda.close(backend);
	thread_pool_destroy(pool);
	return tap_done();
}
