/* SPDX-License-Identifier: MIT */
/* Benchmark of the GPU bucket sort against CUB's DeviceRadixSort and DeviceMergeSort on
 * the device alone (no host copies): u32, u64, u64+index and 80-bit key + 48-bit
 * position items over the eight distributions, timed with device events after a
 * warm-up, median of several runs, in Gkeys/s. The pair kinds u32+pos32 and u64+pos32
 * (a key and its 32-bit input position, as gpusort sorts records: 8- and 12-byte items)
 * run against CUB's SortPairs of the same keys with 32-bit values in separate arrays.
 * Usage: gpu_kernels [log2 sizes...] (default 20 24 28); GPU_BENCH_ALGS=bucket,radix,merge;
 * GPU_BENCH_KINDS=u32,u64,... to run only those kinds; GPU_BENCH_DISTS=uniform,... to run
 * only those distributions (for ncu);
 * GPU_BENCH_LANES=0 runs the bucket sort's block classes in turn, not side by side. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>
#include "kernels/gpu_bucket_sort.cuh"
#include "kernels/gpu_items.cuh"

#ifdef GPU_BUCKET_PROFILE
void gpu_bucket_profile_print(double divisor);
void gpu_bucket_profile_clear(void);
#endif

#define CHECK(call)                                                                              \
	do {                                                                                     \
		cudaError_t e_ = (call);                                                         \
		if (e_ != cudaSuccess) {                                                         \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)

static const char *const dist_names[8] = { "uniform", "normal", "poisson", "bucket", "sorted", "reverse", "all-equal", "few-unique" };

__device__ static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The seeds' distributions as in tests/distributions.c, drawn per index on the device. */
__device__ static uint64_t draw(int dist, uint64_t i, uint64_t n, int bits, uint64_t seed)
{
	uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
	double range = bits >= 64 ? 18446744073709551615.0 : (double)mask;
	uint64_t r = mix(seed * 0x2545f4914f6cdd1dULL + i);
	switch (dist) {
	case 0: return r & mask;
	case 1: case 2: {
		double u1 = ((r >> 11) + 1) * (1.0 / 9007199254740992.0);
		double u2 = (mix(r) >> 11) * (1.0 / 9007199254740992.0);
		double z = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
		if (dist == 2) { double v = 1.0e6 + 1000.0 * z; return (uint64_t)(v < 0 ? 0 : v) & mask; }
		double v = range / 2 + z * range / 16;
		return v <= 0 ? 0 : v >= range ? mask : (uint64_t)v;
	}
	case 3: {
		uint64_t p = 64, group = n / p ? n / p : 1, part = mask / p + 1;
		uint64_t within = i % group, piece = (within * p) / group;
		return piece * part + r % part;
	}
	case 4: case 5: {
		uint64_t step = n ? mask / n : 0;
		if (!step) step = 1;
		uint64_t rank = dist == 4 ? i : n - 1 - i;
		return (rank * step) & mask;
	}
	case 6: return mix(seed) & mask;
	default: return mix(seed * 77 + (r % 16)) & mask;
	}
}

/* kind 0 u32, 1 u64, 2 u64 key + 64-bit index, 3 80-bit key + 48-bit position,
 * 4 u32 key << 32 | 32-bit position, 5 u64 key << 32 | 32-bit position (12 bytes) */
__global__ void fill_kernel(void *out, int kind, int dist, uint64_t n, uint64_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		if (kind == 0) {
			((uint32_t *)out)[i] = (uint32_t)draw(dist, i, n, 32, seed);
		} else if (kind == 1) {
			((uint64_t *)out)[i] = draw(dist, i, n, 64, seed);
		} else if (kind == 4) {
			((uint64_t *)out)[i] = draw(dist, i, n, 32, seed) << 32 | (uint32_t)i;
		} else if (kind == 5) {
			uint64_t key = draw(dist, i, n, 64, seed);
			((gpu_u96 *)out)[i] = gpu_u96{ (uint32_t)i, (uint32_t)key, (uint32_t)(key >> 32) };
		} else {
			uint64_t key = draw(dist, i, n, 64, seed);
			gpu_u128 item;
			item.hi = key;
			item.lo = kind == 2 ? i : ((mix(i ^ seed) & 0xffff) << 48) | i;
			((gpu_u128 *)out)[i] = item;
		}
	}
}

struct u128_decomposer {
	__host__ __device__ cuda::std::tuple<uint64_t &, uint64_t &> operator()(gpu_u128 &key) const
	{
		return { key.hi, key.lo };
	}
};

template <typename T>
static void radix_sort(void *temp, size_t &temp_bytes, T *in, T *out, size_t n, cudaStream_t stream)
{
	CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, (int64_t)n, 0, (int)sizeof(T) * 8, stream));
}
template <>
void radix_sort<gpu_u128>(void *temp, size_t &temp_bytes, gpu_u128 *in, gpu_u128 *out, size_t n, cudaStream_t stream)
{
	CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, (int64_t)n, u128_decomposer{}, stream));
}

/* A pair item's key and value, and the kernel that splits items into CUB's two arrays. */
__device__ __forceinline__ uint32_t pair_key(uint64_t item) { return (uint32_t)(item >> 32); }
__device__ __forceinline__ uint64_t pair_key(gpu_u96 item) { return item_image(item); }
__device__ __forceinline__ uint32_t pair_value(uint64_t item) { return (uint32_t)item; }
__device__ __forceinline__ uint32_t pair_value(gpu_u96 item) { return item.position; }

template <typename T, typename K>
__global__ void split_pairs_kernel(const T *items, K *keys, uint32_t *values, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		keys[i] = pair_key(items[i]);
		values[i] = pair_value(items[i]);
	}
}

template <typename K>
static bool pairs_sorted_device(const K *keys, size_t n)
{
	std::vector<K> h(n);
	CHECK(cudaMemcpy(h.data(), keys, n * sizeof(K), cudaMemcpyDeviceToHost));
	return std::is_sorted(h.begin(), h.end());
}

template <typename T>
static bool is_sorted_device(const T *d, size_t n)
{
	std::vector<T> h(n);
	CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	for (size_t i = 1; i < n; i++)
		if (item_less(h[i], h[i - 1]))
			return false;
	return true;
}

/* The lanes the bucket sort's classes run on beside its stream; GPU_BENCH_LANES=0
 * leaves them out (the classes in turn). */
static gpu_sort_lanes bench_lanes, *lanes;

struct result_row {
	std::string kind, dist;
	int log_n;
	double rate[3];
};

/* The milliseconds work() takes on the stream, timed by events around it. */
template <typename F> static float timed_ms(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, F work)
{
	CHECK(cudaEventRecord(start, stream));
	work();
	CHECK(cudaEventRecord(stop, stream));
	CHECK(cudaEventSynchronize(stop));
	float ms = 0;
	CHECK(cudaEventElapsedTime(&ms, start, stop));
	return ms;
}

/* The median of times (ms), which it sorts. */
static float median_ms(std::vector<float> &times)
{
	std::sort(times.begin(), times.end());
	return times[times.size() / 2];
}

/* Gkeys/s of n items sorted in ms. */
static double gkeys_per_second(size_t n, float ms)
{
	return n / (ms * 1e-3) / 1e9;
}

/* CUB's sort of the pairs in keys/values (key_out/value_out for the radix sort, which
 * does not sort in place); with temp null, its temporary bytes. */
template <typename K>
static void cub_pairs(int alg, void *temp, size_t &temp_bytes, K *keys, uint32_t *values, K *key_out, uint32_t *value_out,
		      size_t n, cudaStream_t stream)
{
	if (alg == 1)
		CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, key_out, values, value_out, (int64_t)n, 0,
						      (int)sizeof(K) * 8, stream));
	else
		CHECK(cub::DeviceMergeSort::SortPairs(temp, temp_bytes, keys, values, (int64_t)n, item_less_op(), stream));
}

/* A pair kind's CUB rate: the items split into keys and 32-bit values before each run,
 * untimed, as the bucket sort's items are copied from the pristine ones. */
template <typename T, typename K>
static double bench_cub_pairs(int alg, size_t n, int runs, const void *pristine, void *work, void *other,
			      cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop)
{
	K *keys = (K *)work, *key_out = (K *)other;
	uint32_t *values = (uint32_t *)(keys + n), *value_out = (uint32_t *)(key_out + n);
	size_t temp_bytes = 0;
	void *temp = nullptr;
	cub_pairs<K>(alg, nullptr, temp_bytes, keys, values, key_out, value_out, n, stream);
	if (temp_bytes)
		CHECK(cudaMalloc(&temp, temp_bytes));
	std::vector<float> times;
	for (int r = 0; r < runs + 1; r++) {
		split_pairs_kernel<T, K><<<1024, 256, 0, stream>>>((const T *)pristine, keys, values, n);
		CHECK(cudaGetLastError());
		float ms = timed_ms(stream, start, stop, [&] {
			cub_pairs<K>(alg, temp, temp_bytes, keys, values, key_out, value_out, n, stream);
		});
		if (r > 0)
			times.push_back(ms);
	}
	if (temp)
		CHECK(cudaFree(temp));
	if (n <= (1u << 24) && !pairs_sorted_device(alg == 1 ? key_out : keys, n)) {
		fprintf(stderr, "CUB pairs NOT SORTED at n=%zu\n", n);
		exit(1);
	}
	return gkeys_per_second(n, median_ms(times));
}

/* The key type CUB sorts for a pair kind (void: not a pair kind). */
template <typename T> struct pair_key_type { typedef void type; };
template <> struct pair_key_type<gpu_u96> { typedef uint64_t type; };

/* CUB's sort of the items themselves (alg 1 radix into out, 2 merge in place); none for
 * a pair kind, whose items CUB sorts as pairs (bench_cub_pairs). */
template <typename T, typename K>
static void cub_keys(int alg, void *temp, size_t &temp_bytes, T *work, T *out, size_t n, cudaStream_t stream)
{
	if constexpr (std::is_void<K>::value) {
		if (alg == 1)
			radix_sort<T>(temp, temp_bytes, work, out, n, stream);
		else if (alg == 2)
			CHECK(cub::DeviceMergeSort::SortKeys(temp, temp_bytes, work, (int64_t)n, item_less_op(), stream));
	}
}

template <typename T, typename K = typename pair_key_type<T>::type>
static void bench_kind(int kind, const char *kind_name, int log_n, const bool algs[3], int runs, std::vector<result_row> &rows,
		       void *pristine, void *work, void *other, cudaStream_t stream, bool profile)
{
	size_t n = (size_t)1 << log_n;
	cudaEvent_t start, stop;
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	const char *only = getenv("GPU_BENCH_DISTS");
	for (int dist = 0; dist < 8; dist++) {
		if (only && !strstr(only, dist_names[dist]))
			continue;
		result_row row{ kind_name, dist_names[dist], log_n, { 0, 0, 0 } };
		fill_kernel<<<1024, 256, 0, stream>>>(pristine, kind, dist, n, 12345 + dist);
		CHECK(cudaGetLastError());
		for (int alg = 0; alg < 3; alg++) {
			if (!algs[alg])
				continue;
			if constexpr (!std::is_void<K>::value) {
				if (alg > 0) {
					row.rate[alg] = bench_cub_pairs<T, K>(alg, n, runs, pristine, work, other, stream, start, stop);
					continue;
				}
			}
			std::vector<float> times;
			size_t temp_bytes = 0;
			void *temp = nullptr;
			cub_keys<T, K>(alg, nullptr, temp_bytes, (T *)work, (T *)other, n, stream);
			if (temp_bytes)
				CHECK(cudaMalloc(&temp, temp_bytes));
			T *result = alg == 1 ? (T *)other : (T *)work;
			for (int r = 0; r < runs + 1; r++) {
				CHECK(cudaMemcpyAsync(work, pristine, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
				float ms = timed_ms(stream, start, stop, [&] {
					if (alg == 0)
						CHECK(gpu_bucket_sort_device(sizeof(T), work, other, n, stream, lanes, nullptr));
					else
						cub_keys<T, K>(alg, temp, temp_bytes, (T *)work, (T *)other, n, stream);
				});
				if (r > 0)
					times.push_back(ms);
#ifdef GPU_BUCKET_PROFILE
				if (alg == 0 && r == 0)
					gpu_bucket_profile_clear(); /* drop the warm-up's step times */
#endif
			}
			if (temp)
				CHECK(cudaFree(temp));
			float median = median_ms(times);
			row.rate[alg] = gkeys_per_second(n, median);
			if (alg == 0 && log_n <= 24 && !is_sorted_device(result, n)) {
				fprintf(stderr, "NOT SORTED: %s %s 2^%d\n", kind_name, dist_names[dist], log_n);
				exit(1);
			}
#ifdef GPU_BUCKET_PROFILE
			if (alg == 0 && profile) {
				printf("  %s %s 2^%d bucket %.3f ms; steps (mean of %d runs):\n", kind_name, dist_names[dist], log_n,
				       median, runs);
				gpu_bucket_profile_print(runs);
			}
#endif
		}
		fprintf(stderr, "%-10s %-11s 2^%d  bucket %7.3f  radix %7.3f  merge %7.3f Gkeys/s\n", kind_name, dist_names[dist],
			log_n, row.rate[0], row.rate[1], row.rate[2]);
		rows.push_back(row);
	}
	CHECK(cudaEventDestroy(start));
	CHECK(cudaEventDestroy(stop));
}

/* Whether name is one of the comma-separated list's entries. */
static bool listed(const std::string &list, const char *name)
{
	return ("," + list + ",").find("," + std::string(name) + ",") != std::string::npos;
}

int main(int argc, char **argv)
{
	std::vector<int> logs;
	for (int i = 1; i < argc; i++)
		logs.push_back(atoi(argv[i]));
	if (logs.empty())
		logs = { 20, 24, 28 };
	const char *alg_env = getenv("GPU_BENCH_ALGS");
	std::string alg_list = alg_env ? alg_env : "bucket,radix,merge";
	bool algs[3] = { alg_list.find("bucket") != std::string::npos, alg_list.find("radix") != std::string::npos,
			 alg_list.find("merge") != std::string::npos };
	const char *kinds_env = getenv("GPU_BENCH_KINDS");
	std::string kinds = kinds_env ? kinds_env : "u32,u64,u64+index,key80+pos48,u32+pos32,u64+pos32";
	bool profile = getenv("GPU_BENCH_PROFILE") != nullptr;
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs, tile %zu/%zu/%zu/%zu items (u32/u64/96-bit/128-bit)\n", prop.name,
	       prop.multiProcessorCount, gpu_bucket_tile_items(4), gpu_bucket_tile_items(8), gpu_bucket_tile_items(12),
	       gpu_bucket_tile_items(16));
	int max_log = *std::max_element(logs.begin(), logs.end());
	size_t max_bytes = ((size_t)1 << max_log) * 16;
	void *pristine, *work, *other;
	CHECK(cudaMalloc(&pristine, max_bytes));
	CHECK(cudaMalloc(&work, max_bytes));
	CHECK(cudaMalloc(&other, max_bytes));
	cudaStream_t stream;
	CHECK(cudaStreamCreate(&stream));
	const char *lanes_env = getenv("GPU_BENCH_LANES");
	if (!lanes_env || strcmp(lanes_env, "0") != 0) {
		CHECK(gpu_sort_lanes_create(&bench_lanes));
		lanes = &bench_lanes;
	}
	cudaMemPool_t pool;
	uint64_t keep = UINT64_MAX;
	CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
	CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
	std::vector<result_row> rows;
	for (int log_n : logs) {
		int runs = log_n >= 28 ? 3 : log_n >= 24 ? 5 : 9;
		if (listed(kinds, "u32"))
			bench_kind<uint32_t>(0, "u32", log_n, algs, runs, rows, pristine, work, other, stream, profile);
		if (listed(kinds, "u64"))
			bench_kind<uint64_t>(1, "u64", log_n, algs, runs, rows, pristine, work, other, stream, profile);
		if (listed(kinds, "u64+index"))
			bench_kind<gpu_u128>(2, "u64+index", log_n, algs, runs, rows, pristine, work, other, stream, profile);
		if (listed(kinds, "key80+pos48"))
			bench_kind<gpu_u128>(3, "key80+pos48", log_n, algs, runs, rows, pristine, work, other, stream, profile);
		if (listed(kinds, "u32+pos32"))
			bench_kind<uint64_t, uint32_t>(4, "u32+pos32", log_n, algs, runs, rows, pristine, work, other, stream,
						       profile);
		if (listed(kinds, "u64+pos32"))
			bench_kind<gpu_u96>(5, "u64+pos32", log_n, algs, runs, rows, pristine, work, other, stream, profile);
	}
	printf("\n| items | n | distribution | bucket | CUB radix | CUB merge |\n|---|---|---|---|---|---|\n");
	for (const result_row &row : rows)
		printf("| %s | 2^%d | %s | %.2f | %.2f | %.2f |\n", row.kind.c_str(), row.log_n, row.dist.c_str(), row.rate[0],
		       row.rate[1], row.rate[2]);
	return 0;
}
