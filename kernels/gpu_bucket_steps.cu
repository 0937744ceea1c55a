/* SPDX-License-Identifier: MIT */
/* Test hooks for the single steps of GPU Bucket Sort (see gpu_bucket_steps.h): copy host
 * arrays to the device, run one step of one segment, copy the results back. Compiled
 * into the tests only, with the sort itself included, whose kernels the steps launch:
 * the shipped library carries none of it. */
#include <cuda_runtime.h>
#include <errno.h>
#include "gpu_bucket_sort.cu"
#include "gpu_bucket_steps.h"
#include "gpu_errors.cuh"

#define TRY(call)                                  \
	do {                                       \
		error = (call);                    \
		if (error != cudaSuccess)          \
			goto out;                  \
	} while (0)

/* The one segment of the caller's plan. */
static segment_info single_segment(const struct bucket_plan &plan)
{
	size_t n = plan.n, m = plan.m, s = plan.s;
	segment_info seg = {};
	seg.n = n;
	seg.m = (uint32_t)m;
	seg.s = (uint32_t)s;
	seg.sublists = (uint32_t)((n + m - 1) / m);
	return seg;
}

static cudaError_t upload_segment(stream_allocations &alloc, const segment_info &seg, segment_info **device_seg,
				  cudaStream_t stream)
{
	RETURN_IF_ERROR(alloc.get(device_seg, sizeof seg));
	RETURN_IF_ERROR(cudaMemcpyAsync(*device_seg, &seg, sizeof seg, cudaMemcpyHostToDevice, stream));
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_sort_sublists(T *items, const struct bucket_plan &plan, T *samples, cudaStream_t stream)
{
	if (plan.m > gpu_bucket_tile_items(sizeof(T)))
		return cudaErrorInvalidValue;
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(plan), *device_seg;
	if (plan.n == 0)
		return cudaSuccess;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	SORT_CLASS_SWITCH(T, class_for<T>(plan.m), {
		sort_sublists_kernel<T, THREADS, PER_THREAD><<<seg.sublists, THREADS, block_sorter<T, THREADS, PER_THREAD>::shared_bytes, stream>>>(
			items, device_seg, 1, 0, samples);
	});
	RETURN_IF_LAUNCH_ERROR();
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_choose_splitters(T *samples, const struct bucket_plan &plan, T *splitters, cudaStream_t stream)
{
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(plan), *device_seg;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	std::vector<segment_info> segs(1, seg);
	RETURN_IF_ERROR(sort_samples(samples, segs, device_seg, splitters, stream, nullptr, false));
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_splitters_by_rank(const T *samples, const struct bucket_plan &plan, T *splitters,
					  cudaStream_t stream)
{
	stream_allocations alloc(stream);
	segment_info seg = single_segment(plan), *device_seg;
	if ((uint64_t)seg.sublists * plan.s > gpu_bucket_tile_items(sizeof(T)))
		return cudaErrorInvalidValue;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	RETURN_IF_ERROR(splitters_by_rank(samples, seg, device_seg, splitters, stream));
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_locate(const T *items, const struct bucket_plan &plan, const T *splitters, uint32_t *bounds,
			       cudaStream_t stream)
{
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(plan), *device_seg;
	uint64_t *counts;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	RETURN_IF_ERROR(alloc.get(&counts, ((uint64_t)seg.sublists * plan.s + 1) * sizeof(uint64_t)));
	locate_kernel<T><<<seg.sublists, 256, (plan.s + 1) * sizeof(uint32_t), stream>>>(items, device_seg, 1, splitters,
										  bounds, counts);
	RETURN_IF_LAUNCH_ERROR();
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_relocate(const T *items, const struct bucket_plan &plan, const uint32_t *bounds,
				 const uint64_t *offsets, T *out, cudaStream_t stream)
{
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(plan), *device_seg;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	relocate_kernel<T><<<seg.sublists, BLOCK_THREADS, plan.s * 12 + 8, stream>>>(items, out, device_seg, 1, bounds,
										 offsets);
	RETURN_IF_LAUNCH_ERROR();
	return cudaStreamSynchronize(stream);
}

static cudaError_t step_offsets(const struct bucket_plan &plan, const uint32_t *bounds, uint64_t *offsets,
			     cudaStream_t stream)
{
	stream_allocations alloc(stream);
	uint64_t sublists = (plan.n + plan.m - 1) / plan.m, total = sublists * plan.s + 1;
	uint64_t *counts;
	RETURN_IF_ERROR(alloc.get(&counts, total * sizeof(uint64_t)));
	counts_from_bounds_kernel<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(bounds, sublists, (unsigned)plan.s, counts);
	RETURN_IF_LAUNCH_ERROR();
	size_t temp_bytes = 0;
	void *temp;
	RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, (int64_t)total, stream));
	RETURN_IF_ERROR(alloc.get(&temp, temp_bytes));
	RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, (int64_t)total, stream));
	return cudaStreamSynchronize(stream);
}

/* Device copies of host arrays; freed together. */
struct device_arrays {
	void *pointers[6];
	int count;
};

static cudaError_t device_copy(struct device_arrays *arrays, void **device, const void *host, size_t bytes)
{
	cudaError_t error = cudaMalloc(device, bytes ? bytes : 16);
	if (error != cudaSuccess)
		return error;
	arrays->pointers[arrays->count++] = *device;
	if (host && bytes)
		return cudaMemcpy(*device, host, bytes, cudaMemcpyHostToDevice);
	return cudaSuccess;
}

static void device_free(struct device_arrays *arrays)
{
	for (int i = 0; i < arrays->count; i++)
		cudaFree(arrays->pointers[i]);
}

static int finish(cudaError_t error, struct device_arrays *arrays)
{
	device_free(arrays);
	return gpu_error_to_errno(error);
}

extern "C" int gpu_bucket_steps_available(char *reason, size_t reason_size)
{
	int count = 0;
	cudaError_t error = cudaGetDeviceCount(&count);
	if (error != cudaSuccess) {
		gpu_error_report(error, "cudaGetDeviceCount", reason, reason_size);
		return -ENODEV;
	}
	if (count == 0) {
		snprintf(reason, reason_size, "no CUDA device");
		return -ENODEV;
	}
	return 0;
}

extern "C" size_t gpu_bucket_steps_max_m(enum item_width width)
{
	return gpu_bucket_tile_items((int)width);
}

static size_t sublists(const struct bucket_plan *plan) { return (plan->n + plan->m - 1) / plan->m; }

extern "C" int gpu_bucket_step_sort_sublists(enum item_width width, void *items, const struct bucket_plan *plan,
					     void *samples)
{
	struct device_arrays arrays = {};
	cudaError_t error = cudaSuccess;
	void *d_items, *d_samples;
	size_t sample_bytes = sublists(plan) * plan->s * width;
	TRY(device_copy(&arrays, &d_items, items, plan->n * width));
	TRY(device_copy(&arrays, &d_samples, NULL, sample_bytes));
	error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = step_sort_sublists((item_t *)d_items, *plan, (item_t *)d_samples, 0));
	TRY(error);
	TRY(cudaMemcpy(items, d_items, plan->n * width, cudaMemcpyDeviceToHost));
	if (sample_bytes)
		TRY(cudaMemcpy(samples, d_samples, sample_bytes, cudaMemcpyDeviceToHost));
out:
	return finish(error, &arrays);
}

/* Steps 4-5 by sorting the samples (written back) or from their ranks (left alone). */
static int splitters_step(enum item_width width, void *samples, const struct bucket_plan *plan, void *splitters,
			  bool by_rank)
{
	struct device_arrays arrays = {};
	cudaError_t error = cudaSuccess;
	void *d_samples, *d_splitters;
	size_t sample_bytes = sublists(plan) * plan->s * width;
	TRY(device_copy(&arrays, &d_samples, samples, sample_bytes));
	TRY(device_copy(&arrays, &d_splitters, NULL, (plan->s - 1) * width));
	error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = by_rank ? step_splitters_by_rank((const item_t *)d_samples, *plan,
								    (item_t *)d_splitters, 0)
					     : step_choose_splitters((item_t *)d_samples, *plan, (item_t *)d_splitters, 0));
	TRY(error);
	if (!by_rank)
		TRY(cudaMemcpy(samples, d_samples, sample_bytes, cudaMemcpyDeviceToHost));
	TRY(cudaMemcpy(splitters, d_splitters, (plan->s - 1) * width, cudaMemcpyDeviceToHost));
out:
	return finish(error, &arrays);
}

extern "C" int gpu_bucket_step_choose_splitters(enum item_width width, void *samples, const struct bucket_plan *plan,
						void *splitters)
{
	return splitters_step(width, samples, plan, splitters, false);
}

extern "C" int gpu_bucket_step_splitters_by_rank(enum item_width width, const void *samples,
						 const struct bucket_plan *plan, void *splitters)
{
	/* the samples are only read */
	return splitters_step(width, const_cast<void *>(samples), plan, splitters, true);
}

extern "C" int gpu_bucket_step_locate(enum item_width width, const void *items, const struct bucket_plan *plan,
				      const void *splitters, uint32_t *bounds)
{
	struct device_arrays arrays = {};
	cudaError_t error = cudaSuccess;
	void *d_items, *d_splitters, *d_bounds;
	size_t bounds_bytes = sublists(plan) * (plan->s + 1) * sizeof(uint32_t);
	TRY(device_copy(&arrays, &d_items, items, plan->n * width));
	TRY(device_copy(&arrays, &d_splitters, splitters, (plan->s - 1) * width));
	TRY(device_copy(&arrays, &d_bounds, NULL, bounds_bytes));
	error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = step_locate((const item_t *)d_items, *plan, (const item_t *)d_splitters,
						 (uint32_t *)d_bounds, 0));
	TRY(error);
	TRY(cudaMemcpy(bounds, d_bounds, bounds_bytes, cudaMemcpyDeviceToHost));
out:
	return finish(error, &arrays);
}

extern "C" int gpu_bucket_step_offsets(const struct bucket_plan *plan, const uint32_t *bounds, uint64_t *offsets)
{
	struct device_arrays arrays = {};
	cudaError_t error = cudaSuccess;
	void *d_bounds, *d_offsets;
	size_t L = sublists(plan);
	TRY(device_copy(&arrays, &d_bounds, bounds, L * (plan->s + 1) * sizeof(uint32_t)));
	TRY(device_copy(&arrays, &d_offsets, NULL, (L * plan->s + 1) * sizeof(uint64_t)));
	TRY(step_offsets(*plan, (const uint32_t *)d_bounds, (uint64_t *)d_offsets, 0));
	TRY(cudaMemcpy(offsets, d_offsets, (L * plan->s + 1) * sizeof(uint64_t), cudaMemcpyDeviceToHost));
out:
	return finish(error, &arrays);
}

extern "C" int gpu_bucket_step_relocate(enum item_width width, const void *items, const struct bucket_plan *plan,
					const uint32_t *bounds, const uint64_t *offsets, void *out)
{
	struct device_arrays arrays = {};
	cudaError_t error = cudaSuccess;
	void *d_items, *d_bounds, *d_offsets, *d_out;
	size_t L = sublists(plan);
	TRY(device_copy(&arrays, &d_items, items, plan->n * width));
	TRY(device_copy(&arrays, &d_bounds, bounds, L * (plan->s + 1) * sizeof(uint32_t)));
	TRY(device_copy(&arrays, &d_offsets, offsets, (L * plan->s + 1) * sizeof(uint64_t)));
	TRY(device_copy(&arrays, &d_out, NULL, plan->n * width));
	error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = step_relocate((const item_t *)d_items, *plan, (const uint32_t *)d_bounds,
						   (const uint64_t *)d_offsets, (item_t *)d_out, 0));
	TRY(error);
	TRY(cudaMemcpy(out, d_out, plan->n * width, cudaMemcpyDeviceToHost));
out:
	return finish(error, &arrays);
}

