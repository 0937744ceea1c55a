/* SPDX-License-Identifier: MIT */
/* GPU Bucket Sort on device arrays (C++ inside kernels/ only): the whole sort and each
 * step of bucket_sort_steps.h, stream-ordered on one CUDA stream. The backend
 * (gpu_backend.cu) and the step test hooks (gpu_bucket_steps.cu) build on this. */
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

/* The steps for one plan (n, m, s) with m <= gpu_bucket_tile_items(width), on device
 * pointers, with the layouts of bucket_sort_steps.h. */
cudaError_t gpu_step_sort_sublists(int width, void *items, size_t n, size_t m, size_t s,
				   void *samples, cudaStream_t stream);
cudaError_t gpu_step_choose_splitters(int width, void *samples, size_t n, size_t m, size_t s,
				      void *splitters, cudaStream_t stream);
/* Steps 4-5 as a whole sort of one segment takes them when its L*s samples fit a tile:
 * the splitters from the samples' ranks, the samples left as they are
 * (cudaErrorInvalidValue for more samples). */
cudaError_t gpu_step_splitters_by_rank(int width, const void *samples, size_t n, size_t m, size_t s,
				       void *splitters, cudaStream_t stream);
cudaError_t gpu_step_locate(int width, const void *items, size_t n, size_t m, size_t s,
			    const void *splitters, uint32_t *bounds, cudaStream_t stream);
cudaError_t gpu_step_offsets(size_t n, size_t m, size_t s, const uint32_t *bounds,
			     uint64_t *offsets, cudaStream_t stream);
cudaError_t gpu_step_relocate(int width, const void *items, size_t n, size_t m, size_t s,
			      const uint32_t *bounds, const uint64_t *offsets, void *out,
			      cudaStream_t stream);

#endif
