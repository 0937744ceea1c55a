/* SPDX-License-Identifier: MIT */
/* Bitonic sort on the GPU for any n: the items padded with largest items to a power of
 * two p, then the network of p; tiles of 32 KiB run every stride that fits them in
 * shared memory, the larger strides are one global pass each. */
#include <cuda_runtime.h>
#include <stdint.h>
#include "gpu_algorithms.cuh"
#include "gpu_items.cuh"
#include "gpu_small_sort.cuh"

#define BITONIC_THREADS 512

template <typename T> __global__ void bitonic_pad_kernel(T *items, size_t begin, size_t end)
{
	for (size_t i = begin + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < end; i += (size_t)gridDim.x * blockDim.x)
		items[i] = item_max<T>();
}

/* Each block sorts its tile of `tile` items, ascending or descending as the network
 * of p wants it (merge phase k = tile: direction from the tile's global index). */
template <typename T> __global__ void __launch_bounds__(BITONIC_THREADS) bitonic_tile_sort_kernel(T *items, unsigned tile)
{
	__shared__ T s[algo_shared<T>::items];
	uint64_t base = blockIdx.x * (uint64_t)tile;
	for (unsigned i = threadIdx.x; i < tile; i += blockDim.x)
		s[i] = items[base + i];
	__syncthreads();
	algo_block_sort(s, tile, base);
	for (unsigned i = threadIdx.x; i < tile; i += blockDim.x)
		items[base + i] = s[i];
}

/* Strides tile/2 .. 1 of merge phase k, in shared memory. */
template <typename T> __global__ void __launch_bounds__(BITONIC_THREADS) bitonic_tile_merge_kernel(T *items, unsigned tile, uint64_t k)
{
	__shared__ T s[algo_shared<T>::items];
	uint64_t base = blockIdx.x * (uint64_t)tile;
	for (unsigned i = threadIdx.x; i < tile; i += blockDim.x)
		s[i] = items[base + i];
	__syncthreads();
	algo_block_merge(s, tile, k, base);
	for (unsigned i = threadIdx.x; i < tile; i += blockDim.x)
		items[base + i] = s[i];
}

/* One stride j of merge phase k over all p items: one thread per compared pair. */
template <typename T> __global__ void bitonic_global_step_kernel(T *items, uint64_t pairs, uint64_t j, uint64_t k)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < pairs; i += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t lo = 2 * i - (i & (j - 1));
		T a = items[lo], b = items[lo + j];
		bool ascending = (lo & k) == 0;
		if (item_less(b, a) == ascending) {
			items[lo] = b;
			items[lo + j] = a;
		}
	}
}

static unsigned grid_for(uint64_t work, unsigned threads)
{
	uint64_t blocks = (work + threads - 1) / threads;
	return (unsigned)(blocks < 65535ull * 64 ? blocks : 65535ull * 64);
}

template <typename T> static cudaError_t bitonic_sort(T *data, size_t n, cudaStream_t stream)
{
	if (n < 2)
		return cudaSuccess;
	uint64_t p = 1;
	while (p < n)
		p <<= 1;
	T *items = data;
	cudaError_t error = cudaSuccess;
	if (p != n) {
		error = cudaMallocAsync(&items, p * sizeof(T), stream);
		if (error)
			return error;
		error = cudaMemcpyAsync(items, data, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
		if (!error) {
			bitonic_pad_kernel<T><<<grid_for(p - n, 256), 256, 0, stream>>>(items, n, p);
			error = cudaGetLastError();
		}
	}
	unsigned tile = (unsigned)std::min<uint64_t>(p, algo_shared<T>::items);
	unsigned tiles = (unsigned)(p / tile);
	if (!error) {
		bitonic_tile_sort_kernel<T><<<tiles, BITONIC_THREADS, 0, stream>>>(items, tile);
		error = cudaGetLastError();
	}
	for (uint64_t k = 2 * (uint64_t)tile; !error && k <= p; k <<= 1) {
		for (uint64_t j = k >> 1; !error && j >= tile; j >>= 1) {
			bitonic_global_step_kernel<T><<<grid_for(p / 2, 256), 256, 0, stream>>>(items, p / 2, j, k);
			error = cudaGetLastError();
		}
		if (!error) {
			bitonic_tile_merge_kernel<T><<<tiles, BITONIC_THREADS, 0, stream>>>(items, tile, k);
			error = cudaGetLastError();
		}
	}
	if (items != data) {
		if (!error)
			error = cudaMemcpyAsync(data, items, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
		cudaError_t freed = cudaFreeAsync(items, stream);
		if (!error)
			error = freed;
	}
	return error;
}

cudaError_t gpu_bitonic_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream)
{
	(void)scratch;
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = bitonic_sort<item_t>((item_t *)data, n, stream));
	return error;
}
