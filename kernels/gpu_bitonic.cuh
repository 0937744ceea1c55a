/* Block-wide bitonic sorting network in shared memory: p (a power of two) items sorted
 * ascending by one thread block. Each pass moves a group of 2^NB items that differ only
 * in NB consecutive index bits into registers and runs NB network stages there, so the
 * items cross shared memory once per NB stages instead of once per stage. */
#ifndef GPUSORT_GPU_BITONIC_CUH
#define GPUSORT_GPU_BITONIC_CUH

#include "gpu_items.cuh"

/* One padding item every 128 bytes: the strided groups of the last passes (index bits
 * 0..NB-1 in registers, lanes spread over the higher bits) then hit distinct banks. */
template <typename T> struct bitonic_layout {
	static constexpr unsigned pad_shift = sizeof(T) == 4 ? 5 : sizeof(T) == 8 ? 4 : 3;
	__device__ __forceinline__ static unsigned at(unsigned index) { return index + (index >> pad_shift); }
	/* Shared-memory bytes for a network of p items. */
	__host__ __device__ static size_t bytes(unsigned p) { return (size_t)(p + (p >> pad_shift)) * sizeof(T); }
};

template <typename T>
__device__ __forceinline__ void compare_exchange(T &a, T &b, bool ascending)
{
	bool swap = ascending ? item_less(b, a) : item_less(a, b);
	T low = swap ? b : a;
	T high = swap ? a : b;
	a = low;
	b = high;
}

/* All stages of merge phase k whose stride bits are hi .. hi-NB+1. */
template <typename T, int NB>
__device__ __forceinline__ void bitonic_merge_pass(T *shared, unsigned p, unsigned k, int hi)
{
	typedef bitonic_layout<T> layout;
	const int lo = hi - NB + 1;
	const unsigned low_mask = (1u << lo) - 1;
	const unsigned groups = p >> NB;
	for (unsigned g = threadIdx.x; g < groups; g += blockDim.x) {
		unsigned base = ((g >> lo) << (lo + NB)) | (g & low_mask);
		bool ascending = (base & k) == 0;
		T v[1 << NB];
#pragma unroll
		for (int c = 0; c < (1 << NB); c++)
			v[c] = shared[layout::at(base + ((unsigned)c << lo))];
#pragma unroll
		for (int t = NB - 1; t >= 0; t--) {
#pragma unroll
			for (int c = 0; c < (1 << NB); c++)
				if ((c & (1 << t)) == 0)
					compare_exchange(v[c], v[c | (1 << t)], ascending);
		}
#pragma unroll
		for (int c = 0; c < (1 << NB); c++)
			shared[layout::at(base + ((unsigned)c << lo))] = v[c];
	}
}

/* The first phases (k = 2 .. 2^NB): every aligned group of 2^NB items sorted in
 * registers, in the direction the network gives it. */
template <typename T, int NB>
__device__ __forceinline__ void bitonic_group_pass(T *shared, unsigned p)
{
	typedef bitonic_layout<T> layout;
	const unsigned groups = p >> NB;
	for (unsigned g = threadIdx.x; g < groups; g += blockDim.x) {
		unsigned base = g << NB;
		T v[1 << NB];
#pragma unroll
		for (int c = 0; c < (1 << NB); c++)
			v[c] = shared[layout::at(base + c)];
#pragma unroll
		for (int kb = 1; kb <= NB; kb++) {
			const unsigned k = 1u << kb;
#pragma unroll
			for (int t = kb - 1; t >= 0; t--) {
#pragma unroll
				for (int c = 0; c < (1 << NB); c++)
					if ((c & (1 << t)) == 0)
						compare_exchange(v[c], v[c | (1 << t)],
								 (((base | (unsigned)c) & k) == 0));
			}
		}
#pragma unroll
		for (int c = 0; c < (1 << NB); c++)
			shared[layout::at(base + c)] = v[c];
	}
}

template <typename T, int NB>
__device__ __forceinline__ void bitonic_merge_dispatch(T *shared, unsigned p, unsigned k, int hi, int nb)
{
	if (NB > 1 && nb >= NB)
		bitonic_merge_pass<T, NB>(shared, p, k, hi);
	else if (nb >= 3)
		bitonic_merge_pass<T, (NB >= 3 ? 3 : 1)>(shared, p, k, hi);
	else if (nb == 2)
		bitonic_merge_pass<T, 2>(shared, p, k, hi);
	else
		bitonic_merge_pass<T, 1>(shared, p, k, hi);
}

/* Sorts shared[layout::at(0 .. p-1)] ascending; p is a power of two >= 2. Must be
 * called by every thread of the block; ends with a barrier. RB is the register depth. */
template <typename T, int RB>
__device__ void bitonic_sort_block(T *shared, unsigned p)
{
	int log_p = 31 - __clz(p);
	int first = log_p < RB ? log_p : RB;
	__syncthreads();
	switch (first) {
	case 1: bitonic_group_pass<T, 1>(shared, p); break;
	case 2: bitonic_group_pass<T, 2>(shared, p); break;
	case 3: bitonic_group_pass<T, (RB >= 3 ? 3 : 1)>(shared, p); break;
	default: bitonic_group_pass<T, RB>(shared, p); break;
	}
	__syncthreads();
	for (int kb = first + 1; kb <= log_p; kb++) {
		for (int hi = kb - 1; hi >= 0;) {
			int nb = hi + 1 < RB ? hi + 1 : RB;
			/* a pass of fewer than RB stages would cost a full shared-memory round
			 * trip for little work: take RB-deep passes where the bits allow */
			bitonic_merge_dispatch<T, RB>(shared, p, 1u << kb, hi, nb);
			__syncthreads();
			hi -= nb;
		}
	}
}

#endif
