/* SPDX-License-Identifier: MIT */
/* The kernels of GPU Bucket Sort's steps (gpu_bucket_sort.cu's host loop runs them):
 * the segment table every kernel of a level serves, the block classes of the local
 * sort, and one kernel per step. Included by gpu_bucket_sort.cu alone. */
#ifndef GPUSORT_GPU_BUCKET_KERNELS_CUH
#define GPUSORT_GPU_BUCKET_KERNELS_CUH

#include <stdint.h>
#include "gpu_block_sort.cuh"
#include "gpu_items.cuh"

/* Threads of the block that sorts one tile (a sublist of m items, or a bucket that fits):
 * m = GPU_TILE_THREADS * block_sort_items<T>::per_thread, about 124 KiB of items. */
#ifndef GPU_TILE_THREADS
#define GPU_TILE_THREADS 1024
#endif
#define BLOCK_THREADS 1024

/* One segment of a level: a range of the level's buffers sorted by one plan. */
struct segment_info {
	uint64_t start, n;
	uint64_t first_sublist;  /* global sublist index of its sublist 0 */
	uint64_t sample_base;    /* L*s samples */
	uint64_t splitter_base;  /* s-1 splitters */
	uint64_t bounds_base;    /* L*(s+1) bounds */
	uint64_t count_base;     /* L*s+1 counts, bucket-major, then offsets */
	uint64_t bucket_base;    /* s buckets in the level's bucket table */
	uint32_t m, s, sublists, unused;
};


__host__ __device__ static inline unsigned next_pow2(uint64_t x)
{
	unsigned p = 2;
	while (p < x)
		p <<= 1;
	return p;
}

/* The segment that holds global sublist g (segments are in sublist order). */
__device__ static inline const segment_info *find_segment(const segment_info *segs, int count, uint64_t g)
{
	int lo = 0, hi = count - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) >> 1;
		if (segs[mid].first_sublist <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &segs[lo];
}

/* Block classes of the local sort, by capacity: 128, 256 and 512 threads of per_thread
 * items, 512 threads of wide items (buckets of a power-of-two size, which the classes
 * above and below would fit only half full) and the tile, 1024 threads of per_thread.
 * A range goes to the smallest class that holds it, so a small bucket neither pays for
 * a whole tile nor fills an SM. */
#define SORT_CLASSES 5
#define TILE_CLASS (SORT_CLASSES - 1)
static_assert(GPU_TILE_THREADS == 1024, "the tile class has 1024 threads");
#define SORT_CLASS_SWITCH(T, c, ...)                                                                           \
	do {                                                                                                   \
		switch (c) {                                                                                   \
		case 0: { constexpr int THREADS = 128, PER_THREAD = block_sort_items<T>::per_thread; __VA_ARGS__; } break; \
		case 1: { constexpr int THREADS = 256, PER_THREAD = block_sort_items<T>::per_thread; __VA_ARGS__; } break; \
		case 2: { constexpr int THREADS = 512, PER_THREAD = block_sort_items<T>::per_thread; __VA_ARGS__; } break; \
		case 3: { constexpr int THREADS = 512, PER_THREAD = block_sort_items<T>::wide; __VA_ARGS__; } break;       \
		default: { constexpr int THREADS = 1024, PER_THREAD = block_sort_items<T>::per_thread; __VA_ARGS__; } break; \
		}                                                                                              \
	} while (0)

template <typename T> static inline uint64_t class_capacity(int c)
{
	uint64_t capacity = 0;
	SORT_CLASS_SWITCH(T, c, capacity = (uint64_t)THREADS * PER_THREAD);
	return capacity;
}

/* The smallest class that holds count items (the tile class for larger counts). */
template <typename T> static inline int class_for(uint64_t count)
{
	int c = 0;
	while (c + 1 < SORT_CLASSES && count > class_capacity<T>(c))
		c++;
	return c;
}

template <typename T>
__device__ static inline void store_tile(T *target, const T *tile, unsigned count)
{
	for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
		target[i] = tile[i];
}

/* Steps 1-3: one block per sublist sorts it in shared memory and, on the way out,
 * writes its s equidistant samples. The sublist size m must fit the block's class. */
template <typename T, int THREADS, int PER_THREAD>
__global__ void __launch_bounds__(THREADS, THREADS == 512 ? 2 : 1) sort_sublists_kernel(T *items, const segment_info *segs, int segment_count,
								uint64_t first_block, T *samples)
{
	extern __shared__ __align__(16) unsigned char shared_bytes[];
	T *tile = reinterpret_cast<T *>(shared_bytes);
	uint64_t g = first_block + blockIdx.x;
	const segment_info *seg = find_segment(segs, segment_count, g);
	uint64_t j = g - seg->first_sublist;
	uint64_t begin = j * seg->m;
	unsigned length = (unsigned)min((uint64_t)seg->m, seg->n - begin);
	T *sublist = items + seg->start + begin;
	block_sorter<T, THREADS, PER_THREAD>::sort_to_shared(tile, sublist, length);
	store_tile(sublist, tile, length);
	T *sublist_samples = samples + seg->sample_base + j * seg->s;
	for (unsigned k = threadIdx.x; k < seg->s; k += blockDim.x)
		sublist_samples[k] = tile[(unsigned)(((uint64_t)k * length) / seg->s)];
}

/* Ranges [starts[r], ends[r]) sorted in shared memory from source into target (which may
 * be the same array). Without a list, block r takes range r; with one, the blocks share
 * the *list_count ranges named in list. Ranges larger than limit or than the class holds
 * are left alone (the next level, or another class, takes them). */
template <typename T, int THREADS, int PER_THREAD>
__global__ void __launch_bounds__(THREADS, THREADS == 512 ? 2 : 1) sort_ranges_kernel(const T *source, T *target, const uint64_t *starts,
							      const uint64_t *ends, const unsigned *list,
							      const unsigned *list_count, uint64_t limit)
{
	typedef block_sorter<T, THREADS, PER_THREAD> sorter;
	extern __shared__ __align__(16) unsigned char shared_bytes[];
	T *tile = reinterpret_cast<T *>(shared_bytes);
	unsigned total = list ? *list_count : gridDim.x;
	for (unsigned i = blockIdx.x; i < total; i += gridDim.x) {
		unsigned r = list ? list[i] : i;
		uint64_t start = starts[r], count = ends[r] - start;
		if (count > limit || count > sorter::capacity || count == 0)
			continue;
		if (count == 1) {
			if (threadIdx.x == 0)
				target[start] = source[start];
			continue;
		}
		sorter::sort_to_shared(tile, source + start, (unsigned)count);
		store_tile(target + start, tile, (unsigned)count);
	}
}

struct class_capacities {
	uint64_t items[SORT_CLASSES];
};

/* Appends each range of 1 .. limit items to the list of the smallest class that holds it:
 * lists[c * count + k], k < list_counts[c] (zeroed first). */
__global__ void classify_ranges_kernel(const uint64_t *starts, const uint64_t *ends, unsigned count, uint64_t limit,
				       class_capacities capacities, unsigned *lists, unsigned *list_counts)
{
	unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= count)
		return;
	uint64_t size = ends[r] - starts[r];
	if (size == 0 || size > limit)
		return;
	int c = 0;
	while (c + 1 < SORT_CLASSES && size > capacities.items[c])
		c++;
	if (size > capacities.items[c])
		return;
	unsigned slot = atomicAdd(&list_counts[c], 1u);
	lists[(uint64_t)c * count + slot] = r;
}

/* Steps 4-5 for one segment without sorting its samples: each sublist's s samples are
 * already in order, so sample q (the p-th of sublist i's) has rank p plus, in every
 * other sublist's samples, the count of those before it in the order that breaks ties
 * by sublist: at most it in the sublists before i, below it in those after. The sample
 * of rank k*L is splitters[k-1], as in the sorted set. Each block copies all L*s samples
 * (at most a tile) to shared memory and ranks blockDim.x of them, a thread each: L
 * binary searches, on more SMs than one block's sort of them would take. */
#define RANK_THREADS 512
template <typename T>
__global__ void __launch_bounds__(RANK_THREADS) splitters_by_rank_kernel(const T *samples, const segment_info *segs,
									  T *splitters)
{
	extern __shared__ __align__(16) unsigned char shared_bytes[];
	T *all = reinterpret_cast<T *>(shared_bytes);
	const segment_info *seg = &segs[0];
	unsigned s = seg->s, L = seg->sublists, count = L * s;
	const T *from = samples + seg->sample_base;
#pragma unroll 4
	for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
		all[i] = from[i];
	__syncthreads();
	unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
	if (q >= count)
		return;
	unsigned own = q / s;
	T x = all[q];
	unsigned rank = q % s;
	for (unsigned r = 0; r < L; r++) {
		if (r == own)
			continue;
		const T *run = all + r * s;
		bool at_most = r < own;
		unsigned low = 0, high = s;
		while (low < high) {
			unsigned mid = (low + high) >> 1;
			if (at_most ? !item_less(x, run[mid]) : item_less(run[mid], x))
				low = mid + 1;
			else
				high = mid;
		}
		rank += low;
	}
	if (rank >= L && rank % L == 0)
		splitters[seg->splitter_base + rank / L - 1] = x;
}

/* The ranges of steps 4-5's small sample sets, one per segment: its samples when they
 * fit a tile, else none (the whole sort takes them). */
__global__ void sample_ranges_kernel(const segment_info *segs, unsigned count, uint64_t tile, uint64_t *starts,
				     uint64_t *ends)
{
	unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= count)
		return;
	uint64_t samples = (uint64_t)segs[r].sublists * segs[r].s;
	starts[r] = segs[r].sample_base;
	ends[r] = segs[r].sample_base + (samples <= tile ? samples : 0);
}

/* Step 5: one block per segment picks splitters[k-1] = sorted_samples[k*L]. */
template <typename T>
__global__ void choose_splitters_kernel(const T *samples, const segment_info *segs, T *splitters)
{
	const segment_info *seg = &segs[blockIdx.x];
	for (unsigned k = 1 + threadIdx.x; k < seg->s; k += blockDim.x)
		splitters[seg->splitter_base + k - 1] = samples[seg->sample_base + (uint64_t)k * seg->sublists];
}

/* Step 6: one block per sublist binary-searches each splitter in the sorted sublist;
 * also writes the piece sizes bucket-major for the scan of step 7. */
template <typename T>
__global__ void locate_kernel(const T *items, const segment_info *segs, int segment_count,
			      const T *splitters, uint32_t *bounds, uint64_t *counts)
{
	extern __shared__ __align__(16) unsigned char shared_bytes[];
	uint32_t *shared_bounds = reinterpret_cast<uint32_t *>(shared_bytes);
	uint64_t g = blockIdx.x;
	const segment_info *seg = find_segment(segs, segment_count, g);
	uint64_t j = g - seg->first_sublist;
	uint64_t begin = j * seg->m;
	unsigned length = (unsigned)min((uint64_t)seg->m, seg->n - begin);
	const T *sublist = items + seg->start + begin;
	unsigned s = seg->s, L = seg->sublists;
	for (unsigned b = threadIdx.x; b <= s; b += blockDim.x) {
		unsigned bound;
		if (b == 0) {
			bound = 0;
		} else if (b == s) {
			bound = length;
		} else {
			T splitter = splitters[seg->splitter_base + b - 1];
			unsigned lo = 0, hi = length;
			while (lo < hi) {
				unsigned mid = (lo + hi) >> 1;
				if (item_less(sublist[mid], splitter))
					lo = mid + 1;
				else
					hi = mid;
			}
			bound = lo;
		}
		shared_bounds[b] = bound;
		bounds[seg->bounds_base + j * (s + 1) + b] = bound;
	}
	__syncthreads();
	for (unsigned b = threadIdx.x; b < s; b += blockDim.x)
		counts[seg->count_base + (uint64_t)b * L + j] = shared_bounds[b + 1] - shared_bounds[b];
	if (j == 0 && threadIdx.x == 0)
		counts[seg->count_base + (uint64_t)s * L] = 0;
}

/* Step 7 for the step hook alone: piece sizes from given bounds. */
__global__ void counts_from_bounds_kernel(const uint32_t *bounds, uint64_t sublists, unsigned s, uint64_t *counts)
{
	uint64_t index = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (index < sublists * s) {
		uint64_t b = index / sublists, j = index % sublists;
		counts[index] = bounds[j * (s + 1) + b + 1] - bounds[j * (s + 1) + b];
	} else if (index == sublists * s) {
		counts[index] = 0;
	}
}

/* Step 8: one block per sublist reads it coalesced; each item goes to its bucket's
 * piece, so consecutive threads write consecutive addresses within a piece. */
template <typename T>
__global__ void __launch_bounds__(BLOCK_THREADS) relocate_kernel(const T *source, T *target, const segment_info *segs,
							    int segment_count, const uint32_t *bounds,
							    const uint64_t *offsets)
{
	extern __shared__ __align__(16) unsigned char shared_bytes[];
	uint64_t g = blockIdx.x;
	const segment_info *seg = find_segment(segs, segment_count, g);
	unsigned s = seg->s, L = seg->sublists;
	uint64_t *piece_target = reinterpret_cast<uint64_t *>(shared_bytes);
	uint32_t *piece_start = reinterpret_cast<uint32_t *>(piece_target + s);
	uint64_t j = g - seg->first_sublist;
	uint64_t begin = j * seg->m;
	unsigned length = (unsigned)min((uint64_t)seg->m, seg->n - begin);
	uint64_t base = offsets[seg->count_base];
	for (unsigned b = threadIdx.x; b <= s; b += blockDim.x) {
		piece_start[b] = bounds[seg->bounds_base + j * (s + 1) + b];
		if (b < s)
			piece_target[b] = seg->start + offsets[seg->count_base + (uint64_t)b * L + j] - base;
	}
	__syncthreads();
	const T *sublist = source + seg->start + begin;
	for (unsigned i = threadIdx.x; i < length; i += blockDim.x) {
		/* the last bucket whose piece starts at or before i */
		unsigned lo = 0, hi = s - 1;
		while (lo < hi) {
			unsigned mid = (lo + hi + 1) >> 1;
			if (piece_start[mid] <= i)
				lo = mid;
			else
				hi = mid - 1;
		}
		target[piece_target[lo] + (i - piece_start[lo])] = sublist[i];
	}
}

/* Bucket b of each segment as an absolute range of the level's buffers. */
__global__ void bucket_table_kernel(const segment_info *segs, const uint64_t *offsets, uint64_t *starts, uint64_t *ends)
{
	const segment_info *seg = &segs[blockIdx.x];
	uint64_t base = offsets[seg->count_base];
	for (unsigned b = threadIdx.x; b < seg->s; b += blockDim.x) {
		starts[seg->bucket_base + b] = seg->start + offsets[seg->count_base + (uint64_t)b * seg->sublists] - base;
		ends[seg->bucket_base + b] = seg->start + offsets[seg->count_base + (uint64_t)(b + 1) * seg->sublists] - base;
	}
}

/* flags[r] becomes nonzero when range r holds two different items (flags zeroed
 * first); blockIdx.y spreads one range over many blocks, as one range may be all n.
 * A block stops as soon as its range is known to differ: in a bucket of distinct keys,
 * nearly all are, and the rest of the bucket need not be read. */
template <typename T>
__global__ void differs_kernel(const T *items, const uint64_t *starts, const uint64_t *ends, int *flags)
{
	/* another block's finding, read by thread 0 before a barrier and by all after it;
	 * alternate words, so that the next write cannot overtake a slow reader */
	__shared__ int found[2];
	uint64_t start = starts[blockIdx.x], end = ends[blockIdx.x];
	T first = items[start];
	volatile int *flag = &flags[blockIdx.x];
	unsigned round = 0;
	for (uint64_t base = start + blockIdx.y * (uint64_t)blockDim.x; base < end;
	     base += (uint64_t)gridDim.y * blockDim.x, round ^= 1) {
		uint64_t i = base + threadIdx.x;
		bool differs = i < end && !item_equal(items[i], first);
		if (threadIdx.x == 0)
			found[round] = *flag;
		differs = __syncthreads_or(differs);
		if (differs) {
			if (threadIdx.x == 0)
				atomicOr(&flags[blockIdx.x], 1);
			return;
		}
		if (found[round])
			return;
	}
}

#endif
