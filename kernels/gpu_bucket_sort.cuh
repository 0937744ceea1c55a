/* SPDX-License-Identifier: MIT */
/* GPU Bucket Sort on device arrays (C++ inside kernels/ only), stream-ordered on one
 * CUDA stream, for the backend (gpu_backend.cu). The step test hooks
 * (gpu_bucket_steps.cu) include the sort's source itself. */
#ifndef GPUSORT_GPU_BUCKET_SORT_CUH
#define GPUSORT_GPU_BUCKET_SORT_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Items one block sorts in shared memory: the sublist size m and the largest bucket
 * finished directly (1024 threads of 31, 15 or 7 items: about 120 KiB, not a power of two). */
size_t gpu_bucket_tile_items(int width);

/* Item counts at which the bucket sort changes its shape for items of width bytes: the
 * local sort's size classes (the last is the tile), each doubling of level 0's buckets
 * up to the point where a second level starts, and the last size whose samples fit a
 * tile where that falls between two doublings. Returns how many it stored
 * (at most max). For the boundary sweep of the tests. */
size_t gpu_bucket_boundaries(int width, size_t *sizes, size_t max);

/* Input that is still arriving: the local sort of chunk c waits for events[c]; each
 * chunk but the last holds chunk_items items (a multiple of the tile). */
struct gpu_input_arrival {
	int chunks;
	size_t chunk_items;
	const cudaEvent_t *events;
};

/* Streams beside the sort's own, on which the local sort's block classes run at the
 * same time, each on the SMs the others leave free; without them the classes run one
 * after another. Made once for a stream and destroyed before it. */
#define GPU_SORT_LANES 4
struct gpu_sort_lanes {
	cudaStream_t streams[GPU_SORT_LANES];
	cudaEvent_t fork, done[GPU_SORT_LANES];
};
cudaError_t gpu_sort_lanes_create(struct gpu_sort_lanes *lanes);
void gpu_sort_lanes_destroy(struct gpu_sort_lanes *lanes);

/* Sorts data[0, n) ascending; scratch holds n items. Allocates its tables from the
 * stream's memory pool. lanes may be NULL (the classes in turn); arrival may be NULL
 * (the data is already on the device). */
cudaError_t gpu_bucket_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream,
				   const struct gpu_sort_lanes *lanes, const struct gpu_input_arrival *arrival);

#endif
