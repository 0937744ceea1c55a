/* SPDX-License-Identifier: MIT */
/* Work on sorted device arrays (gpu_merge.cuh). The merge is merge path (Odeh, Green,
 * Mwassi, Shmueli and Birk, "Merge Path"): the output is cut into tiles, a binary search
 * along each tile's first cross diagonal tells how many of its items come from either
 * input, and each block merges its tile from shared memory, each thread its own stretch
 * found the same way within the tile. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_items.cuh"
#include "gpu_merge.cuh"

#define MERGE_THREADS 256
#define MERGE_ITEMS 8
#define MERGE_TILE (MERGE_THREADS * MERGE_ITEMS)
#define SEARCH_THREADS 256

/* How many of a's items are among the first diag of the merge of a and b, where an item
 * of a goes before an equal item of b. */
template <typename T>
__host__ __device__ __forceinline__ size_t merge_path(const T *a, size_t na, const T *b, size_t nb, size_t diag)
{
	size_t lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (!item_less(b[diag - 1 - mid], a[mid])) /* a[mid] <= b[diag - 1 - mid] */
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* splits[t] = a's items among the first t tiles' outputs, t = 0 .. tiles. */
template <typename T>
__global__ void merge_partition_kernel(const T *a, size_t na, const T *b, size_t nb, size_t tiles, size_t *splits)
{
	size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (t > tiles)
		return;
	size_t diag = t * (size_t)MERGE_TILE;
	if (diag > na + nb)
		diag = na + nb;
	splits[t] = merge_path(a, na, b, nb, diag);
}

template <typename T>
__global__ void __launch_bounds__(MERGE_THREADS)
merge_tiles_kernel(const T *a, size_t na, const T *b, size_t nb, const size_t *splits, T *out)
{
	__shared__ T tile[MERGE_TILE];
	size_t t = blockIdx.x, begin = t * (size_t)MERGE_TILE, total = na + nb;
	size_t end = begin + MERGE_TILE < total ? begin + MERGE_TILE : total;
	size_t a0 = splits[t], a1 = splits[t + 1];
	size_t b0 = begin - a0, b1 = end - a1;
	int ca = (int)(a1 - a0), cb = (int)(b1 - b0), count = ca + cb;
	for (int i = threadIdx.x; i < count; i += MERGE_THREADS)
		tile[i] = i < ca ? a[a0 + i] : b[b0 + (i - ca)];
	__syncthreads();
	int diag = threadIdx.x * MERGE_ITEMS, taken = 0;
	T merged[MERGE_ITEMS];
	if (diag < count) {
		int ia = (int)merge_path(tile, (size_t)ca, tile + ca, (size_t)cb, (size_t)diag);
		int ib = diag - ia;
#pragma unroll
		for (int k = 0; k < MERGE_ITEMS; k++) {
			if (diag + k >= count)
				break;
			bool from_a = ib >= cb || (ia < ca && !item_less(tile[ca + ib], tile[ia]));
			merged[k] = from_a ? tile[ia++] : tile[ca + ib++];
			taken++;
		}
	}
	__syncthreads();
#pragma unroll
	for (int k = 0; k < MERGE_ITEMS; k++)
		if (k < taken)
			tile[diag + k] = merged[k];
	__syncthreads();
	for (int i = threadIdx.x; i < count; i += MERGE_THREADS)
		out[begin + i] = tile[i];
}

/* Merges a[0, na) and b[0, nb) into out on the stream. */
template <typename T>
static cudaError_t merge_pair(const T *a, size_t na, const T *b, size_t nb, T *out, cudaStream_t stream)
{
	size_t total = na + nb;
	if (total == 0)
		return cudaSuccess;
	if (na == 0 || nb == 0)
		return cudaMemcpyAsync(out, na ? a : b, total * sizeof(T), cudaMemcpyDeviceToDevice, stream);
	size_t tiles = (total + MERGE_TILE - 1) / MERGE_TILE;
	size_t *splits = NULL;
	cudaError_t error = cudaMallocAsync((void **)&splits, (tiles + 1) * sizeof *splits, stream);
	if (error)
		return error;
	unsigned search_blocks = (unsigned)((tiles + 1 + SEARCH_THREADS - 1) / SEARCH_THREADS);
	merge_partition_kernel<T><<<search_blocks, SEARCH_THREADS, 0, stream>>>(a, na, b, nb, tiles, splits);
	merge_tiles_kernel<T><<<(unsigned)tiles, MERGE_THREADS, 0, stream>>>(a, na, b, nb, splits, out);
	error = cudaGetLastError();
	cudaError_t freed = cudaFreeAsync(splits, stream);
	return error ? error : freed;
}

template <typename T>
static cudaError_t merge_segments(T *data, T *scratch, const uint64_t *offsets, size_t count, cudaStream_t stream,
				  void **sorted)
{
	uint64_t *bounds = (uint64_t *)malloc((count + 1) * sizeof *bounds);
	if (!bounds)
		return cudaErrorMemoryAllocation;
	memcpy(bounds, offsets, (count + 1) * sizeof *bounds);
	T *from = data, *to = scratch;
	cudaError_t error = cudaSuccess;
	/* each round halves the segments: pairs merged, an odd last one copied across */
	while (count > 1 && !error) {
		size_t merged = 0;
		for (size_t i = 0; i < count && !error; i += 2, merged++) {
			uint64_t begin = bounds[i];
			if (i + 1 < count) {
				error = merge_pair(from + begin, bounds[i + 1] - begin, from + bounds[i + 1],
						   bounds[i + 2] - bounds[i + 1], to + begin, stream);
				bounds[merged] = begin;
			} else {
				if (bounds[i + 1] > begin)
					error = cudaMemcpyAsync(to + begin, from + begin, (bounds[i + 1] - begin) * sizeof(T),
								cudaMemcpyDeviceToDevice, stream);
				bounds[merged] = begin;
			}
		}
		bounds[merged] = bounds[count];
		count = merged;
		T *swap = from;
		from = to;
		to = swap;
	}
	free(bounds);
	*sorted = from;
	return error;
}

cudaError_t gpu_merge_segments(int width, void *data, void *scratch, const uint64_t *offsets, size_t count,
			       cudaStream_t stream, void **sorted)
{
	*sorted = data;
	if (count < 2)
		return cudaSuccess;
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = merge_segments<item_t>((item_t *)data, (item_t *)scratch, offsets, count,
							    stream, sorted));
	return error;
}

template <typename T>
__global__ void gather_kernel(const T *sorted, const uint64_t *indexes, size_t count, T *out)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < count)
		out[i] = sorted[indexes[i]];
}

template <typename T>
__global__ void bounds_kernel(const T *sorted, size_t n, const T *values, size_t count, uint64_t *lower,
			      uint64_t *upper)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	T value = values[i];
	size_t lo = 0, hi = n;
	while (lo < hi) { /* first not below value */
		size_t mid = lo + (hi - lo) / 2;
		if (item_less(sorted[mid], value))
			lo = mid + 1;
		else
			hi = mid;
	}
	lower[i] = lo;
	hi = n;
	while (lo < hi) { /* first above value */
		size_t mid = lo + (hi - lo) / 2;
		if (!item_less(value, sorted[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	upper[i] = lo;
}

template <typename T>
static cudaError_t launch_gather(const void *sorted, const void *indexes, size_t count, void *out,
				 cudaStream_t stream)
{
	unsigned blocks = (unsigned)((count + SEARCH_THREADS - 1) / SEARCH_THREADS);
	gather_kernel<T><<<blocks, SEARCH_THREADS, 0, stream>>>((const T *)sorted, (const uint64_t *)indexes, count,
								 (T *)out);
	return cudaGetLastError();
}

template <typename T>
static cudaError_t launch_bounds(const void *sorted, size_t n, const void *values, size_t count, uint64_t *lower,
				 uint64_t *upper, cudaStream_t stream)
{
	unsigned blocks = (unsigned)((count + SEARCH_THREADS - 1) / SEARCH_THREADS);
	bounds_kernel<T><<<blocks, SEARCH_THREADS, 0, stream>>>((const T *)sorted, n, (const T *)values, count, lower,
								 upper);
	return cudaGetLastError();
}

/* A device table from the pool for a small host array in, and one for what comes out. */
static cudaError_t table_in(const void *host, size_t bytes, void **device, cudaStream_t stream)
{
	cudaError_t error = cudaMallocAsync(device, bytes ? bytes : 1, stream);
	if (!error && bytes)
		error = cudaMemcpyAsync(*device, host, bytes, cudaMemcpyHostToDevice, stream);
	return error;
}

cudaError_t gpu_sorted_gather(int width, const void *sorted, const uint64_t *indexes, size_t count, void *out,
			      cudaStream_t stream)
{
	if (count == 0)
		return cudaSuccess;
	void *device_indexes = NULL, *device_out = NULL;
	cudaError_t error = table_in(indexes, count * sizeof *indexes, &device_indexes, stream);
	if (!error)
		error = cudaMallocAsync(&device_out, count * (size_t)width, stream);
	if (!error) {
		error = cudaErrorInvalidValue;
		GPU_FOR_WIDTH(width, error = launch_gather<item_t>(sorted, device_indexes, count, device_out, stream));
	}
	if (!error)
		error = cudaMemcpyAsync(out, device_out, count * (size_t)width, cudaMemcpyDeviceToHost, stream);
	if (device_indexes)
		cudaFreeAsync(device_indexes, stream);
	if (device_out)
		cudaFreeAsync(device_out, stream);
	cudaError_t waited = cudaStreamSynchronize(stream);
	return error ? error : waited;
}

cudaError_t gpu_sorted_bounds(int width, const void *sorted, size_t n, const void *values, size_t count,
			      uint64_t *lower, uint64_t *upper, cudaStream_t stream)
{
	if (count == 0)
		return cudaSuccess;
	void *device_values = NULL, *device_bounds = NULL;
	size_t bounds_bytes = count * sizeof(uint64_t);
	cudaError_t error = table_in(values, count * (size_t)width, &device_values, stream);
	if (!error)
		error = cudaMallocAsync(&device_bounds, 2 * bounds_bytes, stream);
	uint64_t *device_lower = (uint64_t *)device_bounds, *device_upper = device_lower + count;
	if (!error) {
		error = cudaErrorInvalidValue;
		GPU_FOR_WIDTH(width, error = launch_bounds<item_t>(sorted, n, device_values, count, device_lower,
								   device_upper, stream));
	}
	if (!error)
		error = cudaMemcpyAsync(lower, device_lower, bounds_bytes, cudaMemcpyDeviceToHost, stream);
	if (!error)
		error = cudaMemcpyAsync(upper, device_upper, bounds_bytes, cudaMemcpyDeviceToHost, stream);
	if (device_values)
		cudaFreeAsync(device_values, stream);
	if (device_bounds)
		cudaFreeAsync(device_bounds, stream);
	cudaError_t waited = cudaStreamSynchronize(stream);
	return error ? error : waited;
}
