/* SPDX-License-Identifier: MIT */
/* Fine Sample Sort on the GPU (the seeds' thesis): per level, each segment larger than
 * a block's shared memory draws a seeded random sample of 128*ceil(0.005*len^(1/3))
 * items, sorts it and takes 127 equidistant splitters; tiles of 256 threads x 8 items
 * count their items per bucket, one exclusive scan over the counts (bucket-major within
 * a segment) gives each tile's offsets, and the tiles scatter. The buckets that fit
 * shared memory are sorted there at the end, largest first; larger ones recurse.
 * Items equal to a splitter get a bucket of their own (127 equality buckets beside the
 * 128), so runs of equal items (32-bit keys alone) end at once instead of recursing. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "gpu_algorithms.cuh"
#include "gpu_items.cuh"
#include "gpu_small_sort.cuh"

#define SAMPLE_BUCKETS 128
#define SAMPLE_SPLITTERS (SAMPLE_BUCKETS - 1)
#define SAMPLE_SLOTS 256 /* bucket 2j: between splitters j-1 and j; 2j+1: equal to splitter j */
#define SAMPLE_THREADS 256
#define SAMPLE_ITEMS_PER_THREAD 8
#define SAMPLE_TILE (SAMPLE_THREADS * SAMPLE_ITEMS_PER_THREAD)
#define SAMPLE_SEED 0x5eed5a3b1e5011d5ull

struct sample_segment {
	uint64_t begin, length;
	uint32_t sample_size;
	uint32_t in_scratch;
	uint32_t first_tile, tiles;
};

struct sample_tile {
	uint64_t begin;
	uint32_t length, segment;
};

__host__ __device__ static inline uint64_t sample_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One block per segment: draws and sorts the sample, writes the 127 splitters. */
template <typename T>
__global__ void __launch_bounds__(ALGO_FINISH_THREADS) sample_splitters_kernel(const sample_segment *segments, const T *data,
										const T *scratch, T *splitters, unsigned level)
{
	__shared__ T s[algo_shared<T>::items];
	sample_segment g = segments[blockIdx.x];
	const T *items = (g.in_scratch ? scratch : data) + g.begin;
	unsigned p = 1;
	while (p < g.sample_size)
		p <<= 1;
	for (unsigned i = threadIdx.x; i < p; i += blockDim.x) {
		if (i < g.sample_size) {
			uint64_t r = sample_mix(SAMPLE_SEED ^ sample_mix(g.begin * 131 + level) ^ i);
			s[i] = items[r % g.length];
		} else {
			s[i] = item_max<T>();
		}
	}
	__syncthreads();
	algo_block_sort(s, p, 0);
	for (unsigned i = threadIdx.x; i < SAMPLE_SPLITTERS; i += blockDim.x)
		splitters[blockIdx.x * (size_t)SAMPLE_SPLITTERS + i] = s[(uint64_t)(i + 1) * g.sample_size / SAMPLE_BUCKETS];
}

/* lower bound j over the splitters, then equality with splitter j */
template <typename T> __device__ __forceinline__ unsigned sample_bucket(const T &x, const T *splitters)
{
	unsigned j = 0;
#pragma unroll
	for (unsigned step = 64; step > 0; step >>= 1)
		if (j + step <= SAMPLE_SPLITTERS && item_less(splitters[j + step - 1], x))
			j += step;
	return 2 * j + (j < SAMPLE_SPLITTERS && item_equal(x, splitters[j]) ? 1 : 0);
}

/* counts[256*first_tile + bucket*tiles + (tile - first_tile)] for every tile. */
template <typename T>
__global__ void __launch_bounds__(SAMPLE_THREADS) sample_count_kernel(const sample_tile *tiles, const sample_segment *segments,
								       const T *data, const T *scratch, const T *splitters,
								       uint32_t *counts)
{
	__shared__ T bounds[SAMPLE_SPLITTERS];
	__shared__ unsigned histogram[SAMPLE_SLOTS];
	sample_tile t = tiles[blockIdx.x];
	sample_segment g = segments[t.segment];
	for (unsigned i = threadIdx.x; i < SAMPLE_SPLITTERS; i += blockDim.x)
		bounds[i] = splitters[t.segment * (size_t)SAMPLE_SPLITTERS + i];
	for (unsigned i = threadIdx.x; i < SAMPLE_SLOTS; i += blockDim.x)
		histogram[i] = 0;
	__syncthreads();
	const T *items = (g.in_scratch ? scratch : data) + t.begin;
#pragma unroll
	for (int i = 0; i < SAMPLE_ITEMS_PER_THREAD; i++) {
		unsigned at = i * SAMPLE_THREADS + threadIdx.x;
		if (at < t.length)
			atomicAdd(&histogram[sample_bucket(items[at], bounds)], 1u);
	}
	__syncthreads();
	for (unsigned b = threadIdx.x; b < SAMPLE_SLOTS; b += blockDim.x)
		counts[(size_t)SAMPLE_SLOTS * g.first_tile + (size_t)b * g.tiles + (blockIdx.x - g.first_tile)] = histogram[b];
}

template <typename T>
__global__ void __launch_bounds__(SAMPLE_THREADS) sample_scatter_kernel(const sample_tile *tiles, const sample_segment *segments,
									 T *data, T *scratch, const T *splitters,
									 const uint64_t *offsets)
{
	__shared__ T bounds[SAMPLE_SPLITTERS];
	__shared__ uint64_t base[SAMPLE_SLOTS];
	__shared__ unsigned cursor[SAMPLE_SLOTS];
	sample_tile t = tiles[blockIdx.x];
	sample_segment g = segments[t.segment];
	for (unsigned i = threadIdx.x; i < SAMPLE_SPLITTERS; i += blockDim.x)
		bounds[i] = splitters[t.segment * (size_t)SAMPLE_SPLITTERS + i];
	size_t segment_base = (size_t)SAMPLE_SLOTS * g.first_tile;
	for (unsigned b = threadIdx.x; b < SAMPLE_SLOTS; b += blockDim.x) {
		base[b] = offsets[segment_base + (size_t)b * g.tiles + (blockIdx.x - g.first_tile)] - offsets[segment_base];
		cursor[b] = 0;
	}
	__syncthreads();
	const T *items = (g.in_scratch ? scratch : data) + t.begin;
	T *out = (g.in_scratch ? data : scratch) + g.begin;
#pragma unroll
	for (int i = 0; i < SAMPLE_ITEMS_PER_THREAD; i++) {
		unsigned at = i * SAMPLE_THREADS + threadIdx.x;
		if (at < t.length) {
			T x = items[at];
			unsigned b = sample_bucket(x, bounds);
			out[base[b] + atomicAdd(&cursor[b], 1u)] = x;
		}
	}
}

/* starts[segment*257 + b]: where bucket b begins within its segment; [.. + 256] = length */
__global__ void sample_bucket_starts_kernel(const sample_segment *segments, const uint64_t *offsets, uint64_t *starts)
{
	sample_segment g = segments[blockIdx.x];
	size_t segment_base = (size_t)SAMPLE_SLOTS * g.first_tile;
	for (unsigned b = threadIdx.x; b <= SAMPLE_SLOTS; b += blockDim.x)
		starts[blockIdx.x * (size_t)(SAMPLE_SLOTS + 1) + b] =
			b < SAMPLE_SLOTS ? offsets[segment_base + (size_t)b * g.tiles] - offsets[segment_base] : g.length;
}

static uint32_t sample_size_for(uint64_t length)
{
	double size = SAMPLE_BUCKETS * ceil(0.005 * cbrt((double)length));
	return (uint32_t)(size < SAMPLE_BUCKETS ? SAMPLE_BUCKETS : size);
}

template <typename T> static cudaError_t sample_sort(T *data, T *scratch, size_t n, cudaStream_t stream)
{
	const uint64_t small = algo_shared<T>::items;
	std::vector<algo_piece> pieces;
	std::vector<sample_segment> level_segments;
	if (n <= small)
		algo_add_piece<T>(pieces, 0, n, false, false);
	else
		level_segments.push_back(sample_segment{ 0, n, 0, 0, 0, 0 });
	/* bounds for any level: segments are disjoint and larger than `small` */
	size_t max_segments = n / (small + 1) + 1;
	size_t max_tiles = n / SAMPLE_TILE + max_segments;
	size_t max_counts = (size_t)SAMPLE_SLOTS * max_tiles;
	sample_segment *segments = nullptr;
	sample_tile *tiles = nullptr;
	T *splitters = nullptr;
	uint32_t *counts = nullptr;
	uint64_t *offsets = nullptr, *starts = nullptr;
	void *temp = nullptr;
	size_t temp_bytes = 0;
	cudaError_t error = cudaSuccess;
	if (!level_segments.empty()) {
		error = cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, (int64_t)max_counts, stream);
		if (!error) error = cudaMallocAsync(&segments, max_segments * sizeof *segments, stream);
		if (!error) error = cudaMallocAsync(&tiles, max_tiles * sizeof *tiles, stream);
		if (!error) error = cudaMallocAsync(&splitters, max_segments * SAMPLE_SPLITTERS * sizeof(T), stream);
		if (!error) error = cudaMallocAsync(&counts, max_counts * sizeof *counts, stream);
		if (!error) error = cudaMallocAsync(&offsets, max_counts * sizeof *offsets, stream);
		if (!error) error = cudaMallocAsync(&starts, max_segments * (SAMPLE_SLOTS + 1) * sizeof *starts, stream);
		if (!error) error = cudaMallocAsync(&temp, temp_bytes, stream);
	}
	std::vector<sample_tile> level_tiles;
	std::vector<uint64_t> host_starts;
	for (unsigned level = 0; !error && !level_segments.empty(); level++) {
		level_tiles.clear();
		for (uint32_t s = 0; s < level_segments.size(); s++) {
			sample_segment &g = level_segments[s];
			g.sample_size = sample_size_for(g.length);
			if (g.sample_size > small)
				g.sample_size = (uint32_t)small;
			g.first_tile = (uint32_t)level_tiles.size();
			for (uint64_t at = 0; at < g.length; at += SAMPLE_TILE) {
				uint64_t size = g.length - at < SAMPLE_TILE ? g.length - at : SAMPLE_TILE;
				level_tiles.push_back(sample_tile{ g.begin + at, (uint32_t)size, s });
			}
			g.tiles = (uint32_t)level_tiles.size() - g.first_tile;
		}
		unsigned ns = (unsigned)level_segments.size(), nt = (unsigned)level_tiles.size();
		size_t level_counts = (size_t)SAMPLE_SLOTS * nt;
		error = cudaMemcpyAsync(segments, level_segments.data(), ns * sizeof *segments, cudaMemcpyHostToDevice, stream);
		if (!error) error = cudaMemcpyAsync(tiles, level_tiles.data(), nt * sizeof *tiles, cudaMemcpyHostToDevice, stream);
		if (!error) {
			sample_splitters_kernel<T><<<ns, ALGO_FINISH_THREADS, 0, stream>>>(segments, data, scratch, splitters, level);
			error = cudaGetLastError();
		}
		if (!error) {
			sample_count_kernel<T><<<nt, SAMPLE_THREADS, 0, stream>>>(tiles, segments, data, scratch, splitters, counts);
			error = cudaGetLastError();
		}
		if (!error) error = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, (int64_t)level_counts, stream);
		if (!error) {
			sample_scatter_kernel<T><<<nt, SAMPLE_THREADS, 0, stream>>>(tiles, segments, data, scratch, splitters, offsets);
			error = cudaGetLastError();
		}
		if (!error) {
			sample_bucket_starts_kernel<<<ns, SAMPLE_SLOTS + 32, 0, stream>>>(segments, offsets, starts);
			error = cudaGetLastError();
		}
		host_starts.resize((size_t)ns * (SAMPLE_SLOTS + 1));
		if (!error) error = cudaMemcpyAsync(host_starts.data(), starts, host_starts.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream);
		if (!error) error = cudaStreamSynchronize(stream);
		if (error)
			break;
		std::vector<sample_segment> next;
		algo_piece_builder<T> finished(pieces);
		for (unsigned s = 0; s < ns; s++) {
			const sample_segment &g = level_segments[s];
			const uint64_t *start = &host_starts[(size_t)s * (SAMPLE_SLOTS + 1)];
			uint32_t moved = !g.in_scratch;
			for (unsigned b = 0; b < SAMPLE_SLOTS; b++) {
				uint64_t begin = g.begin + start[b], length = start[b + 1] - start[b];
				if (b & 1)
					finished.add(begin, length, moved, true);
				else if (length > small)
					next.push_back(sample_segment{ begin, length, 0, moved, 0, 0 });
				else
					finished.add(begin, length, moved, false);
			}
		}
		finished.flush();
		level_segments.swap(next);
	}
	if (!error)
		error = algo_finish_pieces<T>(pieces, data, scratch, stream);
	void *tables[] = { segments, tiles, splitters, counts, offsets, starts, temp };
	for (void *table : tables)
		if (table)
			cudaFreeAsync(table, stream);
	return error;
}

cudaError_t gpu_sample_sort_device(int width, void *data, void *scratch, size_t n, cudaStream_t stream)
{
	cudaError_t error = cudaErrorInvalidValue;
	GPU_FOR_WIDTH(width, error = sample_sort<item_t>((item_t *)data, (item_t *)scratch, n, stream));
	return error;
}
