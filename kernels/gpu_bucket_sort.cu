/* GPU Bucket Sort (Dehne and Zaboli) on CUDA: the kernels of the nine steps of
 * bucket_sort_steps.h and the host loop that runs them level by level. All buckets too
 * large for one block at a level become the segments of the next level, and every
 * kernel of a level serves all its segments at once, so launches do not grow with the
 * number of buckets. */
#include <algorithm>
#include <vector>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_scan.cuh>
#include "gpu_bitonic.cuh"
#include "gpu_bucket_sort.cuh"
#include "gpu_items.cuh"

#ifndef GPU_TILE_BYTES
#define GPU_TILE_BYTES (128u << 10)
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

/* Register depth of the bitonic passes: 16 items a thread for the narrow widths, 8 for
 * 128-bit items (64 registers a thread is the limit at 1024 threads). */
template <typename T> struct register_depth { static constexpr int value = sizeof(T) == 16 ? 3 : 4; };

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

size_t gpu_bucket_tile_items(int width)
{
	return GPU_TILE_BYTES / (size_t)width;
}

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

/* Loads count items (padded with the largest item to p) into the padded shared layout. */
template <typename T>
__device__ static inline void load_tile(T *shared, const T *source, unsigned count, unsigned p)
{
	typedef bitonic_layout<T> layout;
	for (unsigned i = threadIdx.x; i < p; i += blockDim.x)
		shared[layout::at(i)] = i < count ? source[i] : item_max<T>();
}

template <typename T>
__device__ static inline void store_tile(T *target, const T *shared, unsigned count)
{
	typedef bitonic_layout<T> layout;
	for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
		target[i] = shared[layout::at(i)];
}

/* Steps 1-3: one block per sublist sorts it in shared memory and, on the way out,
 * writes its s equidistant samples. */
template <typename T>
__global__ void __launch_bounds__(BLOCK_THREADS) sort_sublists_kernel(T *items, const segment_info *segs, int segment_count,
								uint64_t first_block, T *samples)
{
	extern __shared__ __align__(16) unsigned char shared_bytes[];
	T *shared = reinterpret_cast<T *>(shared_bytes);
	typedef bitonic_layout<T> layout;
	uint64_t g = first_block + blockIdx.x;
	const segment_info *seg = find_segment(segs, segment_count, g);
	uint64_t j = g - seg->first_sublist;
	uint64_t begin = j * seg->m;
	unsigned length = (unsigned)min((uint64_t)seg->m, seg->n - begin);
	unsigned p = next_pow2(length);
	T *sublist = items + seg->start + begin;
	load_tile(shared, sublist, length, p);
	bitonic_sort_block<T, register_depth<T>::value>(shared, p);
	store_tile(sublist, shared, length);
	T *sublist_samples = samples + seg->sample_base + j * seg->s;
	for (unsigned k = threadIdx.x; k < seg->s; k += blockDim.x)
		sublist_samples[k] = shared[layout::at((unsigned)(((uint64_t)k * length) / seg->s))];
}

/* One block per range [starts[r], ends[r]) of at most limit items: sorted in shared
 * memory from source into target (which may be the same array). Larger ranges are
 * left to the next level. */
template <typename T>
__global__ void __launch_bounds__(BLOCK_THREADS) sort_ranges_kernel(const T *source, T *target, const uint64_t *starts,
							      const uint64_t *ends, uint64_t limit)
{
	extern __shared__ __align__(16) unsigned char shared_bytes[];
	T *shared = reinterpret_cast<T *>(shared_bytes);
	uint64_t start = starts[blockIdx.x], count = ends[blockIdx.x] - start;
	if (count > limit || count == 0)
		return;
	if (count == 1) {
		if (threadIdx.x == 0)
			target[start] = source[start];
		return;
	}
	unsigned p = next_pow2(count);
	load_tile(shared, source + start, (unsigned)count, p);
	bitonic_sort_block<T, register_depth<T>::value>(shared, p);
	store_tile(target + start, shared, (unsigned)count);
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
 * first); blockIdx.y spreads one range over many blocks, as one range may be all n. */
template <typename T>
__global__ void differs_kernel(const T *items, const uint64_t *starts, const uint64_t *ends, int *flags)
{
	uint64_t start = starts[blockIdx.x], end = ends[blockIdx.x];
	T first = items[start];
	bool differs = false;
	for (uint64_t i = start + blockIdx.y * (uint64_t)blockDim.x + threadIdx.x; i < end;
	     i += (uint64_t)gridDim.y * blockDim.x)
		differs |= !item_equal(items[i], first);
	differs = __syncthreads_or(differs);
	if (threadIdx.x == 0 && differs)
		atomicOr(&flags[blockIdx.x], 1);
}

/* Shared memory: raise each kernel's limit above 48 KB once. */
template <typename T>
static cudaError_t configure_kernels(void)
{
	static bool done[17];
	if (done[sizeof(T)])
		return cudaSuccess;
	int bytes = (int)bitonic_layout<T>::bytes((unsigned)gpu_bucket_tile_items(sizeof(T)));
	RETURN_IF_ERROR(cudaFuncSetAttribute(sort_sublists_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
	RETURN_IF_ERROR(cudaFuncSetAttribute(sort_ranges_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
	RETURN_IF_ERROR(cudaFuncSetAttribute(relocate_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
	RETURN_IF_ERROR(cudaFuncSetAttribute(locate_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
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

/* Buckets for a segment of n items: enough that they average at most half a tile (so
 * even the 2n/s bound fits), but at most m/8 (samples n/8). When even m/8 does not reach
 * that, a second level follows: then as few buckets as leave segments (about n/s items,
 * up to tile*sqrt(m/2)) that the second level finishes with a one-tile sample set and
 * half-tile buckets. Below level 0 the L*s samples must fit one tile, so that one block
 * sorts them. */
static unsigned choose_buckets(uint64_t n, uint64_t m, uint64_t tile, int level)
{
	uint64_t need = next_pow2((2 * n + tile - 1) / tile);
	uint64_t s = need;
	if (need > m / 8) {
		double segment = (double)tile * sqrt((double)m / 2);
		s = std::min<uint64_t>(m / 8, next_pow2((uint64_t)(n / segment) + 1));
	}
	if (level > 0)
		s = std::min<uint64_t>(s, pow2_floor(tile * m / n));
	return (unsigned)std::max<uint64_t>(2, std::min<uint64_t>(s, m));
}

template <typename T>
static cudaError_t sort_device(T *data, T *scratch, size_t n, cudaStream_t stream,
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
	size_t tile = gpu_bucket_tile_items(sizeof(T));
	sort_ranges_kernel<T><<<(unsigned)count, BLOCK_THREADS, bitonic_layout<T>::bytes((unsigned)tile), stream>>>(
		source, target, table, table + count, limit);
	RETURN_IF_LAUNCH_ERROR();
	/* the host vectors must outlive the copies */
	return cudaStreamSynchronize(stream);
}

/* Steps 4-5 for every segment of a level: small sample sets one block each, large ones
 * (only at level 0) by the whole sort. */
template <typename T>
static cudaError_t sort_samples(T *samples, const std::vector<segment_info> &segs, const segment_info *device_segs,
				T *splitters, cudaStream_t stream)
{
	size_t tile = gpu_bucket_tile_items(sizeof(T));
	std::vector<uint64_t> starts, ends;
	for (const segment_info &seg : segs) {
		uint64_t count = (uint64_t)seg.sublists * seg.s;
		if (count <= tile) {
			starts.push_back(seg.sample_base);
			ends.push_back(seg.sample_base + count);
		} else {
			stream_allocations alloc(stream);
			T *sample_scratch;
			RETURN_IF_ERROR(alloc.get(&sample_scratch, count * sizeof(T)));
			PROFILE_NEST(1);
			cudaError_t error = sort_device(samples + seg.sample_base, sample_scratch, count, stream, nullptr);
			PROFILE_NEST(-1);
			RETURN_IF_ERROR(error);
		}
	}
	RETURN_IF_ERROR(sort_ranges(samples, samples, starts, ends, tile, stream));
	choose_splitters_kernel<T><<<(unsigned)segs.size(), 256, 0, stream>>>(samples, device_segs, splitters);
	RETURN_IF_LAUNCH_ERROR();
	return cudaSuccess;
}

/* Lays out a level's tables; returns the totals. */
static void plan_level(std::vector<segment_info> &segs, size_t tile, int level, uint64_t totals[6])
{
	uint64_t sublists = 0, samples = 0, splitters = 0, bounds = 0, counts = 0, buckets = 0;
	for (segment_info &seg : segs) {
		seg.m = (uint32_t)tile;
		seg.s = choose_buckets(seg.n, tile, tile, level);
		seg.sublists = (uint32_t)((seg.n + tile - 1) / tile);
		seg.first_sublist = sublists;
		seg.sample_base = samples;
		seg.splitter_base = splitters;
		seg.bounds_base = bounds;
		seg.count_base = counts;
		seg.bucket_base = buckets;
		sublists += seg.sublists;
		samples += (uint64_t)seg.sublists * seg.s;
		splitters += seg.s - 1;
		bounds += (uint64_t)seg.sublists * (seg.s + 1);
		counts += (uint64_t)seg.sublists * seg.s + 1;
		buckets += seg.s;
	}
	totals[0] = sublists; totals[1] = samples; totals[2] = splitters;
	totals[3] = bounds; totals[4] = counts; totals[5] = buckets;
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

template <typename T>
static cudaError_t sort_device(T *data, T *scratch, size_t n, cudaStream_t stream, const gpu_input_arrival *arrival)
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
		stream_allocations alloc(stream);
		uint64_t totals[6];
		plan_level(segs, tile, level, totals);
		uint64_t sublists = totals[0], buckets = totals[5];
		segment_info *device_segs;
		T *samples, *splitters;
		uint32_t *bounds;
		uint64_t *counts, *offsets, *bucket_starts;
		RETURN_IF_ERROR(alloc.get(&device_segs, segs.size() * sizeof(segment_info)));
		RETURN_IF_ERROR(alloc.get(&samples, totals[1] * sizeof(T)));
		RETURN_IF_ERROR(alloc.get(&splitters, totals[2] * sizeof(T)));
		RETURN_IF_ERROR(alloc.get(&bounds, totals[3] * sizeof(uint32_t)));
		RETURN_IF_ERROR(alloc.get(&counts, totals[4] * sizeof(uint64_t)));
		RETURN_IF_ERROR(alloc.get(&offsets, totals[4] * sizeof(uint64_t)));
		RETURN_IF_ERROR(alloc.get(&bucket_starts, 2 * buckets * sizeof(uint64_t)));
		uint64_t *bucket_ends = bucket_starts + buckets;
		RETURN_IF_ERROR(cudaMemcpyAsync(device_segs, segs.data(), segs.size() * sizeof(segment_info),
						cudaMemcpyHostToDevice, stream));
		int segment_count = (int)segs.size();
		size_t tile_bytes = bitonic_layout<T>::bytes((unsigned)tile);

		PROFILE_MARK(0);
		/* steps 1-3; at level 0 of arriving input, each chunk's sublists as it lands */
		if (level == 0 && chunked) {
			uint64_t per_chunk = arrival->chunk_items / tile;
			for (int c = 0; c < arrival->chunks; c++) {
				uint64_t first = c * per_chunk;
				if (first >= sublists)
					break;
				uint64_t blocks = std::min<uint64_t>(per_chunk, sublists - first);
				if (c == arrival->chunks - 1)
					blocks = sublists - first;
				RETURN_IF_ERROR(cudaStreamWaitEvent(stream, arrival->events[c], 0));
				sort_sublists_kernel<T><<<(unsigned)blocks, BLOCK_THREADS, tile_bytes, stream>>>(
					source, device_segs, segment_count, first, samples);
				RETURN_IF_LAUNCH_ERROR();
			}
		} else {
			sort_sublists_kernel<T><<<(unsigned)sublists, BLOCK_THREADS, tile_bytes, stream>>>(
				source, device_segs, segment_count, 0, samples);
			RETURN_IF_LAUNCH_ERROR();
		}
		PROFILE_MARK(1);
		/* steps 4-5 */
		RETURN_IF_ERROR(sort_samples(samples, segs, device_segs, splitters, stream));
		PROFILE_MARK(2);
		/* step 6 */
		unsigned max_s = 0;
		for (const segment_info &seg : segs)
			max_s = std::max(max_s, seg.s);
		locate_kernel<T><<<(unsigned)sublists, 256, (max_s + 1) * sizeof(uint32_t), stream>>>(
			source, device_segs, segment_count, splitters, bounds, counts);
		RETURN_IF_LAUNCH_ERROR();
		PROFILE_MARK(3);
		/* step 7: one scan serves every segment (each subtracts its first offset) */
		size_t temp_bytes = 0;
		void *temp;
		RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, (int64_t)totals[4], stream));
		RETURN_IF_ERROR(alloc.get(&temp, temp_bytes));
		RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, (int64_t)totals[4], stream));
		PROFILE_MARK(4);
		/* step 8 */
		relocate_kernel<T><<<(unsigned)sublists, BLOCK_THREADS, max_s * 12 + 8, stream>>>(
			source, target, device_segs, segment_count, bounds, offsets);
		RETURN_IF_LAUNCH_ERROR();
		PROFILE_MARK(5);
		/* step 9: buckets that fit a tile, straight into data */
		bucket_table_kernel<<<segment_count, 256, 0, stream>>>(device_segs, offsets, bucket_starts, bucket_ends);
		RETURN_IF_LAUNCH_ERROR();
		sort_ranges_kernel<T><<<(unsigned)buckets, BLOCK_THREADS, tile_bytes, stream>>>(
			target, data, bucket_starts, bucket_ends, tile);
		RETURN_IF_LAUNCH_ERROR();

		/* the larger buckets: all-equal ones are done, the rest go one level down */
		PROFILE_MARK(6);
		std::vector<uint64_t> host_table(2 * buckets);
		RETURN_IF_ERROR(cudaMemcpyAsync(host_table.data(), bucket_starts, 2 * buckets * sizeof(uint64_t),
						cudaMemcpyDeviceToHost, stream));
		RETURN_IF_ERROR(cudaStreamSynchronize(stream));
		std::vector<uint64_t> big_starts, big_ends, parent_sizes;
		for (const segment_info &seg : segs)
			for (unsigned b = 0; b < seg.s; b++) {
				uint64_t start = host_table[seg.bucket_base + b], end = host_table[buckets + seg.bucket_base + b];
				if (end - start > tile) {
					big_starts.push_back(start);
					big_ends.push_back(end);
					parent_sizes.push_back(seg.n);
				}
			}
		segs.clear();
		if (!big_starts.empty()) {
			size_t count = big_starts.size();
			uint64_t *table;
			int *flags;
			std::vector<int> host_flags(count);
			RETURN_IF_ERROR(alloc.get(&table, 2 * count * sizeof(uint64_t)));
			RETURN_IF_ERROR(alloc.get(&flags, count * sizeof(int)));
			RETURN_IF_ERROR(cudaMemcpyAsync(table, big_starts.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice, stream));
			RETURN_IF_ERROR(cudaMemcpyAsync(table + count, big_ends.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice, stream));
			RETURN_IF_ERROR(cudaMemsetAsync(flags, 0, count * sizeof(int), stream));
			unsigned spread = (unsigned)std::max<size_t>(1, std::min<size_t>(1024, 4096 / count));
			differs_kernel<T><<<dim3((unsigned)count, spread), 512, 0, stream>>>(target, table, table + count, flags);
			RETURN_IF_LAUNCH_ERROR();
			RETURN_IF_ERROR(cudaMemcpyAsync(host_flags.data(), flags, count * sizeof(int), cudaMemcpyDeviceToHost, stream));
			RETURN_IF_ERROR(cudaStreamSynchronize(stream));
			for (size_t i = 0; i < count; i++) {
				uint64_t size = big_ends[i] - big_starts[i];
				if (!host_flags[i]) {
					if (target != data)
						RETURN_IF_ERROR(cudaMemcpyAsync(data + big_starts[i], target + big_starts[i],
										size * sizeof(T), cudaMemcpyDeviceToDevice, stream));
				} else if (size == parent_sizes[i]) {
					RETURN_IF_ERROR(sort_stubborn_range(target, data, big_starts[i], size, stream));
				} else {
					segment_info seg = {};
					seg.start = big_starts[i];
					seg.n = size;
					segs.push_back(seg);
				}
			}
		}
		PROFILE_MARK(7);
		PROFILE_COLLECT(level, 8);
		std::swap(source, target);
	}
	return cudaSuccess;
}

cudaError_t gpu_bucket_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream,
				   const struct gpu_input_arrival *arrival)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = sort_device<item_t>(static_cast<item_t *>(data), static_cast<item_t *>(scratch), n,
							   stream, arrival));
	return error;
}

/* ---- single steps for the tests: one segment with the caller's plan ---- */

static segment_info single_segment(size_t n, size_t m, size_t s)
{
	segment_info seg = {};
	seg.n = n;
	seg.m = (uint32_t)m;
	seg.s = (uint32_t)s;
	seg.sublists = (uint32_t)((n + m - 1) / m);
	return seg;
}

static cudaError_t upload_segment(stream_allocations &alloc, const segment_info &seg, segment_info **device_seg,
				  cudaStream_t stream)
{
	RETURN_IF_ERROR(alloc.get(device_seg, sizeof seg));
	RETURN_IF_ERROR(cudaMemcpyAsync(*device_seg, &seg, sizeof seg, cudaMemcpyHostToDevice, stream));
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_sort_sublists(T *items, size_t n, size_t m, size_t s, T *samples, cudaStream_t stream)
{
	if (m > gpu_bucket_tile_items(sizeof(T)))
		return cudaErrorInvalidValue;
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(n, m, s), *device_seg;
	if (n == 0)
		return cudaSuccess;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	sort_sublists_kernel<T><<<seg.sublists, BLOCK_THREADS, bitonic_layout<T>::bytes(next_pow2(m)), stream>>>(
		items, device_seg, 1, 0, samples);
	RETURN_IF_LAUNCH_ERROR();
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_choose_splitters(T *samples, size_t n, size_t m, size_t s, T *splitters, cudaStream_t stream)
{
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(n, m, s), *device_seg;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	std::vector<segment_info> segs(1, seg);
	RETURN_IF_ERROR(sort_samples(samples, segs, device_seg, splitters, stream));
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_locate(const T *items, size_t n, size_t m, size_t s, const T *splitters, uint32_t *bounds,
			       cudaStream_t stream)
{
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(n, m, s), *device_seg;
	uint64_t *counts;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	RETURN_IF_ERROR(alloc.get(&counts, ((uint64_t)seg.sublists * s + 1) * sizeof(uint64_t)));
	locate_kernel<T><<<seg.sublists, 256, (s + 1) * sizeof(uint32_t), stream>>>(items, device_seg, 1, splitters,
										  bounds, counts);
	RETURN_IF_LAUNCH_ERROR();
	return cudaStreamSynchronize(stream);
}

template <typename T>
static cudaError_t step_relocate(const T *items, size_t n, size_t m, size_t s, const uint32_t *bounds,
				 const uint64_t *offsets, T *out, cudaStream_t stream)
{
	RETURN_IF_ERROR(configure_kernels<T>());
	stream_allocations alloc(stream);
	segment_info seg = single_segment(n, m, s), *device_seg;
	RETURN_IF_ERROR(upload_segment(alloc, seg, &device_seg, stream));
	relocate_kernel<T><<<seg.sublists, BLOCK_THREADS, s * 12 + 8, stream>>>(items, out, device_seg, 1, bounds,
										 offsets);
	RETURN_IF_LAUNCH_ERROR();
	return cudaStreamSynchronize(stream);
}

cudaError_t gpu_step_sort_sublists(int width, void *items, size_t n, size_t m, size_t s, void *samples,
				   cudaStream_t stream)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = step_sort_sublists(static_cast<item_t *>(items), n, m, s,
							static_cast<item_t *>(samples), stream));
	return error;
}

cudaError_t gpu_step_choose_splitters(int width, void *samples, size_t n, size_t m, size_t s, void *splitters,
				      cudaStream_t stream)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = step_choose_splitters(static_cast<item_t *>(samples), n, m, s,
							   static_cast<item_t *>(splitters), stream));
	return error;
}

cudaError_t gpu_step_locate(int width, const void *items, size_t n, size_t m, size_t s, const void *splitters,
			    uint32_t *bounds, cudaStream_t stream)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = step_locate(static_cast<const item_t *>(items), n, m, s,
						 static_cast<const item_t *>(splitters), bounds, stream));
	return error;
}

cudaError_t gpu_step_offsets(size_t n, size_t m, size_t s, const uint32_t *bounds, uint64_t *offsets,
			     cudaStream_t stream)
{
	stream_allocations alloc(stream);
	uint64_t sublists = (n + m - 1) / m, total = sublists * s + 1;
	uint64_t *counts;
	RETURN_IF_ERROR(alloc.get(&counts, total * sizeof(uint64_t)));
	counts_from_bounds_kernel<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(bounds, sublists, (unsigned)s, counts);
	RETURN_IF_LAUNCH_ERROR();
	size_t temp_bytes = 0;
	void *temp;
	RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, (int64_t)total, stream));
	RETURN_IF_ERROR(alloc.get(&temp, temp_bytes));
	RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, (int64_t)total, stream));
	return cudaStreamSynchronize(stream);
}

cudaError_t gpu_step_relocate(int width, const void *items, size_t n, size_t m, size_t s, const uint32_t *bounds,
			      const uint64_t *offsets, void *out, cudaStream_t stream)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = step_relocate(static_cast<const item_t *>(items), n, m, s, bounds, offsets,
						   static_cast<item_t *>(out), stream));
	return error;
}
