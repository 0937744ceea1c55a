/* SPDX-License-Identifier: MIT */
/* Test hooks for the single steps of GPU Bucket Sort (see gpu_bucket_steps.h): copy host
 * arrays to the device, run one step, copy the results back. */
#include <cuda_runtime.h>
#include <errno.h>
#include "gpu_bucket_steps.h"
#include "gpu_bucket_sort.cuh"
#include "gpu_errors.cuh"

#define TRY(call)                                  \
	do {                                       \
		error = (call);                    \
		if (error != cudaSuccess)          \
			goto out;                  \
	} while (0)

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
	if (error != cudaSuccess)
		{
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
	TRY(gpu_step_sort_sublists(width, d_items, plan->n, plan->m, plan->s, d_samples, 0));
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
	TRY(by_rank ? gpu_step_splitters_by_rank(width, d_samples, plan->n, plan->m, plan->s, d_splitters, 0)
		    : gpu_step_choose_splitters(width, d_samples, plan->n, plan->m, plan->s, d_splitters, 0));
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
	TRY(gpu_step_locate(width, d_items, plan->n, plan->m, plan->s, d_splitters, (uint32_t *)d_bounds, 0));
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
	TRY(gpu_step_offsets(plan->n, plan->m, plan->s, (const uint32_t *)d_bounds, (uint64_t *)d_offsets, 0));
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
	TRY(gpu_step_relocate(width, d_items, plan->n, plan->m, plan->s, (const uint32_t *)d_bounds,
			      (const uint64_t *)d_offsets, d_out, 0));
	TRY(cudaMemcpy(out, d_out, plan->n * width, cudaMemcpyDeviceToHost));
out:
	return finish(error, &arrays);
}

