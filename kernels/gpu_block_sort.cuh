/* SPDX-License-Identifier: MIT */
/* Block-wide sort of up to THREADS * items_per_thread items (the local sort of steps 2
 * and 9): each thread sorts its items in registers, then CUB's BlockMergeSort merges the
 * runs through shared memory, O(m log m) work against the bitonic network's
 * O(m log^2 m). u64 keys whose range in the block spans few bits (a bucket between two
 * close splitters, or narrow data) take CUB's BlockRadixSort over just those bits instead.
 * The sorted tile is left in shared memory in plain index order. */
#ifndef GPUSORT_GPU_BLOCK_SORT_CUH
#define GPUSORT_GPU_BLOCK_SORT_CUH

#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_sort.cuh>
#include "gpu_items.cuh"

/* Items a thread holds: 128 bytes, less one item. An odd count makes the merge sort's
 * blocked stores (thread t writes t*ipt + i) hit distinct banks, which an even count
 * (the power-of-two tile) turns into 16- to 32-way conflicts. */
template <typename T> struct block_sort_items {
	static constexpr int per_thread = 128 / (int)sizeof(T) - 1;
	/* a quarter more, still odd: a class between two powers of two of threads */
	static constexpr int wide = per_thread + (per_thread + 1) / 4;
};

/* Plain u64 keys are checked for the bits in which they differ within the block: none
 * (all equal, as in a bucket of one repeated value) needs no sort at all, and a range of
 * at most GPU_RADIX_MAX_BITS_U64 bits takes CUB's BlockRadixSort over just those bits,
 * 4 bits a pass, which up to that width is faster than the merge sort (bench/RESULTS.md). u32
 * (31 items a thread) spills registers in the radix sort and loses at any width, and
 * 128-bit items carry a position in their low bits, so neither is checked. */
#ifndef GPU_RADIX_MAX_BITS_U64
#define GPU_RADIX_MAX_BITS_U64 24
#endif
template <typename T> struct block_narrow_keys {
	static constexpr bool checked = false;
	static constexpr int radix_bits = 0;
};
template <> struct block_narrow_keys<uint64_t> {
	static constexpr bool checked = true;
	static constexpr int radix_bits = GPU_RADIX_MAX_BITS_U64;
};

/* Shared memory after the sort's buffers: one word per warp for block_differing_bits. */
#define BLOCK_WARP_WORDS_BYTES (32 * sizeof(uint64_t))

/* The bits in which any of keys[0, count) (striped over the threads, as sort_to_shared
 * loads them) differs from first, OR-ed over the block. warp_words: 32 words of shared
 * memory that no other code of the block uses. One barrier. */
template <typename T, int THREADS, int PER_THREAD>
__device__ __forceinline__ uint64_t block_differing_bits(const T (&keys)[PER_THREAD], T first, unsigned count,
							 uint64_t *warp_words)
{
	uint64_t differs = 0;
#pragma unroll
	for (int i = 0; i < PER_THREAD; i++)
		if ((unsigned)i * THREADS + threadIdx.x < count)
			differs |= (uint64_t)(keys[i] ^ first);
	unsigned low = __reduce_or_sync(0xffffffffu, (unsigned)differs);
	unsigned high = __reduce_or_sync(0xffffffffu, (unsigned)(differs >> 32));
	unsigned lane = threadIdx.x & 31;
	if (lane == 0)
		warp_words[threadIdx.x >> 5] = (uint64_t)high << 32 | low;
	__syncthreads();
	/* lane w of every warp reads warp w's word, and the warp ORs them */
	uint64_t word = lane < THREADS / 32 ? warp_words[lane] : 0;
	low = __reduce_or_sync(0xffffffffu, (unsigned)word);
	high = __reduce_or_sync(0xffffffffu, (unsigned)(word >> 32));
	return (uint64_t)high << 32 | low;
}

template <typename T, int THREADS, int PER_THREAD = block_sort_items<T>::per_thread> struct block_sorter {
	static constexpr int per_thread = PER_THREAD;
	static constexpr unsigned capacity = (unsigned)THREADS * per_thread;
	static constexpr int radix_bits = block_narrow_keys<T>::radix_bits;
	typedef cub::BlockMergeSort<T, THREADS, per_thread> merge_sort;
	typedef cub::BlockRadixSort<T, THREADS, per_thread, cub::NullType, 4, false> radix_sort;
	static constexpr size_t larger(size_t a, size_t b) { return a > b ? a : b; }
	static constexpr size_t sort_bytes = larger(larger(sizeof(typename merge_sort::TempStorage), capacity * sizeof(T)),
						    radix_bits ? sizeof(typename radix_sort::TempStorage) : 0);
	/* Dynamic shared memory a block needs: the sort's buffers, which then hold the tile,
	 * and the words of the narrow-key check. */
	static constexpr size_t shared_bytes =
		(sort_bytes + 15) / 16 * 16 + (block_narrow_keys<T>::checked ? BLOCK_WARP_WORDS_BYTES : 0);

	/* Sorts source[0, count) (count <= capacity) into tile[0, count) in shared memory,
	 * which must be shared_bytes long and 16-byte aligned. Called by every thread of
	 * the block; begins and ends with a barrier, so the tile may be reused in a loop. */
	__device__ static __forceinline__ void sort_to_shared(T *tile, const T *source, unsigned count)
	{
		T keys[per_thread];
		/* striped loads are coalesced, and the order of unsorted input is free */
#pragma unroll
		for (int i = 0; i < per_thread; i++) {
			unsigned index = (unsigned)i * THREADS + threadIdx.x;
			keys[i] = index < count ? source[index] : item_max<T>();
		}
		__syncthreads();
		if (!(count > 0 && sort_narrow(tile, keys, source[0], count))) {
			typename merge_sort::TempStorage &storage =
				*reinterpret_cast<typename merge_sort::TempStorage *>(tile);
			merge_sort(storage).Sort(keys, item_less_op());
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < per_thread; i++)
			tile[threadIdx.x * per_thread + i] = keys[i];
		__syncthreads();
	}

private:
	/* Keys that are all equal, or (u64) that differ in at most radix_bits low bits:
	 * sorted here (or left as they are), returning true; otherwise false, keys untouched.
	 * The radix sort's padding takes the largest value of the range, so it sorts last
	 * or ties with an identical key. first: source[0], which every thread reads. */
	__device__ static __forceinline__ bool sort_narrow(T *tile, T (&keys)[per_thread], T first, unsigned count)
	{
		if constexpr (block_narrow_keys<T>::checked) {
			uint64_t *words = reinterpret_cast<uint64_t *>(reinterpret_cast<unsigned char *>(tile) +
								       (sort_bytes + 15) / 16 * 16);
			uint64_t differs = block_differing_bits<T, THREADS, per_thread>(keys, first, count, words);
			int bits = differs ? 64 - __clzll((long long)differs) : 0;
			if (bits > radix_bits)
				return false;
			/* bits <= radix_bits < 64; all equal when 0, and then any order is sorted */
			T pad = first | (T)((((uint64_t)1) << bits) - 1);
#pragma unroll
			for (int i = 0; i < per_thread; i++)
				if ((unsigned)i * THREADS + threadIdx.x >= count)
					keys[i] = pad;
			if constexpr (radix_bits > 0) {
				if (bits > 0) {
					typename radix_sort::TempStorage &storage =
						*reinterpret_cast<typename radix_sort::TempStorage *>(tile);
					radix_sort(storage).Sort(keys, 0, bits);
				}
			}
			return true;
		}
		return false;
	}
};

#endif
