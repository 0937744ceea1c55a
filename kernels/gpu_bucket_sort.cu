/* SPDX-License-Identifier: MIT */
/* GPU Bucket Sort (Dehne and Zaboli) on CUDA: the kernels of the nine steps of
 * bucket_sort_steps.h and the host loop that runs them level by level. All buckets too
 * large for one block at a level become the segments of the next level, and every
 * kernel of a level serves all its segments at once, so launches do not grow with the
 * number of buckets. */
#include <algorithm>
#include <vector>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include "gpu_block_sort.cuh"
#include "gpu_bucket_sort.cuh"
#include "gpu_items.cuh"

/* Threads of the block that sorts one tile (a sublist of m items, or a bucket that fits):
 * m = GPU_TILE_THREADS * block_sort_items<T>::per_thread, about 124 KiB of items. */
#ifndef GPU_TILE_THREADS
#define GPU_TILE_THREADS 1024
#endif
#define BLOCK_THREADS 1024

#define RETURN_IF_ERROR(call)                      \
	do {                                       \
		cudaError_t error_ = (call);       \
		if (error_ != cudaSuccess)         \
			return error_;             \
	} while (0)
#define RETURN_IF_LAUNCH_ERROR() RETURN_IF_ERROR(cudaGetLastError())

/* Step times for tuning (bench/ builds with -DGPU_BUCKET_PROFILE): events between the
 * steps, summed per step and level; gpu_bucket_profile_print() reports them. */
#ifdef GPU_BUCKET_PROFILE
#include <stdio.h>
#define PROFILE_STEPS 8
#define PROFILE_LEVELS 4
static const char *const profile_names[PROFILE_STEPS] = { "sort sublists", "sort samples", "locate", "scan",
							  "relocate", "sort buckets", "big buckets", "" };
static double profile_ms[PROFILE_LEVELS][PROFILE_STEPS];
static cudaEvent_t profile_events[PROFILE_STEPS + 1];
static int profile_nesting; /* the recursive sample sort is counted in its caller's step */
static void profile_mark(int index, cudaStream_t stream)
{
	if (profile_nesting)
		return;
	if (!profile_events[index])
		cudaEventCreate(&profile_events[index]);
	cudaEventRecord(profile_events[index], stream);
}
static void profile_collect(int level, int marks)
{
	if (profile_nesting)
		return;
	cudaEventSynchronize(profile_events[marks - 1]);
	for (int i = 0; i + 1 < marks; i++) {
		float ms = 0;
		cudaEventElapsedTime(&ms, profile_events[i], profile_events[i + 1]);
		profile_ms[level < PROFILE_LEVELS ? level : PROFILE_LEVELS - 1][i] += ms;
	}
}
void gpu_bucket_profile_clear(void)
{
	for (int l = 0; l < PROFILE_LEVELS; l++)
		for (int i = 0; i < PROFILE_STEPS; i++)
			profile_ms[l][i] = 0;
}
void gpu_bucket_profile_print(double divisor)
{
	for (int l = 0; l < PROFILE_LEVELS; l++)
		for (int i = 0; i < PROFILE_STEPS - 1; i++) {
			if (profile_ms[l][i] > 0)
				printf("    level %d %-14s %8.3f ms\n", l, profile_names[i], profile_ms[l][i] / divisor);
			profile_ms[l][i] = 0;
		}
}
#define PROFILE_MARK(index) profile_mark(index, stream)
#define PROFILE_COLLECT(level, marks) profile_collect(level, marks)
#define PROFILE_NEST(delta) (profile_nesting += (delta))
#else
#define PROFILE_NEST(delta) ((void)0)
#define PROFILE_MARK(index) ((void)0)
#define PROFILE_COLLECT(level, marks) ((void)0)
#endif

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

size_t gpu_bucket_tile_items(int width)
{
	size_t items = 0;
	GPU_FOR_WIDTH(width, items = class_capacity<item_t>(TILE_CLASS));
	return items;
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

/* Blocks of each class that fit on the device at once: the grid of a listed launch. */
static unsigned resident_blocks[17][SORT_CLASSES];

/* Shared memory: raise each kernel's limit above 48 KB once; count resident blocks. */
template <typename T>
static cudaError_t configure_kernels(void)
{
	static bool done[17];
	if (done[sizeof(T)])
		return cudaSuccess;
	int device = 0, sms = 0;
	RETURN_IF_ERROR(cudaGetDevice(&device));
	RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
	for (int c = 0; c < SORT_CLASSES; c++) {
		SORT_CLASS_SWITCH(T, c, {
			int bytes = (int)block_sorter<T, THREADS, PER_THREAD>::shared_bytes;
			int per_sm = 0;
			RETURN_IF_ERROR(cudaFuncSetAttribute(sort_sublists_kernel<T, THREADS, PER_THREAD>,
							     cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
			RETURN_IF_ERROR(cudaFuncSetAttribute(sort_ranges_kernel<T, THREADS, PER_THREAD>,
							     cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
			RETURN_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				&per_sm, sort_ranges_kernel<T, THREADS, PER_THREAD>, THREADS, bytes));
			resident_blocks[sizeof(T)][c] = (unsigned)std::max(1, per_sm * sms);
		});
	}
	RETURN_IF_ERROR(cudaFuncSetAttribute(relocate_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
	RETURN_IF_ERROR(cudaFuncSetAttribute(locate_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
	RETURN_IF_ERROR(cudaFuncSetAttribute(splitters_by_rank_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)(gpu_bucket_tile_items(sizeof(T)) * sizeof(T))));
	done[sizeof(T)] = true;
	return cudaSuccess;
}

/* Device memory taken from the stream's pool and given back when the level ends. */
class stream_allocations {
public:
	explicit stream_allocations(cudaStream_t stream) : stream_(stream) {}
	~stream_allocations()
	{
		for (void *p : pointers_)
			cudaFreeAsync(p, stream_);
	}
	template <typename P> cudaError_t get(P **pointer, size_t bytes)
	{
		void *p = nullptr;
		cudaError_t error = cudaMallocAsync(&p, bytes ? bytes : 16, stream_);
		if (error != cudaSuccess)
			return error;
		pointers_.push_back(p);
		*pointer = static_cast<P *>(p);
		return cudaSuccess;
	}

private:
	cudaStream_t stream_;
	std::vector<void *> pointers_;
};

static unsigned pow2_floor(uint64_t x)
{
	unsigned p = 1;
	while ((uint64_t)p * 2 <= x && p < (1u << 30))
		p <<= 1;
	return p;
}

/* The most items a level-0 bucket may average: the power of two at or below 3/5 of the
 * tile, so that a bucket past the tile is rare. That is half the power of two above
 * the tile for tiles just under one (15360 u64, 7168 128-bit items); the 12-byte
 * items' 9216 lie just over 8192, where half of 16384 left the buckets at 89% of the
 * tile and many of them to a second level. */
static uint64_t bucket_average_most(uint64_t tile)
{
	return pow2_floor(tile * 3 / 5);
}

/* Buckets for a segment of n items: enough that they average at most
 * bucket_average_most (a bucket past the tile, rare, goes one level down), but at most a
 * power of two near m/8 (samples about n/8). When that does not reach, a second level
 * follows: then as few buckets as leave segments (about n/s items, up to tile*sqrt(m/2))
 * that the second level finishes with a one-tile sample set and half-tile buckets. Below
 * level 0 the L*s samples must fit one tile, so that one block sorts them. s is a power of
 * two (bucket_plan_init) and at most m. */
static unsigned choose_buckets(uint64_t n, uint64_t m, uint64_t tile, int level)
{
	uint64_t average = bucket_average_most(tile), most = next_pow2(m) / 8;
	uint64_t need = next_pow2((n + average - 1) / average);
	uint64_t s = need;
	if (need > most) {
		double segment = (double)tile * sqrt((double)m / 2);
		s = std::min<uint64_t>(most, next_pow2((uint64_t)(n / segment) + 1));
	}
	if (level > 0)
		s = std::min<uint64_t>(s, pow2_floor(tile * m / n));
	return (unsigned)std::max<uint64_t>(2, std::min<uint64_t>(s, pow2_floor(m)));
}

/* Binary-search steps a thread of splitters_by_rank_kernel may take, L * log2(s): up to
 * about this many the ranks beat one block's sort of the samples (bench/RESULTS.md). */
#define RANK_MOST_STEPS 320

/* The most sublists whose samples the whole sort ranks rather than sorts, for s buckets
 * and the tile: their L*s samples must fit a tile, and the searches pay. */
static uint64_t rank_most_sublists(uint64_t s, uint64_t tile)
{
	unsigned log_s = 0;
	while ((2ull << log_s) <= s)
		log_s++;
	return std::min<uint64_t>(tile / s, RANK_MOST_STEPS / std::max(1u, log_s));
}

size_t gpu_bucket_boundaries(int width, size_t *sizes, size_t max)
{
	size_t count = 0;
	uint64_t capacities[SORT_CLASSES] = { 0 };
	GPU_FOR_WIDTH(width, for (int c = 0; c < SORT_CLASSES; c++) capacities[c] = class_capacity<item_t>(c));
	for (int c = 0; c < SORT_CLASSES && count < max; c++)
		sizes[count++] = capacities[c]; /* the local sort's classes; the last is the tile */
	uint64_t tile = capacities[TILE_CLASS], average = bucket_average_most(tile), most = next_pow2(tile) / 8;
	/* level 0's bucket count doubles each time n passes average * 2^j (choose_buckets),
	 * up to `most`, where a second level takes over */
	for (uint64_t s = 2; s <= 2 * most && count < max; s *= 2)
		sizes[count++] = average * s;
	/* within a doubling, the largest n whose samples the splitters take by ranks, and
	 * above which the samples are sorted (sort_samples) */
	for (uint64_t s = 2; s <= most && count < max; s *= 2) {
		uint64_t ranked = tile * rank_most_sublists(s, tile);
		if (ranked > average / 2 * s && ranked < average * s)
			sizes[count++] = ranked;
	}
	return count;
}

template <typename T>
static cudaError_t sort_device(T *data, T *scratch, size_t n, cudaStream_t stream, const gpu_sort_lanes *lanes,
			       const gpu_input_arrival *arrival);

template <typename T>
static cudaError_t sort_ranges(const T *source, T *target, const std::vector<uint64_t> &starts,
			       const std::vector<uint64_t> &ends, uint64_t limit, cudaStream_t stream)
{
	if (starts.empty())
		return cudaSuccess;
	stream_allocations alloc(stream);
	uint64_t *table;
	size_t count = starts.size();
	RETURN_IF_ERROR(alloc.get(&table, 2 * count * sizeof(uint64_t)));
	RETURN_IF_ERROR(cudaMemcpyAsync(table, starts.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice, stream));
	RETURN_IF_ERROR(cudaMemcpyAsync(table + count, ends.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice, stream));
	uint64_t largest = 0;
	for (size_t r = 0; r < count; r++)
		if (ends[r] - starts[r] <= limit)
			largest = std::max(largest, ends[r] - starts[r]);
	SORT_CLASS_SWITCH(T, class_for<T>(largest), {
		sort_ranges_kernel<T, THREADS, PER_THREAD><<<(unsigned)count, THREADS, block_sorter<T, THREADS, PER_THREAD>::shared_bytes, stream>>>(
			source, target, table, table + count, nullptr, nullptr, limit);
	});
	RETURN_IF_LAUNCH_ERROR();
	/* the host vectors must outlive the copies */
	return cudaStreamSynchronize(stream);
}

cudaError_t gpu_sort_lanes_create(struct gpu_sort_lanes *lanes)
{
	*lanes = gpu_sort_lanes{};
	cudaError_t error = cudaEventCreateWithFlags(&lanes->fork, cudaEventDisableTiming);
	for (int i = 0; error == cudaSuccess && i < GPU_SORT_LANES; i++) {
		error = cudaStreamCreateWithFlags(&lanes->streams[i], cudaStreamNonBlocking);
		if (error == cudaSuccess)
			error = cudaEventCreateWithFlags(&lanes->done[i], cudaEventDisableTiming);
	}
	if (error != cudaSuccess)
		gpu_sort_lanes_destroy(lanes);
	return error;
}

void gpu_sort_lanes_destroy(struct gpu_sort_lanes *lanes)
{
	for (int i = 0; i < GPU_SORT_LANES; i++) {
		if (lanes->streams[i])
			cudaStreamDestroy(lanes->streams[i]);
		if (lanes->done[i])
			cudaEventDestroy(lanes->done[i]);
	}
	if (lanes->fork)
		cudaEventDestroy(lanes->fork);
	*lanes = gpu_sort_lanes{};
}

static_assert(GPU_SORT_LANES >= SORT_CLASSES - 1, "a lane for each class but the tile's");

/* Ranges on the device: range r is [starts[r], ends[r]). */
struct range_table {
	const uint64_t *starts, *ends;
	unsigned count;
};

/* Step 9 for a level's buckets (a device table): each bucket of 1 .. limit items
 * sorted from source into target by the smallest block class that holds it. With
 * lanes, the classes below the tile run on them beside the tile class, and the stream
 * waits for them all. */
template <typename T>
static cudaError_t sort_ranges_by_class(const T *source, T *target, const range_table &ranges, uint64_t limit,
					stream_allocations &alloc, cudaStream_t stream, const gpu_sort_lanes *lanes)
{
	const uint64_t *starts = ranges.starts, *ends = ranges.ends;
	unsigned count = ranges.count;
	if (count == 0)
		return cudaSuccess;
	unsigned *lists, *list_counts;
	RETURN_IF_ERROR(alloc.get(&lists, (size_t)SORT_CLASSES * count * sizeof(unsigned)));
	RETURN_IF_ERROR(alloc.get(&list_counts, SORT_CLASSES * sizeof(unsigned)));
	RETURN_IF_ERROR(cudaMemsetAsync(list_counts, 0, SORT_CLASSES * sizeof(unsigned), stream));
	class_capacities capacities;
	for (int c = 0; c < SORT_CLASSES; c++)
		capacities.items[c] = class_capacity<T>(c);
	classify_ranges_kernel<<<(count + 255) / 256, 256, 0, stream>>>(starts, ends, count, limit, capacities, lists,
									 list_counts);
	RETURN_IF_LAUNCH_ERROR();
	if (lanes)
		RETURN_IF_ERROR(cudaEventRecord(lanes->fork, stream));
	unsigned began = 0; /* lanes given work, by class */
	cudaError_t error = cudaSuccess;
	for (int c = SORT_CLASSES - 1; c >= 0 && error == cudaSuccess; c--) {
		if (c > 0 && class_capacity<T>(c - 1) >= limit)
			continue;
		cudaStream_t on = stream;
		if (lanes && c < TILE_CLASS) {
			on = lanes->streams[c];
			error = cudaStreamWaitEvent(on, lanes->fork, 0);
			if (error != cudaSuccess)
				break;
		}
		unsigned grid = std::min(count, resident_blocks[sizeof(T)][c]);
		SORT_CLASS_SWITCH(T, c, {
			sort_ranges_kernel<T, THREADS, PER_THREAD><<<grid, THREADS, block_sorter<T, THREADS, PER_THREAD>::shared_bytes, on>>>(
				source, target, starts, ends, lists + (size_t)c * count, list_counts + c, limit);
		});
		error = cudaGetLastError();
		if (on != stream && error == cudaSuccess) {
			error = cudaEventRecord(lanes->done[c], on);
			if (error == cudaSuccess)
				began |= 1u << c;
		}
	}
	/* the stream waits for every lane given work, even after an error */
	for (int c = 0; c < TILE_CLASS; c++) {
		if (!(began & (1u << c)))
			continue;
		cudaError_t wait = cudaStreamWaitEvent(stream, lanes->done[c], 0);
		if (error == cudaSuccess)
			error = wait;
	}
	return error;
}

template <typename T>
static cudaError_t splitters_by_rank(const T *samples, const segment_info &seg, const segment_info *device_seg,
				     T *splitters, cudaStream_t stream)
{
	unsigned count = seg.sublists * seg.s; /* at most a tile */
	RETURN_IF_ERROR(configure_kernels<T>());
	splitters_by_rank_kernel<T><<<(count + RANK_THREADS - 1) / RANK_THREADS, RANK_THREADS, count * sizeof(T), stream>>>(
		samples, device_seg, splitters);
	return cudaGetLastError();
}

/* Sorts integer items[0, count) in place by CUB's radix sort over all bits; scratch
 * holds count. */
template <typename T>
static cudaError_t radix_sort_in_place(T *items, T *scratch, uint64_t count, stream_allocations &alloc,
				       cudaStream_t stream)
{
	cub::DoubleBuffer<T> keys(items, scratch);
	size_t temp_bytes = 0;
	void *temp;
	int bits = (int)sizeof(T) * 8;
	RETURN_IF_ERROR(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, (int64_t)count, 0, bits, stream));
	RETURN_IF_ERROR(alloc.get(&temp, temp_bytes));
	RETURN_IF_ERROR(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, (int64_t)count, 0, bits, stream));
	if (keys.Current() != items)
		RETURN_IF_ERROR(cudaMemcpyAsync(items, keys.Current(), count * sizeof(T), cudaMemcpyDeviceToDevice, stream));
	return cudaSuccess;
}

/* Steps 4-5 for every segment of a level: small sample sets one block each, large ones
 * (only at level 0) by CUB's radix sort or the whole sort (see below); a level
 * of one segment with a small sample set by ranks, leaving the samples as they are. */
template <typename T>
static cudaError_t sort_samples(T *samples, const std::vector<segment_info> &segs, const segment_info *device_segs,
				T *splitters, cudaStream_t stream, const gpu_sort_lanes *lanes, bool by_rank)
{
	size_t tile = gpu_bucket_tile_items(sizeof(T));
	/* a lone segment with few samples: by ranks, on as many threads as samples, where
	 * the sort would take a single block */
	if (by_rank && segs.size() == 1 && segs[0].sublists <= rank_most_sublists(segs[0].s, tile))
		return splitters_by_rank<T>(samples, segs[0], device_segs, splitters, stream);
	uint64_t largest_small = 0;
	for (const segment_info &seg : segs) {
		uint64_t count = (uint64_t)seg.sublists * seg.s;
		if (count <= tile) {
			largest_small = std::max(largest_small, count);
		} else {
			stream_allocations alloc(stream);
			T *sample_scratch;
			RETURN_IF_ERROR(alloc.get(&sample_scratch, count * sizeof(T)));
			/* level 0's set above a tile (L sorted runs of s samples): CUB's radix sort
			 * for u32 and u64 items, the bucket sort itself for 128-bit ones, whose 16
			 * radix passes lose at every size */
			if constexpr (sizeof(T) <= 8) {
				RETURN_IF_ERROR(radix_sort_in_place(samples + seg.sample_base, sample_scratch, count, alloc, stream));
			} else {
				PROFILE_NEST(1);
				cudaError_t error = sort_device(samples + seg.sample_base, sample_scratch, count, stream, lanes,
								nullptr);
				PROFILE_NEST(-1);
				RETURN_IF_ERROR(error);
			}
		}
	}
	if (largest_small > 0) {
		/* the small sets' ranges made on the device: no copy from the host, no wait */
		stream_allocations alloc(stream);
		uint64_t *table;
		unsigned count = (unsigned)segs.size();
		RETURN_IF_ERROR(alloc.get(&table, 2 * (size_t)count * sizeof(uint64_t)));
		sample_ranges_kernel<<<(count + 255) / 256, 256, 0, stream>>>(device_segs, count, tile, table, table + count);
		RETURN_IF_LAUNCH_ERROR();
		SORT_CLASS_SWITCH(T, class_for<T>(largest_small), {
			sort_ranges_kernel<T, THREADS, PER_THREAD><<<count, THREADS, block_sorter<T, THREADS, PER_THREAD>::shared_bytes, stream>>>(
				samples, samples, table, table + count, nullptr, nullptr, tile);
		});
		RETURN_IF_LAUNCH_ERROR();
	}
	choose_splitters_kernel<T><<<(unsigned)segs.size(), 256, 0, stream>>>(samples, device_segs, splitters);
	RETURN_IF_LAUNCH_ERROR();
	return cudaSuccess;
}

/* A level's table sizes, summed over its segments. */
struct level_totals {
	uint64_t sublists, samples, splitters, bounds, counts, buckets;
};

/* Lays out a level's tables; returns their sizes. */
static level_totals plan_level(std::vector<segment_info> &segs, size_t tile, int level)
{
	level_totals totals = {};
	for (segment_info &seg : segs) {
		seg.m = (uint32_t)tile;
		seg.s = choose_buckets(seg.n, tile, tile, level);
		seg.sublists = (uint32_t)((seg.n + tile - 1) / tile);
		seg.first_sublist = totals.sublists;
		seg.sample_base = totals.samples;
		seg.splitter_base = totals.splitters;
		seg.bounds_base = totals.bounds;
		seg.count_base = totals.counts;
		seg.bucket_base = totals.buckets;
		totals.sublists += seg.sublists;
		totals.samples += (uint64_t)seg.sublists * seg.s;
		totals.splitters += seg.s - 1;
		totals.bounds += (uint64_t)seg.sublists * (seg.s + 1);
		totals.counts += (uint64_t)seg.sublists * seg.s + 1;
		totals.buckets += seg.s;
	}
	return totals;
}

/* Sorts a range that splitting cannot shrink (a value repeated beyond the 2n/s bound):
 * CUB's merge sort, then into data. */
template <typename T>
static cudaError_t sort_stubborn_range(T *items, T *data, uint64_t start, uint64_t count, cudaStream_t stream)
{
	stream_allocations alloc(stream);
	size_t temp_bytes = 0;
	void *temp;
	RETURN_IF_ERROR(cub::DeviceMergeSort::SortKeys(nullptr, temp_bytes, items + start, (int64_t)count, item_less_op(), stream));
	RETURN_IF_ERROR(alloc.get(&temp, temp_bytes));
	RETURN_IF_ERROR(cub::DeviceMergeSort::SortKeys(temp, temp_bytes, items + start, (int64_t)count, item_less_op(), stream));
	if (items != data)
		RETURN_IF_ERROR(cudaMemcpyAsync(data + start, items + start, count * sizeof(T), cudaMemcpyDeviceToDevice, stream));
	return cudaSuccess;
}

/* A level's device tables, laid out by plan_level, from the level's allocations. */
template <typename T> struct level_tables {
	level_totals totals;
	int segment_count;
	unsigned max_s; /* the most buckets of one segment */
	segment_info *segs;
	T *samples, *splitters;
	uint32_t *bounds;
	uint64_t *counts, *offsets, *bucket_starts, *bucket_ends;
};

template <typename T>
static cudaError_t level_tables_make(const std::vector<segment_info> &segs, const level_totals &totals,
				     stream_allocations &alloc, cudaStream_t stream, level_tables<T> *t)
{
	t->totals = totals;
	t->segment_count = (int)segs.size();
	t->max_s = 0;
	for (const segment_info &seg : segs)
		t->max_s = std::max(t->max_s, seg.s);
	RETURN_IF_ERROR(alloc.get(&t->segs, segs.size() * sizeof(segment_info)));
	RETURN_IF_ERROR(alloc.get(&t->samples, totals.samples * sizeof(T)));
	RETURN_IF_ERROR(alloc.get(&t->splitters, totals.splitters * sizeof(T)));
	RETURN_IF_ERROR(alloc.get(&t->bounds, totals.bounds * sizeof(uint32_t)));
	RETURN_IF_ERROR(alloc.get(&t->counts, totals.counts * sizeof(uint64_t)));
	RETURN_IF_ERROR(alloc.get(&t->offsets, totals.counts * sizeof(uint64_t)));
	RETURN_IF_ERROR(alloc.get(&t->bucket_starts, 2 * totals.buckets * sizeof(uint64_t)));
	t->bucket_ends = t->bucket_starts + totals.buckets;
	return cudaMemcpyAsync(t->segs, segs.data(), segs.size() * sizeof(segment_info), cudaMemcpyHostToDevice,
			       stream);
}

/* Steps 1-3 for a level: each sublist sorted in a tile, its samples written on the way
 * out. With arrival (level 0 of input still arriving), each chunk's sublists as it
 * lands. */
template <typename T>
static cudaError_t level_sort_sublists(T *source, const level_tables<T> &t, const gpu_input_arrival *arrival,
				       cudaStream_t stream)
{
	typedef block_sorter<T, GPU_TILE_THREADS> tile_sorter; /* the tile class */
	uint64_t sublists = t.totals.sublists;
	int chunks = arrival ? arrival->chunks : 1;
	uint64_t per_chunk = arrival ? arrival->chunk_items / gpu_bucket_tile_items(sizeof(T)) : sublists;
	for (int c = 0; c < chunks; c++) {
		uint64_t first = c * per_chunk;
		if (first >= sublists)
			break;
		uint64_t blocks = c == chunks - 1 ? sublists - first : std::min<uint64_t>(per_chunk, sublists - first);
		if (arrival)
			RETURN_IF_ERROR(cudaStreamWaitEvent(stream, arrival->events[c], 0));
		sort_sublists_kernel<T, GPU_TILE_THREADS, block_sort_items<T>::per_thread>
			<<<(unsigned)blocks, GPU_TILE_THREADS, tile_sorter::shared_bytes, stream>>>(
			source, t.segs, t.segment_count, first, t.samples);
		RETURN_IF_LAUNCH_ERROR();
	}
	return cudaSuccess;
}

/* Steps 6-8 for a level: each splitter located in each sublist, one scan over the
 * bucket counts of every segment (each subtracts its first offset), and the items
 * relocated from source into their buckets in target. */
template <typename T>
static cudaError_t level_relocate(const T *source, T *target, const level_tables<T> &t, stream_allocations &alloc,
				  cudaStream_t stream)
{
	unsigned sublists = (unsigned)t.totals.sublists;
	int64_t counts = (int64_t)t.totals.counts;
	locate_kernel<T><<<sublists, 256, (t.max_s + 1) * sizeof(uint32_t), stream>>>(
		source, t.segs, t.segment_count, t.splitters, t.bounds, t.counts);
	RETURN_IF_LAUNCH_ERROR();
	PROFILE_MARK(3);
	size_t temp_bytes = 0;
	void *temp;
	RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, t.counts, t.offsets, counts, stream));
	RETURN_IF_ERROR(alloc.get(&temp, temp_bytes));
	RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, t.counts, t.offsets, counts, stream));
	PROFILE_MARK(4);
	relocate_kernel<T><<<sublists, BLOCK_THREADS, t.max_s * 12 + 8, stream>>>(source, target, t.segs,
										   t.segment_count, t.bounds, t.offsets);
	return cudaGetLastError();
}

/* A level's buckets larger than a tile, with the size of the segment each came from. */
struct big_buckets {
	std::vector<uint64_t> starts, ends, parent_sizes;
};

template <typename T>
static cudaError_t level_big_buckets(const level_tables<T> &t, const std::vector<segment_info> &segs, size_t tile,
				     cudaStream_t stream, big_buckets *big)
{
	uint64_t buckets = t.totals.buckets;
	std::vector<uint64_t> host_table(2 * buckets);
	RETURN_IF_ERROR(cudaMemcpyAsync(host_table.data(), t.bucket_starts, 2 * buckets * sizeof(uint64_t),
					cudaMemcpyDeviceToHost, stream));
	RETURN_IF_ERROR(cudaStreamSynchronize(stream));
	for (const segment_info &seg : segs)
		for (unsigned b = 0; b < seg.s; b++) {
			uint64_t start = host_table[seg.bucket_base + b], end = host_table[buckets + seg.bucket_base + b];
			if (end - start > tile) {
				big->starts.push_back(start);
				big->ends.push_back(end);
				big->parent_sizes.push_back(seg.n);
			}
		}
	return cudaSuccess;
}

/* The large buckets, relocated into target: all-equal ones are done (copied into data),
 * one that splitting did not shrink is sorted whole, the rest are appended to next, the
 * segments of the next level. */
template <typename T>
static cudaError_t settle_big_buckets(T *target, T *data, const big_buckets &big, stream_allocations &alloc,
				      cudaStream_t stream, std::vector<segment_info> &next)
{
	size_t count = big.starts.size();
	if (count == 0)
		return cudaSuccess;
	uint64_t *table;
	int *flags;
	std::vector<int> host_flags(count);
	RETURN_IF_ERROR(alloc.get(&table, 2 * count * sizeof(uint64_t)));
	RETURN_IF_ERROR(alloc.get(&flags, count * sizeof(int)));
	RETURN_IF_ERROR(cudaMemcpyAsync(table, big.starts.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice, stream));
	RETURN_IF_ERROR(cudaMemcpyAsync(table + count, big.ends.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice,
					stream));
	RETURN_IF_ERROR(cudaMemsetAsync(flags, 0, count * sizeof(int), stream));
	unsigned spread = (unsigned)std::max<size_t>(1, std::min<size_t>(1024, 4096 / count));
	differs_kernel<T><<<dim3((unsigned)count, spread), 512, 0, stream>>>(target, table, table + count, flags);
	RETURN_IF_LAUNCH_ERROR();
	RETURN_IF_ERROR(cudaMemcpyAsync(host_flags.data(), flags, count * sizeof(int), cudaMemcpyDeviceToHost, stream));
	RETURN_IF_ERROR(cudaStreamSynchronize(stream));
	for (size_t i = 0; i < count; i++) {
		uint64_t start = big.starts[i], size = big.ends[i] - start;
		if (!host_flags[i]) {
			if (target != data)
				RETURN_IF_ERROR(cudaMemcpyAsync(data + start, target + start, size * sizeof(T),
								cudaMemcpyDeviceToDevice, stream));
		} else if (size == big.parent_sizes[i]) {
			RETURN_IF_ERROR(sort_stubborn_range(target, data, start, size, stream));
		} else {
			segment_info seg = {};
			seg.start = start;
			seg.n = size;
			next.push_back(seg);
		}
	}
	return cudaSuccess;
}

/* One level: steps 1-9 for every segment of segs, from source (relocated into target);
 * buckets that fit a tile land sorted in data, and segs becomes the next level's
 * segments (the larger buckets that are not all equal). */
template <typename T>
static cudaError_t sort_level(T *data, T *source, T *target, std::vector<segment_info> &segs, int level,
			      const gpu_input_arrival *arrival, cudaStream_t stream, const gpu_sort_lanes *lanes)
{
	size_t tile = gpu_bucket_tile_items(sizeof(T));
	stream_allocations alloc(stream);
	level_tables<T> t;
	RETURN_IF_ERROR(level_tables_make(segs, plan_level(segs, tile, level), alloc, stream, &t));
	PROFILE_MARK(0);
	RETURN_IF_ERROR(level_sort_sublists(source, t, arrival, stream));
	PROFILE_MARK(1);
	RETURN_IF_ERROR(sort_samples(t.samples, segs, t.segs, t.splitters, stream, lanes, true));
	PROFILE_MARK(2);
	RETURN_IF_ERROR(level_relocate(source, target, t, alloc, stream));
	PROFILE_MARK(5);
	/* step 9: buckets that fit a tile, straight into data */
	bucket_table_kernel<<<t.segment_count, 256, 0, stream>>>(t.segs, t.offsets, t.bucket_starts, t.bucket_ends);
	RETURN_IF_LAUNCH_ERROR();
	range_table buckets = {t.bucket_starts, t.bucket_ends, (unsigned)t.totals.buckets};
	RETURN_IF_ERROR(sort_ranges_by_class(target, data, buckets, tile, alloc, stream, lanes));
	PROFILE_MARK(6);
	big_buckets big;
	RETURN_IF_ERROR(level_big_buckets(t, segs, tile, stream, &big));
	segs.clear();
	RETURN_IF_ERROR(settle_big_buckets(target, data, big, alloc, stream, segs));
	PROFILE_MARK(7);
	PROFILE_COLLECT(level, 8);
	return cudaSuccess;
}

template <typename T>
static cudaError_t sort_device(T *data, T *scratch, size_t n, cudaStream_t stream, const gpu_sort_lanes *lanes,
			       const gpu_input_arrival *arrival)
{
	size_t tile = gpu_bucket_tile_items(sizeof(T));
	RETURN_IF_ERROR(configure_kernels<T>());
	bool chunked = arrival && arrival->chunks > 1 && n > tile && arrival->chunk_items % tile == 0;
	if (arrival && !chunked)
		for (int c = 0; c < arrival->chunks; c++)
			RETURN_IF_ERROR(cudaStreamWaitEvent(stream, arrival->events[c], 0));
	if (n <= 1)
		return cudaSuccess;
	if (n <= tile)
		return sort_ranges<T>(data, data, std::vector<uint64_t>{ 0 }, std::vector<uint64_t>{ n }, tile, stream);

	std::vector<segment_info> segs(1);
	segs[0].start = 0;
	segs[0].n = n;
	T *source = data, *target = scratch;
	for (int level = 0; !segs.empty(); level++) {
		RETURN_IF_ERROR(sort_level(data, source, target, segs, level, level == 0 && chunked ? arrival : nullptr,
					   stream, lanes));
		std::swap(source, target);
	}
	return cudaSuccess;
}

cudaError_t gpu_bucket_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream,
				   const struct gpu_sort_lanes *lanes, const struct gpu_input_arrival *arrival)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = sort_device<item_t>(static_cast<item_t *>(data), static_cast<item_t *>(scratch), n,
							   stream, lanes, arrival));
	return error;
}
