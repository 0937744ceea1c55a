/* SPDX-License-Identifier: MIT */
/* The resident sort of the CUDA backend (sort_engine.h, gpu_resident_calls): a rank's
 * items sorted and kept on the device, sampled and cut there, shared with the ranks of
 * its machine through IPC handles, the ranges received merged in place and copied out. */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_backend.h"
#include "gpu_backend_state.cuh"
#include "gpu_errors.cuh"
#include "gpu_merge.cuh"

/* The resident sort (sort_engine.h), its calls in gpu_resident_calls. */
static_assert(sizeof(cudaIpcMemHandle_t) == GPU_SHARE_HANDLE_BYTES, "an IPC handle's size");

void resident_free(struct gpu_backend *backend)
{
	cudaSetDevice(backend->device);
	if (backend->resident)
		cudaFree(backend->resident);
	if (backend->received)
		cudaFree(backend->received);
	free(backend->received_offsets);
	backend->resident = backend->received = backend->range = NULL;
	backend->received_offsets = NULL;
	backend->resident_items = backend->received_items = backend->senders = 0;
	cudaGetLastError();
}

static int sort_resident(struct gpu_backend *backend, enum sort_algorithm algorithm,
					 enum item_width width, sort_items_piece_fn produce, void *context, size_t n,
					 char *reason, size_t reason_size)
{
	int result = sort_allowed(backend, algorithm, width, n, reason, reason_size);
	if (result)
		return result;
	resident_free(backend);
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	size_t bytes = n * (size_t)width;
	cudaStream_t stream = backend->sort_stream;
	/* cudaMalloc, not the pool: an IPC handle names a whole allocation of its own */
	TRY(cudaMalloc(&backend->resident, bytes ? bytes : width), "allocating device memory for the items");
	backend->resident_width = (int)width;
	backend->resident_items = n;
	if (n == 0)
		return 0;
	char *scratch = NULL;
	TRY(cudaMallocAsync(&scratch, bytes, stream), "allocating device memory for the items");
	struct host_items in = {NULL, produce, context, (size_t)width, 0, NULL};
	struct device_sort job = {algorithm, width, n, backend->resident, scratch};
	result = copy_in_and_sort(backend, &job, &in, false, reason, reason_size);
	cudaStreamSynchronize(backend->copy_stream);
	cudaFreeAsync(scratch, stream);
	cudaError_t error = cudaStreamSynchronize(stream);
	if (!result && error)
		result = gpu_error_report(error, "finishing the GPU sort", reason, reason_size);
	if (result)
		resident_free(backend);
	return result;
}

static int resident_gather(struct gpu_backend *backend, const uint64_t *indexes, size_t count,
					   void *out, char *reason, size_t reason_size)
{
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	TRY(gpu_sorted_gather(backend->resident_width, backend->resident, indexes, count, out, backend->sort_stream),
	    "taking samples on the GPU");
	return 0;
}

static int resident_bounds(struct gpu_backend *backend, const void *values, size_t count,
					   uint64_t *lower, uint64_t *upper, char *reason, size_t reason_size)
{
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	TRY(gpu_sorted_bounds(backend->resident_width, backend->resident, backend->resident_items, values, count,
			      lower, upper, backend->sort_stream),
	    "searching on the GPU");
	return 0;
}

static int resident_export(struct gpu_backend *backend, void *handle, char *reason,
					   size_t reason_size)
{
	cudaIpcMemHandle_t made;
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	TRY(cudaIpcGetMemHandle(&made, backend->resident), "sharing the sorted items");
	memcpy(handle, &made, sizeof made);
	return 0;
}

static int resident_receive(struct gpu_backend *backend, const void *handles, size_t senders,
					    size_t self, const uint64_t *begins, const uint64_t *lengths,
					    char *reason, size_t reason_size)
{
	size_t width = (size_t)backend->resident_width, total = 0;
	for (size_t s = 0; s < senders; s++)
		total += lengths[s];
	/* the own items and the range at once, then the range and the merge's scratch */
	size_t need = (backend->resident_items > total ? backend->resident_items : total) + total;
	if (need > gpu_cuda.capacity(backend, (enum item_width)width) * 2) {
		if (reason && reason_size)
			snprintf(reason, reason_size, "a range of %zu items beside %zu exceeds the GPU's memory", total,
				 backend->resident_items);
		return -E2BIG;
	}
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	backend->received_offsets = (uint64_t *)calloc(senders + 1, sizeof(uint64_t));
	if (!backend->received_offsets)
		return -ENOMEM;
	backend->senders = senders;
	TRY(cudaMalloc(&backend->received, total ? total * width : width), "allocating device memory for the range");
	backend->received_items = total;
	cudaStream_t stream = backend->sort_stream;
	int result = 0;
	void **opened = (void **)calloc(senders, sizeof *opened);
	if (!opened)
		return -ENOMEM;
	for (size_t s = 0, at = 0; s < senders && !result; s++) {
		backend->received_offsets[s] = at;
		if (lengths[s] == 0)
			continue;
		const char *from = backend->resident;
		if (s != self) {
			cudaIpcMemHandle_t handle;
			memcpy(&handle, (const char *)handles + s * GPU_SHARE_HANDLE_BYTES, sizeof handle);
			cudaError_t error = cudaIpcOpenMemHandle(&opened[s], handle, cudaIpcMemLazyEnablePeerAccess);
			if (error) {
				opened[s] = NULL;
				result = gpu_error_report(error, "opening another rank's sorted items", reason,
							  reason_size);
				break;
			}
			from = (const char *)opened[s];
		}
		cudaError_t error = cudaMemcpyAsync(backend->received + at * width, from + begins[s] * width,
						    lengths[s] * width, cudaMemcpyDefault, stream);
		if (error)
			result = gpu_error_report(error, "copying a range from another GPU", reason, reason_size);
		at += lengths[s];
	}
	backend->received_offsets[senders] = total;
	cudaError_t error = cudaStreamSynchronize(stream);
	if (!result && error)
		result = gpu_error_report(error, "copying a range from another GPU", reason, reason_size);
	for (size_t s = 0; s < senders; s++)
		if (opened[s])
			cudaIpcCloseMemHandle(opened[s]);
	free(opened);
	return result;
}

static int resident_merge(struct gpu_backend *backend, char *reason, size_t reason_size)
{
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	size_t bytes = backend->received_items * (size_t)backend->resident_width;
	backend->range = backend->received;
	if (backend->senders < 2 || bytes == 0)
		return 0;
	/* every rank has its range: the own items are no one's now, and their memory is
	 * the merge's scratch when it is large enough */
	cudaStream_t stream = backend->sort_stream;
	char *scratch = backend->resident;
	if (backend->resident_items < backend->received_items) {
		cudaFree(backend->resident);
		backend->resident = NULL;
		TRY(cudaMallocAsync(&scratch, bytes, stream), "allocating device memory for the merge");
	}
	void *sorted = NULL;
	cudaError_t error = gpu_merge_segments(backend->resident_width, backend->received, scratch,
					       backend->received_offsets, backend->senders, stream, &sorted);
	backend->range = (char *)sorted;
	if (scratch != backend->resident) { /* from the pool: the range goes back where it came */
		if (!error && sorted == scratch)
			error = cudaMemcpyAsync(backend->received, sorted, bytes, cudaMemcpyDeviceToDevice, stream);
		backend->range = backend->received;
		cudaFreeAsync(scratch, stream);
	}
	cudaError_t waited = cudaStreamSynchronize(stream);
	TRY(error ? error : waited, "merging on the GPU");
	return 0;
}

static int resident_copy_out(struct gpu_backend *backend, sort_items_piece_fn consume,
					     void *context, char *reason, size_t reason_size)
{
	size_t width = (size_t)backend->resident_width, bytes = backend->received_items * width;
	if (bytes == 0)
		return 0;
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	TRY(ensure_staging(backend, bytes), "allocating pinned staging buffers");
	/* a staging buffer ends on a whole item, so every slice holds whole items */
	struct host_target out = {NULL, consume, context, width, 0};
	TRY(copy_out_to(backend, &out, backend->range, bytes, false), "copying items from the GPU");
	return out.error;
}

extern "C" const struct resident_sort_calls gpu_resident_calls = {
	sort_resident, resident_gather, resident_bounds, resident_export,
	resident_receive, resident_merge, resident_copy_out, resident_free,
};
