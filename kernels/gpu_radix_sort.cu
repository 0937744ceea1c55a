/* SPDX-License-Identifier: MIT */
/* LSD radix sort on the GPU (the seeds' radix-sort report): digits of k bits over the
 * bits that differ between items; per pass, per-tile digit histograms, one exclusive
 * scan over them (digit-major, so it yields every tile's output offset per digit), and
 * a stable scatter after an in-tile sort by 1-bit splits on warp-shuffle scans. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <cub/device/device_scan.cuh>
#include "gpu_algorithms.cuh"
#include "gpu_items.cuh"
#include "gpu_small_sort.cuh"

#define RADIX_THREADS 256
#define RADIX_ITEMS_PER_THREAD 8
#define RADIX_TILE (RADIX_THREADS * RADIX_ITEMS_PER_THREAD)

/* The `bits` bits of an item from bit `shift` up (bits beyond the item read as 0). */
__device__ __forceinline__ unsigned radix_digit(uint32_t x, int shift, unsigned mask)
{
	return shift < 32 ? (x >> shift) & mask : 0;
}
__device__ __forceinline__ unsigned radix_digit(uint64_t x, int shift, unsigned mask)
{
	return shift < 64 ? (unsigned)(x >> shift) & mask : 0;
}
__device__ __forceinline__ unsigned radix_digit(gpu_u96 x, int shift, unsigned mask)
{
	if (shift >= 96)
		return 0;
	if (shift >= 32)
		return (unsigned)(item_image(x) >> (shift - 32)) & mask;
	uint64_t low = ((uint64_t)x.image_lo << 32 | x.position) >> shift;
	if (shift)
		low |= (uint64_t)x.image_hi << (64 - shift);
	return (unsigned)low & mask;
}
__device__ __forceinline__ unsigned radix_digit(gpu_u128 x, int shift, unsigned mask)
{
	if (shift >= 128)
		return 0;
	if (shift >= 64)
		return (unsigned)(x.hi >> (shift - 64)) & mask;
	uint64_t low = x.lo >> shift;
	if (shift)
		low |= x.hi << (64 - shift);
	return (unsigned)low & mask;
}

__device__ __forceinline__ void radix_words(uint32_t x, uint64_t &hi, uint64_t &lo) { hi = 0, lo = x; }
__device__ __forceinline__ void radix_words(uint64_t x, uint64_t &hi, uint64_t &lo) { hi = 0, lo = x; }
__device__ __forceinline__ void radix_words(gpu_u96 x, uint64_t &hi, uint64_t &lo)
{
	hi = x.image_hi, lo = (uint64_t)x.image_lo << 32 | x.position;
}
__device__ __forceinline__ void radix_words(gpu_u128 x, uint64_t &hi, uint64_t &lo) { hi = x.hi, lo = x.lo; }

/* bits[0..1] = OR of all items (hi, lo), bits[2..3] = AND of all items. */
template <typename T> __global__ void radix_varying_bits_kernel(const T *items, size_t n, unsigned long long *bits)
{
	uint64_t any_hi = 0, any_lo = 0, all_hi = ~0ull, all_lo = ~0ull;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint64_t hi, lo;
		radix_words(items[i], hi, lo);
		any_hi |= hi, any_lo |= lo, all_hi &= hi, all_lo &= lo;
	}
	for (int o = 16; o > 0; o >>= 1) {
		any_hi |= __shfl_xor_sync(0xffffffffu, any_hi, o);
		any_lo |= __shfl_xor_sync(0xffffffffu, any_lo, o);
		all_hi &= __shfl_xor_sync(0xffffffffu, all_hi, o);
		all_lo &= __shfl_xor_sync(0xffffffffu, all_lo, o);
	}
	if ((threadIdx.x & 31) == 0) {
		atomicOr(&bits[0], any_hi);
		atomicOr(&bits[1], any_lo);
		atomicAnd(&bits[2], all_hi);
		atomicAnd(&bits[3], all_lo);
	}
}

/* counts[digit * tiles + tile] = items of the tile with that digit. */
template <typename T, int BITS>
__global__ void __launch_bounds__(RADIX_THREADS) radix_histogram_kernel(const T *items, size_t n, int shift,
									 uint32_t *counts, size_t tiles)
{
	const unsigned radix = 1u << BITS;
	__shared__ unsigned histogram[1 << BITS];
	for (unsigned d = threadIdx.x; d < radix; d += blockDim.x)
		histogram[d] = 0;
	__syncthreads();
	size_t begin = blockIdx.x * (size_t)RADIX_TILE;
#pragma unroll
	for (int i = 0; i < RADIX_ITEMS_PER_THREAD; i++) {
		size_t at = begin + i * RADIX_THREADS + threadIdx.x;
		if (at < n)
			atomicAdd(&histogram[radix_digit(items[at], shift, radix - 1)], 1u);
	}
	__syncthreads();
	for (unsigned d = threadIdx.x; d < radix; d += blockDim.x)
		counts[d * tiles + blockIdx.x] = histogram[d];
}

/* Sorts the tile by digit (stable: BITS splits by one bit each, lowest bit first), then
 * writes item p of digit d to offsets[d * tiles + tile] + (p - first position of d). */
template <typename T, int BITS>
__global__ void __launch_bounds__(RADIX_THREADS) radix_scatter_kernel(const T *in, T *out, size_t n, int shift,
								       const uint64_t *offsets, size_t tiles)
{
	const unsigned radix = 1u << BITS;
	__shared__ T stage[RADIX_TILE];
	__shared__ unsigned digit_first[1 << BITS];
	__shared__ unsigned warp_sums[32];
	size_t begin = blockIdx.x * (size_t)RADIX_TILE;
	unsigned valid = n - begin < RADIX_TILE ? (unsigned)(n - begin) : RADIX_TILE;
	/* padding sorts last within the tile: largest digit, and after every real item */
	for (unsigned i = threadIdx.x; i < RADIX_TILE; i += RADIX_THREADS)
		stage[i] = i < valid ? in[begin + i] : item_max<T>();
	__syncthreads();
	T item[RADIX_ITEMS_PER_THREAD];
#pragma unroll
	for (int i = 0; i < RADIX_ITEMS_PER_THREAD; i++)
		item[i] = stage[threadIdx.x * RADIX_ITEMS_PER_THREAD + i];
	for (int bit = 0; bit < BITS; bit++) {
		unsigned zeros = 0;
#pragma unroll
		for (int i = 0; i < RADIX_ITEMS_PER_THREAD; i++)
			zeros += radix_digit(item[i], shift + bit, 1u) ^ 1u;
		unsigned total_zeros;
		unsigned zeros_before = algo_block_exclusive_scan(zeros, &total_zeros, warp_sums);
#pragma unroll
		for (int i = 0; i < RADIX_ITEMS_PER_THREAD; i++) {
			unsigned index = threadIdx.x * RADIX_ITEMS_PER_THREAD + i;
			unsigned one = radix_digit(item[i], shift + bit, 1u);
			unsigned to = one ? total_zeros + (index - zeros_before) : zeros_before;
			zeros_before += one ^ 1u;
			stage[to] = item[i];
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < RADIX_ITEMS_PER_THREAD; i++)
			item[i] = stage[threadIdx.x * RADIX_ITEMS_PER_THREAD + i];
		__syncthreads();
	}
	/* stage now holds the tile sorted by digit; note where each digit starts */
#pragma unroll
	for (int i = 0; i < RADIX_ITEMS_PER_THREAD; i++) {
		unsigned index = threadIdx.x * RADIX_ITEMS_PER_THREAD + i;
		unsigned digit = radix_digit(item[i], shift, radix - 1);
		if (index < valid && (index == 0 || radix_digit(stage[index - 1], shift, radix - 1) != digit))
			digit_first[digit] = index;
	}
	__syncthreads();
	for (unsigned index = threadIdx.x; index < valid; index += RADIX_THREADS) {
		T x = stage[index];
		unsigned digit = radix_digit(x, shift, radix - 1);
		out[offsets[digit * tiles + blockIdx.x] + (index - digit_first[digit])] = x;
	}
}

template <typename T, int BITS>
static cudaError_t radix_passes(T *data, T *scratch, size_t n, int low_bit, int high_bit, cudaStream_t stream)
{
	const size_t radix = (size_t)1 << BITS;
	size_t tiles = (n + RADIX_TILE - 1) / RADIX_TILE;
	size_t count_items = radix * tiles;
	uint32_t *counts = nullptr;
	uint64_t *offsets = nullptr;
	void *temp = nullptr;
	size_t temp_bytes = 0;
	cudaError_t error = cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, (int64_t)count_items, stream);
	if (!error) error = cudaMallocAsync(&counts, count_items * sizeof *counts, stream);
	if (!error) error = cudaMallocAsync(&offsets, count_items * sizeof *offsets, stream);
	if (!error) error = cudaMallocAsync(&temp, temp_bytes, stream);
	T *from = data, *to = scratch;
	for (int shift = low_bit; !error && shift <= high_bit; shift += BITS) {
		radix_histogram_kernel<T, BITS><<<(unsigned)tiles, RADIX_THREADS, 0, stream>>>(from, n, shift, counts, tiles);
		error = cudaGetLastError();
		if (!error)
			error = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, (int64_t)count_items, stream);
		if (!error) {
			radix_scatter_kernel<T, BITS><<<(unsigned)tiles, RADIX_THREADS, 0, stream>>>(from, to, n, shift, offsets, tiles);
			error = cudaGetLastError();
		}
		T *swap = from;
		from = to;
		to = swap;
	}
	if (!error && from != data)
		error = cudaMemcpyAsync(data, from, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
	if (temp) cudaFreeAsync(temp, stream);
	if (offsets) cudaFreeAsync(offsets, stream);
	if (counts) cudaFreeAsync(counts, stream);
	return error;
}

template <typename T>
static cudaError_t radix_sort(T *data, T *scratch, size_t n, int digit_bits, cudaStream_t stream)
{
	if (n < 2)
		return cudaSuccess;
	unsigned long long *bits = nullptr, host_bits[4];
	cudaError_t error = cudaMallocAsync(&bits, sizeof host_bits, stream);
	if (error)
		return error;
	error = cudaMemsetAsync(bits, 0, 2 * sizeof *bits, stream);
	if (!error) error = cudaMemsetAsync(bits + 2, 0xff, 2 * sizeof *bits, stream);
	if (!error) {
		unsigned blocks = (unsigned)std::min<size_t>((n + 255) / 256, 1024);
		radix_varying_bits_kernel<T><<<blocks, 256, 0, stream>>>(data, n, bits);
		error = cudaGetLastError();
	}
	if (!error) error = cudaMemcpyAsync(host_bits, bits, sizeof host_bits, cudaMemcpyDeviceToHost, stream);
	if (!error) error = cudaStreamSynchronize(stream);
	cudaFreeAsync(bits, stream);
	if (error)
		return error;
	uint64_t differ_hi = host_bits[0] ^ host_bits[2], differ_lo = host_bits[1] ^ host_bits[3];
	if (!differ_hi && !differ_lo)
		return cudaSuccess; /* all items equal */
	int low_bit = differ_lo ? __builtin_ctzll(differ_lo) : 64 + __builtin_ctzll(differ_hi);
	int high_bit = differ_hi ? 127 - __builtin_clzll(differ_hi) : 63 - __builtin_clzll(differ_lo);
	switch (digit_bits ? digit_bits : GPU_RADIX_DEFAULT_BITS) {
	case 4: return radix_passes<T, 4>(data, scratch, n, low_bit, high_bit, stream);
	case 5: return radix_passes<T, 5>(data, scratch, n, low_bit, high_bit, stream);
	case 6: return radix_passes<T, 6>(data, scratch, n, low_bit, high_bit, stream);
	case 7: return radix_passes<T, 7>(data, scratch, n, low_bit, high_bit, stream);
	case 8: return radix_passes<T, 8>(data, scratch, n, low_bit, high_bit, stream);
	default: return cudaErrorInvalidValue;
	}
}

cudaError_t gpu_radix_sort_device(int width, void *data, void *scratch, size_t n, int digit_bits, cudaStream_t stream)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = radix_sort<item_t>((item_t *)data, (item_t *)scratch, n, digit_bits, stream));
	return error;
}
