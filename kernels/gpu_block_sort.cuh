/* Block-wide sort of up to THREADS * items_per_thread items (the local sort of steps 2
 * and 9): each thread sorts its items in registers, then CUB's BlockMergeSort merges the
 * runs through shared memory, O(m log m) work against the bitonic network's
 * O(m log^2 m). The sorted tile is left in shared memory in plain index order. */
#ifndef GPUSORT_GPU_BLOCK_SORT_CUH
#define GPUSORT_GPU_BLOCK_SORT_CUH

#include <cub/block/block_merge_sort.cuh>
#include "gpu_items.cuh"

/* Items a thread holds: 128 bytes, less one item. An odd count makes the merge sort's
 * blocked stores (thread t writes t*ipt + i) hit distinct banks, which an even count
 * (the power-of-two tile) turns into 16- to 32-way conflicts. */
template <typename T> struct block_sort_items {
	static constexpr int per_thread = 128 / (int)sizeof(T) - 1;
	/* a quarter more, still odd: a class between two powers of two of threads */
	static constexpr int wide = per_thread + (per_thread + 1) / 4;
};

template <typename T, int THREADS, int PER_THREAD = block_sort_items<T>::per_thread> struct block_sorter {
	static constexpr int per_thread = PER_THREAD;
	static constexpr unsigned capacity = (unsigned)THREADS * per_thread;
	typedef cub::BlockMergeSort<T, THREADS, per_thread> merge_sort;
	/* Dynamic shared memory a block needs: the merge buffer, which then holds the tile. */
	static constexpr size_t shared_bytes = sizeof(typename merge_sort::TempStorage) > capacity * sizeof(T)
						       ? sizeof(typename merge_sort::TempStorage)
						       : capacity * sizeof(T);

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
		typename merge_sort::TempStorage &storage = *reinterpret_cast<typename merge_sort::TempStorage *>(tile);
		__syncthreads();
		merge_sort(storage).Sort(keys, item_less_op());
		__syncthreads();
#pragma unroll
		for (int i = 0; i < per_thread; i++)
			tile[threadIdx.x * per_thread + i] = keys[i];
		__syncthreads();
	}
};

#endif
