/* SPDX-License-Identifier: MIT */
/* GPU quicksort after Cederman and Tsigas: every sequence larger than a block's shared
 * memory is partitioned around a pivot (a median of medians of three) by many blocks at
 * once (per-block counts of smaller and equal items, prefix sums over the blocks,
 * scatter into the other buffer); the host plans each pass from the counts; the small
 * sequences are then sorted in shared memory, largest first. Three-way partitions keep
 * runs of equal items (32-bit keys alone) from recursing. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "gpu_algorithms.cuh"
#include "gpu_items.cuh"
#include "gpu_small_sort.cuh"

#define QUICK_THREADS 256
#define QUICK_ITEMS_PER_THREAD 8
#define QUICK_CHUNK (QUICK_THREADS * QUICK_ITEMS_PER_THREAD)

struct quick_sequence {
	uint64_t begin, length;
	uint32_t in_scratch; /* where its items are now; the pass writes the other buffer */
	uint32_t first_block, blocks;
};

struct quick_block {
	uint64_t begin; /* absolute index of the block's chunk */
	uint32_t length, sequence;
};

template <typename T> __device__ __forceinline__ const T &quick_median(const T &a, const T &b, const T &c)
{
	if (item_less(a, b))
		return item_less(b, c) ? b : (item_less(a, c) ? c : a);
	return item_less(a, c) ? a : (item_less(b, c) ? c : b);
}

template <typename T>
__global__ void quick_pivot_kernel(const quick_sequence *sequences, unsigned count, const T *data, const T *scratch, T *pivots)
{
	unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
	if (s >= count)
		return;
	quick_sequence q = sequences[s];
	const T *items = (q.in_scratch ? scratch : data) + q.begin;
	/* the median of three medians of three, from nine equidistant items (first, middle
	 * and last among them): median-of-three alone meets periodic inputs badly */
	uint64_t step = (q.length - 1) / 8;
	T m[3];
	for (int g = 0; g < 3; g++)
		m[g] = quick_median(items[(3 * g) * step], items[(3 * g + 1) * step],
				    items[g == 2 ? q.length - 1 : (3 * g + 2) * step]);
	pivots[s] = quick_median(m[0], m[1], m[2]);
}

/* Per-thread counts of smaller (low 16 bits) and equal (high 16 bits) items of a chunk. */
template <typename T>
__device__ __forceinline__ unsigned quick_classify(const T *items, const quick_block &b, const T &pivot, T (&x)[QUICK_ITEMS_PER_THREAD])
{
	unsigned packed = 0;
#pragma unroll
	for (int i = 0; i < QUICK_ITEMS_PER_THREAD; i++) {
		unsigned at = i * QUICK_THREADS + threadIdx.x;
		if (at < b.length) {
			x[i] = items[b.begin + at];
			packed += item_less(x[i], pivot) ? 1u : item_equal(x[i], pivot) ? 0x10000u : 0u;
		}
	}
	return packed;
}

template <typename T>
__global__ void __launch_bounds__(QUICK_THREADS) quick_count_kernel(const quick_block *blocks, const quick_sequence *sequences,
								     const T *data, const T *scratch, const T *pivots,
								     uint64_t *smaller, uint64_t *equal)
{
	__shared__ unsigned warp_sums[32];
	quick_block b = blocks[blockIdx.x];
	const T *items = sequences[b.sequence].in_scratch ? scratch : data;
	T x[QUICK_ITEMS_PER_THREAD];
	unsigned packed = quick_classify(items, b, pivots[b.sequence], x), total;
	algo_block_exclusive_scan(packed, &total, warp_sums);
	if (threadIdx.x == 0) {
		smaller[blockIdx.x] = total & 0xffffu;
		equal[blockIdx.x] = total >> 16;
	}
}

/* smaller_before/equal_before: exclusive sums over all blocks of the pass (one more
 * entry, the totals), so a sequence's totals are differences at its block bounds. */
template <typename T>
__global__ void __launch_bounds__(QUICK_THREADS) quick_scatter_kernel(const quick_block *blocks, const quick_sequence *sequences,
								       T *data, T *scratch, const T *pivots,
								       const uint64_t *smaller_before, const uint64_t *equal_before)
{
	__shared__ unsigned warp_sums[32];
	quick_block b = blocks[blockIdx.x];
	quick_sequence q = sequences[b.sequence];
	const T *items = q.in_scratch ? scratch : data;
	T *out = (q.in_scratch ? data : scratch) + q.begin;
	T pivot = pivots[b.sequence];
	T x[QUICK_ITEMS_PER_THREAD];
	unsigned packed = quick_classify(items, b, pivot, x), total;
	unsigned before = algo_block_exclusive_scan(packed, &total, warp_sums);
	uint64_t base_smaller = smaller_before[q.first_block], base_equal = equal_before[q.first_block];
	uint64_t all_smaller = smaller_before[q.first_block + q.blocks] - base_smaller;
	uint64_t all_equal = equal_before[q.first_block + q.blocks] - base_equal;
	uint64_t block_smaller = smaller_before[blockIdx.x] - base_smaller;
	uint64_t block_equal = equal_before[blockIdx.x] - base_equal;
	uint64_t block_larger = (b.begin - q.begin) - block_smaller - block_equal;
	uint64_t next_smaller = block_smaller + (before & 0xffffu);
	uint64_t next_equal = all_smaller + block_equal + (before >> 16);
	/* chunk items held by the threads before this one (thread t holds i*THREADS + t) */
	uint64_t held_before = 0;
#pragma unroll
	for (int i = 0; i < QUICK_ITEMS_PER_THREAD; i++) {
		int row = (int)b.length - i * QUICK_THREADS;
		row = row < 0 ? 0 : row > QUICK_THREADS ? QUICK_THREADS : row;
		held_before += threadIdx.x < (unsigned)row ? threadIdx.x : (unsigned)row;
	}
	uint64_t next_larger = all_smaller + all_equal + block_larger + held_before - (before & 0xffffu) - (before >> 16);
#pragma unroll
	for (int i = 0; i < QUICK_ITEMS_PER_THREAD; i++) {
		if (i * QUICK_THREADS + threadIdx.x < b.length) {
			if (item_less(x[i], pivot))
				out[next_smaller++] = x[i];
			else if (item_equal(x[i], pivot))
				out[next_equal++] = x[i];
			else
				out[next_larger++] = x[i];
		}
	}
}

template <typename T> struct quick_tables {
	quick_sequence *sequences = nullptr;
	quick_block *blocks = nullptr;
	T *pivots = nullptr;
	uint64_t *smaller = nullptr, *equal = nullptr, *smaller_before = nullptr, *equal_before = nullptr;
	void *temp = nullptr;
	size_t temp_bytes = 0;
};

template <typename T> static cudaError_t quick_sort(T *data, T *scratch, size_t n, cudaStream_t stream)
{
	const uint64_t small = algo_shared<T>::items;
	std::vector<algo_piece> pieces;
	std::vector<quick_sequence> large;
	if (n <= small)
		algo_add_piece<T>(pieces, 0, n, false, false);
	else
		large.push_back(quick_sequence{ 0, n, 0, 0, 0 });
	/* bounds for any pass: each chunk, plus one partial chunk per sequence */
	size_t max_sequences = n / (small + 1) + 1;
	size_t max_blocks = n / QUICK_CHUNK + max_sequences + 1;
	quick_tables<T> t;
	cudaError_t error = cudaSuccess;
	if (!large.empty()) {
		error = cub::DeviceScan::ExclusiveSum(nullptr, t.temp_bytes, t.smaller, t.smaller_before, (int64_t)max_blocks + 1, stream);
		if (!error) error = cudaMallocAsync(&t.sequences, max_sequences * sizeof *t.sequences, stream);
		if (!error) error = cudaMallocAsync(&t.blocks, max_blocks * sizeof *t.blocks, stream);
		if (!error) error = cudaMallocAsync(&t.pivots, max_sequences * sizeof *t.pivots, stream);
		if (!error) error = cudaMallocAsync(&t.smaller, (max_blocks + 1) * sizeof(uint64_t), stream);
		if (!error) error = cudaMallocAsync(&t.equal, (max_blocks + 1) * sizeof(uint64_t), stream);
		if (!error) error = cudaMallocAsync(&t.smaller_before, (max_blocks + 1) * sizeof(uint64_t), stream);
		if (!error) error = cudaMallocAsync(&t.equal_before, (max_blocks + 1) * sizeof(uint64_t), stream);
		if (!error) error = cudaMallocAsync(&t.temp, t.temp_bytes, stream);
	}
	std::vector<quick_block> blocks;
	std::vector<uint64_t> smaller_before, equal_before;
	while (!error && !large.empty()) {
		blocks.clear();
		for (uint32_t s = 0; s < large.size(); s++) {
			quick_sequence &q = large[s];
			q.first_block = (uint32_t)blocks.size();
			for (uint64_t at = 0; at < q.length; at += QUICK_CHUNK) {
				uint64_t size = q.length - at < QUICK_CHUNK ? q.length - at : QUICK_CHUNK;
				blocks.push_back(quick_block{ q.begin + at, (uint32_t)size, s });
			}
			q.blocks = (uint32_t)blocks.size() - q.first_block;
		}
		size_t nb = blocks.size();
		unsigned ns = (unsigned)large.size();
		error = cudaMemcpyAsync(t.sequences, large.data(), ns * sizeof *t.sequences, cudaMemcpyHostToDevice, stream);
		if (!error) error = cudaMemcpyAsync(t.blocks, blocks.data(), nb * sizeof *t.blocks, cudaMemcpyHostToDevice, stream);
		if (!error) error = cudaMemsetAsync(t.smaller + nb, 0, sizeof(uint64_t), stream);
		if (!error) error = cudaMemsetAsync(t.equal + nb, 0, sizeof(uint64_t), stream);
		if (!error) {
			quick_pivot_kernel<T><<<(ns + 127) / 128, 128, 0, stream>>>(t.sequences, ns, data, scratch, t.pivots);
			error = cudaGetLastError();
		}
		if (!error) {
			quick_count_kernel<T><<<(unsigned)nb, QUICK_THREADS, 0, stream>>>(t.blocks, t.sequences, data, scratch,
											  t.pivots, t.smaller, t.equal);
			error = cudaGetLastError();
		}
		if (!error) error = cub::DeviceScan::ExclusiveSum(t.temp, t.temp_bytes, t.smaller, t.smaller_before, (int64_t)nb + 1, stream);
		if (!error) error = cub::DeviceScan::ExclusiveSum(t.temp, t.temp_bytes, t.equal, t.equal_before, (int64_t)nb + 1, stream);
		if (!error) {
			quick_scatter_kernel<T><<<(unsigned)nb, QUICK_THREADS, 0, stream>>>(t.blocks, t.sequences, data, scratch,
											    t.pivots, t.smaller_before, t.equal_before);
			error = cudaGetLastError();
		}
		smaller_before.resize(nb + 1);
		equal_before.resize(nb + 1);
		if (!error) error = cudaMemcpyAsync(smaller_before.data(), t.smaller_before, (nb + 1) * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream);
		if (!error) error = cudaMemcpyAsync(equal_before.data(), t.equal_before, (nb + 1) * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream);
		if (!error) error = cudaStreamSynchronize(stream);
		if (error)
			break;
		std::vector<quick_sequence> next;
		algo_piece_builder<T> finished(pieces);
		for (const quick_sequence &q : large) {
			uint64_t lower = smaller_before[q.first_block + q.blocks] - smaller_before[q.first_block];
			uint64_t same = equal_before[q.first_block + q.blocks] - equal_before[q.first_block];
			uint32_t moved = !q.in_scratch;
			quick_sequence parts[2] = { { q.begin, lower, moved, 0, 0 },
						    { q.begin + lower + same, q.length - lower - same, moved, 0, 0 } };
			if (parts[0].length > small)
				next.push_back(parts[0]);
			else
				finished.add(parts[0].begin, parts[0].length, moved, false);
			finished.add(q.begin + lower, same, moved, true);
			if (parts[1].length > small)
				next.push_back(parts[1]);
			else
				finished.add(parts[1].begin, parts[1].length, moved, false);
		}
		finished.flush();
		large.swap(next);
	}
	if (!error)
		error = algo_finish_pieces<T>(pieces, data, scratch, stream);
	void *tables[] = { t.sequences, t.blocks, t.pivots, t.smaller, t.equal, t.smaller_before, t.equal_before, t.temp };
	for (void *table : tables)
		if (table)
			cudaFreeAsync(table, stream);
	return error;
}

cudaError_t gpu_quick_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = quick_sort<item_t>((item_t *)data, (item_t *)scratch, n, stream));
	return error;
}
