/* SPDX-License-Identifier: MIT */
/* Building blocks shared by the seeds' methods (gpu_*_sort.cu): a block-wide bitonic
 * network in shared memory, a block-wide exclusive scan by warp shuffles, and the last
 * step of the partitioning sorts: finishing pieces that fit one block's shared memory. */
#ifndef GPUSORT_GPU_SMALL_SORT_CUH
#define GPUSORT_GPU_SMALL_SORT_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <algorithm>
#include <vector>
#include "gpu_items.cuh"

/* Items one block holds in shared memory: the most, a power of two, in 32 KiB (2048 of
 * the 12-byte items, whose 2730 would break the networks). */
template <typename T> struct algo_shared {
	static constexpr unsigned fit(unsigned bytes)
	{
		unsigned p = 1;
		while (2 * p * sizeof(T) <= bytes)
			p *= 2;
		return p;
	}
	static constexpr unsigned items = fit(32768);
};
#define ALGO_FINISH_THREADS 512

template <typename T> __device__ __forceinline__ void algo_order(T &a, T &b, bool ascending)
{
	if (item_less(b, a) == ascending) {
		T t = a;
		a = b;
		b = t;
	}
}

/* One network step of stride j in merge phase k over s[0, p); the direction comes from
 * the global index (base + index) so that tiles of a larger network agree. */
template <typename T>
__device__ __forceinline__ void algo_bitonic_step(T *s, unsigned p, unsigned j, uint64_t k, uint64_t base)
{
	for (unsigned i = threadIdx.x; i < p / 2; i += blockDim.x) {
		unsigned lo = 2 * i - (i & (j - 1));
		bool ascending = ((base + lo) & k) == 0;
		algo_order(s[lo], s[lo + j], ascending);
	}
	__syncthreads();
}

/* Sorts s[0, p) (p a power of two) ascending when base & p is 0, else descending. */
template <typename T> __device__ void algo_block_sort(T *s, unsigned p, uint64_t base)
{
	for (unsigned k = 2; k <= p; k <<= 1)
		for (unsigned j = k >> 1; j > 0; j >>= 1)
			algo_bitonic_step(s, p, j, k, base);
}

/* The strides p/2 .. 1 of merge phase k (k >= p). */
template <typename T> __device__ void algo_block_merge(T *s, unsigned p, uint64_t k, uint64_t base)
{
	for (unsigned j = p >> 1; j > 0; j >>= 1)
		algo_bitonic_step(s, p, j, k, base);
}

/* Exclusive prefix sum of one value per thread over the block (blockDim.x a multiple
 * of 32, at most 1024); *total receives the sum. warp_sums: 32 words of shared memory.
 * Every thread of the block must call it. */
__device__ __forceinline__ unsigned algo_block_exclusive_scan(unsigned value, unsigned *total, unsigned *warp_sums)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
	unsigned inclusive = value;
	for (int o = 1; o < 32; o <<= 1) {
		unsigned y = __shfl_up_sync(0xffffffffu, inclusive, o);
		if (lane >= (unsigned)o)
			inclusive += y;
	}
	if (lane == 31)
		warp_sums[warp] = inclusive;
	__syncthreads();
	if (warp == 0) {
		unsigned s = lane < warps ? warp_sums[lane] : 0;
		for (int o = 1; o < 32; o <<= 1) {
			unsigned y = __shfl_up_sync(0xffffffffu, s, o);
			if (lane >= (unsigned)o)
				s += y;
		}
		warp_sums[lane] = s;
	}
	__syncthreads();
	unsigned before = warp ? warp_sums[warp - 1] : 0;
	*total = warp_sums[warps - 1];
	__syncthreads();
	return before + inclusive - value;
}

/* A piece of the output that is final but for a sort in shared memory: its items lie
 * at [begin, begin + length) of data or of scratch; constant pieces need only a copy. */
struct algo_piece {
	uint64_t begin;
	uint32_t length;
	uint32_t flags;
};
#define ALGO_PIECE_IN_SCRATCH 1u
#define ALGO_PIECE_CONSTANT 2u

template <typename T> __global__ void __launch_bounds__(ALGO_FINISH_THREADS)
algo_finish_kernel(const algo_piece *pieces, T *data, const T *scratch)
{
	__shared__ T s[algo_shared<T>::items];
	algo_piece piece = pieces[blockIdx.x];
	const T *source = (piece.flags & ALGO_PIECE_IN_SCRATCH) ? scratch : data;
	source += piece.begin;
	T *out = data + piece.begin;
	if (piece.flags & ALGO_PIECE_CONSTANT) {
		for (unsigned i = threadIdx.x; i < piece.length; i += blockDim.x)
			out[i] = source[i];
		return;
	}
	unsigned p = 1;
	while (p < piece.length)
		p <<= 1;
	for (unsigned i = threadIdx.x; i < p; i += blockDim.x)
		s[i] = i < piece.length ? source[i] : item_max<T>();
	__syncthreads();
	algo_block_sort(s, p, 0);
	for (unsigned i = threadIdx.x; i < piece.length; i += blockDim.x)
		out[i] = s[i];
}

/* Records [begin, begin+length) as finished but for a shared-memory sort (length at most
 * algo_shared<T>::items) or a copy (constant; split into pieces of that size). Pieces
 * already in place (constant or single items in data) are left out. */
template <typename T>
static void algo_add_piece(std::vector<algo_piece> &pieces, uint64_t begin, uint64_t length, bool in_scratch,
			   bool constant)
{
	if (length == 0 || ((constant || length == 1) && !in_scratch))
		return;
	uint32_t flags = (in_scratch ? ALGO_PIECE_IN_SCRATCH : 0) | (constant ? ALGO_PIECE_CONSTANT : 0);
	const uint64_t most = algo_shared<T>::items;
	for (uint64_t done = 0; done < length; done += most) {
		uint64_t size = length - done < most ? length - done : most;
		pieces.push_back(algo_piece{ begin + done, (uint32_t)size, flags | (size == 1 ? ALGO_PIECE_CONSTANT : 0) });
	}
}

/* Collects finished ranges in ascending order and joins neighbours from one buffer into
 * pieces of up to algo_shared<T>::items: every item of a range is below every item of
 * the next, so sorting the joined piece is the same as sorting each, with far fewer
 * (and fuller) blocks than one per range. */
template <typename T> struct algo_piece_builder {
	std::vector<algo_piece> &pieces;
	uint64_t begin = 0, length = 0;
	bool in_scratch = false, constant = false;
	explicit algo_piece_builder(std::vector<algo_piece> &out) : pieces(out) {}
	void flush()
	{
		algo_add_piece<T>(pieces, begin, length, in_scratch, constant);
		length = 0;
	}
	void add(uint64_t at, uint64_t size, bool scratch, bool same_items)
	{
		if (size == 0)
			return;
		if (length && at == begin + length && scratch == in_scratch && length + size <= algo_shared<T>::items) {
			length += size;
			constant = false;
			return;
		}
		flush();
		begin = at, length = size, in_scratch = scratch, constant = same_items || size == 1;
		if (length > algo_shared<T>::items)
			flush(); /* a long constant range: copied in pieces */
	}
};

/* Sorts every piece into data, largest first (blocks start in index order). */
template <typename T>
static cudaError_t algo_finish_pieces(std::vector<algo_piece> &pieces, T *data, const T *scratch, cudaStream_t stream)
{
	if (pieces.empty())
		return cudaSuccess;
	std::stable_sort(pieces.begin(), pieces.end(),
			 [](const algo_piece &a, const algo_piece &b) { return a.length > b.length; });
	algo_piece *device = nullptr;
	cudaError_t error = cudaMallocAsync(&device, pieces.size() * sizeof *device, stream);
	if (error)
		return error;
	error = cudaMemcpyAsync(device, pieces.data(), pieces.size() * sizeof *device, cudaMemcpyHostToDevice, stream);
	for (size_t first = 0; !error && first < pieces.size(); first += 0x7fffffffu) {
		size_t count = std::min<size_t>(pieces.size() - first, 0x7fffffffu);
		algo_finish_kernel<T><<<(unsigned)count, ALGO_FINISH_THREADS, 0, stream>>>(device + first, data, scratch);
		error = cudaGetLastError();
	}
	/* the pageable copy above has left the host vector before this returns */
	cudaError_t freed = cudaFreeAsync(device, stream);
	return error ? error : freed;
}

#endif
