/* SPDX-License-Identifier: MIT */
/* The seeds' other sorting methods on device arrays (C++ inside kernels/ only): Fine
 * Sample Sort, LSD radix sort, a bitonic network and GPU quicksort. Each sorts
 * data[0, n) ascending on one stream, with scratch of n items beside it; their tables
 * come from the stream's memory pool. Items of equal value are identical, so every
 * method gives the same bytes as the bucket sort. */
#ifndef GPUSORT_GPU_ALGORITHMS_CUH
#define GPUSORT_GPU_ALGORITHMS_CUH

#include <cuda_runtime.h>
#include <stddef.h>

/* Randomized splitters (seeded, so runs repeat), 128 buckets per level. Synchronizes
 * the stream once per level to plan the next. */
cudaError_t gpu_sample_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream);

/* Digits of digit_bits bits (4..8; 0 picks the tuned default) over the bits that
 * differ between items. Synchronizes the stream once to learn those bits. */
cudaError_t gpu_radix_sort_device(int width, void *data, void *scratch, size_t n, int digit_bits,
				  cudaStream_t stream);
#define GPU_RADIX_DEFAULT_BITS 8 /* the fastest digit of 4..8 bits (bench/RESULTS.md) */

/* A bitonic network over n padded to a power of two with largest items; needs a padded
 * copy from the pool when n is not a power of two. */
cudaError_t gpu_bitonic_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream);

/* Cederman and Tsigas: parallel three-way partition passes (per-block counts, prefix
 * sums, scatter), one stream synchronization per pass, then the small sequences sorted
 * one per block in shared memory. */
cudaError_t gpu_quick_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream);

#endif
