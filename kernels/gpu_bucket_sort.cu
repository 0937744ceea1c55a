/* SPDX-License-Identifier: MIT */
/* GPU Bucket Sort (Dehne and Zaboli) on CUDA: the host loop that runs the nine steps of
 * bucket_sort_steps.h (their kernels: gpu_bucket_kernels.cuh) level by level. All buckets too
 * large for one block at a level become the segments of the next level, and every
 * kernel of a level serves all its segments at once, so launches do not grow with the
 * number of buckets. */
#include <pthread.h>
#include <algorithm>
#include <vector>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include "gpu_block_sort.cuh"
#include "gpu_bucket_kernels.cuh"
#include "gpu_bucket_sort.cuh"
#include "gpu_items.cuh"

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

size_t gpu_bucket_tile_items(int width)
{
	size_t items = 0;
	GPU_FOR_WIDTH(width, items = class_capacity<item_t>(TILE_CLASS));
	return items;
}

/* Devices whose kernels configure_kernels sets up once each; more share the last. */
#define CONFIGURED_DEVICES 16

/* Blocks of each class that fit on the device at once: the grid of a listed launch. */
static unsigned resident_blocks[CONFIGURED_DEVICES][17][SORT_CLASSES];

/* The current device's row of resident_blocks and of the configured flags. */
static int configured_row(void)
{
	int device = 0;
	cudaGetDevice(&device);
	return device < 0 ? 0 : device < CONFIGURED_DEVICES ? device : CONFIGURED_DEVICES - 1;
}

/* Shared memory: raise each kernel's limit above 48 KB once per device; count resident
 * blocks. Jobs on threads of one process configure under the lock, once. */
template <typename T>
static cudaError_t configure_kernels_locked(int row, bool *done);

template <typename T>
static cudaError_t configure_kernels(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static bool done[CONFIGURED_DEVICES][17];
	int row = configured_row();
	pthread_mutex_lock(&lock);
	cudaError_t error = done[row][sizeof(T)] ? cudaSuccess : configure_kernels_locked<T>(row, &done[row][sizeof(T)]);
	pthread_mutex_unlock(&lock);
	return error;
}

template <typename T>
static cudaError_t configure_kernels_locked(int row, bool *done)
{
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
			resident_blocks[row][sizeof(T)][c] = (unsigned)std::max(1, per_sm * sms);
		});
	}
	RETURN_IF_ERROR(cudaFuncSetAttribute(relocate_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
	RETURN_IF_ERROR(cudaFuncSetAttribute(locate_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
	RETURN_IF_ERROR(cudaFuncSetAttribute(splitters_by_rank_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)(gpu_bucket_tile_items(sizeof(T)) * sizeof(T))));
	*done = true;
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
		unsigned grid = std::min(count, resident_blocks[configured_row()][sizeof(T)][c]);
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
