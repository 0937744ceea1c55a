/* SPDX-License-Identifier: MIT */
/* Work on sorted device arrays (C++ inside kernels/ only), for a distributed sort whose
 * ranks keep their sorted shares on their GPUs: items gathered at given indexes (the
 * splitters' samples), the bounds of given values (where the splitters cut), and the
 * merge of sorted segments into one (a rank's range, from every rank's share). */
#ifndef GPUSORT_GPU_MERGE_CUH
#define GPUSORT_GPU_MERGE_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* out[i] = sorted[indexes[i]] for i < count; indexes and out are host arrays. Waits for
 * the stream. */
cudaError_t gpu_sorted_gather(int width, const void *sorted, const uint64_t *indexes, size_t count, void *out,
			      cudaStream_t stream);

/* For each of count host values: lower[i], the first index of sorted[0, n) whose item
 * is not below it, and upper[i], the first whose item is above it. Waits for the stream. */
cudaError_t gpu_sorted_bounds(int width, const void *sorted, size_t n, const void *values, size_t count,
			      uint64_t *lower, uint64_t *upper, cudaStream_t stream);

/* data holds count sorted segments back to back, segment i from offsets[i] to
 * offsets[i + 1] (host array, in items); merges them into one sorted array of
 * offsets[count] items, equal items in segment order, in rounds of pairwise merges that
 * go back and forth between data and scratch (as many items). *sorted is the one that
 * holds the result. Allocates its tables from the stream's memory pool. */
cudaError_t gpu_merge_segments(int width, void *data, void *scratch, const uint64_t *offsets, size_t count,
			       cudaStream_t stream, void **sorted);

#endif
