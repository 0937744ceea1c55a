/* SPDX-License-Identifier: MIT */
/* The boundary sweep: GPU against CPU, byte for byte, for every item width, the eight
 * distributions and every algorithm, at sizes b-1, b, b+1 and b+3 around each boundary
 * the code reports (gpu_cuda.boundaries: the local sort's classes and tile, each
 * doubling of level 0's buckets up to the second level, the copy chunks and staging
 * buffers) and around every power of two, plus seeded random sizes; in pageable,
 * page-locked and huge-page memory in turn. The list is printed first.
 *   default: a seeded random subset of the grid (GPUSORT_SWEEP_CASES, default 150;
 *            GPUSORT_SWEEP_SEED, default the clock; both printed)
 *   GPUSORT_SWEEP=full: the whole grid, arrays up to GPUSORT_SWEEP_MAX_BYTES (128 MiB)
 *   GPUSORT_SWEEP_WIDTHS=12,16: those item widths only (the full grid in parts)
 * Without a GPU it skips. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "kernels/bucket_sort_steps.h"
#include "kernels/gpu_backend.h"
#include "kernels/sort_engine.h"
#include "kernels/thread_pool.h"
#include "tap.h"
#include "test_gpu_items.h"

#define MAX_SIZES 512
/* Whether name is one of the comma-separated list's entries. */
static bool listed(const char *list, const char *name)
{
	size_t length = strlen(name);
	for (const char *at = list;;) {
		size_t field = strcspn(at, ",");
		if (field == length && strncmp(at, name, length) == 0)
			return true;
		if (!at[field])
			return false;
		at += field + 1;
	}
}

static const enum sort_algorithm algorithms[] = { SORT_BUCKET, SORT_SAMPLE, SORT_RADIX, SORT_BITONIC, SORT_QUICK };
#define ALGORITHMS (sizeof algorithms / sizeof algorithms[0])

static int compare_sizes(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Sizes around every boundary and power of two, at most `most` items, sorted, distinct. */
static size_t sweep_sizes(int width, size_t most, uint64_t *random, size_t *sizes)
{
	size_t bounds[128], count = gpu_cuda.boundaries(width, bounds, 100), n = 0;
	for (int k = 1; k < 40 && count < 128; k++)
		bounds[count++] = (size_t)1 << k;
	static const long offsets[] = { -1, 0, 1, 3 };
	for (size_t i = 0; i < count; i++)
		for (size_t o = 0; o < 4; o++) {
			long size = (long)bounds[i] + offsets[o];
			if (size >= 0 && (size_t)size <= most && n < MAX_SIZES)
				sizes[n++] = (size_t)size;
		}
	for (int r = 0; r < 8 && n < MAX_SIZES; r++) { /* seeded random sizes */
		*random = *random * 6364136223846793005ull + 1442695040888963407ull;
		sizes[n++] = (size_t)(*random >> 20) % most;
	}
	qsort(sizes, n, sizeof *sizes, compare_sizes);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (distinct == 0 || sizes[distinct - 1] != sizes[i])
			sizes[distinct++] = sizes[i];
	return distinct;
}

static void *buffer_alloc(int kind, size_t bytes)
{
	if (kind == 1)
		return gpu_cuda.host_alloc(bytes);
	if (kind == 0)
		return malloc(bytes);
	void *mapped = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return mapped == MAP_FAILED ? NULL : mapped;
}

static void buffer_free(int kind, void *buffer, size_t bytes)
{
	if (kind == 1)
		gpu_cuda.host_free(buffer);
	else if (kind == 0)
		free(buffer);
	else if (buffer)
		munmap(buffer, bytes);
}

/* One (width, distribution, n): the CPU sort once, then each chosen algorithm on the GPU. */
static void sweep_case(struct gpu_backend *backend, struct thread_pool *pool, int width, enum distribution d,
		       size_t n, const bool *which, int kind)
{
	size_t bytes = n * (size_t)width + 16;
	void *expected = test_items_make((enum item_width)width, d, n * 31 + (size_t)d, n);
	void *input = malloc(bytes), *actual = buffer_alloc(kind, bytes);
	if (!expected || !input || !actual) {
		tap_ok(0, "memory for w%d n=%zu", width, n);
		goto done;
	}
	memcpy(input, expected, n * (size_t)width);
	int cpu = bucket_sort_cpu(pool, (enum item_width)width, expected, n);
	for (size_t a = 0; a < ALGORITHMS; a++) {
		if (!which[a])
			continue;
		char reason[256] = "";
		memcpy(actual, input, n * (size_t)width);
		int gpu = gpu_cuda.sort(backend, algorithms[a], (enum item_width)width, actual, n, false, reason,
					   sizeof reason);
		bool same = cpu == 0 && gpu == 0 && memcmp(expected, actual, n * (size_t)width) == 0;
		if (!tap_ok(same, "w%d %s %s n=%zu%s", width, distribution_name(d), sort_algorithm_name(algorithms[a]), n,
			    kind == 1 ? " pinned" : kind == 2 ? " mapped" : ""))
			tap_diag("cpu %d, gpu %d %s", cpu, gpu, reason);
	}
done:
	free(expected);
	free(input);
	buffer_free(kind, actual, bytes);
}

int main(void)
{
	struct gpu_backend *backend = NULL;
	struct thread_pool *pool = NULL;
	if (test_gpu_open(&backend, &pool) != 0)
		return 0;
	bool full = getenv("GPUSORT_SWEEP") && strcmp(getenv("GPUSORT_SWEEP"), "full") == 0;
	size_t max_bytes = getenv("GPUSORT_SWEEP_MAX_BYTES") ? strtoull(getenv("GPUSORT_SWEEP_MAX_BYTES"), NULL, 0)
							     : (size_t)128 << 20;
	size_t cases = getenv("GPUSORT_SWEEP_CASES") ? strtoull(getenv("GPUSORT_SWEEP_CASES"), NULL, 0) : 150;
	uint64_t seed = getenv("GPUSORT_SWEEP_SEED") ? strtoull(getenv("GPUSORT_SWEEP_SEED"), NULL, 0)
						     : (uint64_t)time(NULL);
	tap_diag("sweep: %s, seed %llu, arrays up to %zu bytes", full ? "full grid" : "random subset",
		 (unsigned long long)seed, max_bytes);
	static const int widths[] = { 4, 8, 12, 16 };
	enum { WIDTHS = sizeof widths / sizeof *widths };
	size_t sizes[WIDTHS][MAX_SIZES], counts[WIDTHS], grid = 0;
	uint64_t random = seed;
	const char *only = getenv("GPUSORT_SWEEP_WIDTHS");
	for (int w = 0; w < WIDTHS; w++) {
		char name[8];
		snprintf(name, sizeof name, "%d", widths[w]);
		counts[w] = sweep_sizes(widths[w], max_bytes / widths[w], &random, sizes[w]);
		if (only && !listed(only, name))
			counts[w] = 0;
		char line[8192];
		size_t used = 0;
		for (size_t i = 0; i < counts[w] && used + 24 < sizeof line; i++)
			used += (size_t)snprintf(line + used, sizeof line - used, " %zu", sizes[w][i]);
		tap_diag("w%d sizes (%zu):%s", widths[w], counts[w], line);
		grid += counts[w] * DIST_COUNT * ALGORITHMS;
	}
	tap_diag("grid: %zu sorts", grid);
	int kind = 0;
	for (int w = 0; w < WIDTHS; w++)
		for (size_t i = 0; i < counts[w]; i++)
			for (int d = 0; d < DIST_COUNT; d++) {
				bool which[ALGORITHMS], any = false;
				for (size_t a = 0; a < ALGORITHMS; a++) {
					/* a subset keeps each sort with probability cases / grid */
					random = random * 6364136223846793005ull + 1442695040888963407ull;
					which[a] = full || (double)(random >> 11) / 9007199254740992.0 < (double)cases / grid;
					any |= which[a];
				}
				if (any)
					sweep_case(backend, pool, widths[w], (enum distribution)d, sizes[w][i], which, kind++ % 3);
			}
	gpu_cuda.close(backend);
	thread_pool_destroy(pool);
	return tap_done();
}
