/* Benchmark of the GPU bucket sort against CUB's DeviceRadixSort and DeviceMergeSort on
 * the device alone (no host copies): u32, u64, u64+index and 80-bit key + 48-bit
 * position items over the eight distributions, timed with device events after a
 * warm-up, median of several runs, in Gkeys/s.
 * Usage: gpu_kernels [log2 sizes...] (default 20 24 28); GPU_BENCH_ALGS=bucket,radix,merge;
 * GPU_BENCH_DISTS=uniform,... to run only those distributions (for ncu);
 * GPU_BENCH_LANES=0 runs the bucket sort's block classes in turn, not side by side. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>
#include "kernels/gpu_bucket_sort.cuh"
#include "kernels/gpu_items.cuh"

#ifdef GPU_BUCKET_PROFILE
void gpu_bucket_profile_print(double divisor);
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

/* kind 0 u32, 1 u64, 2 u64 key + 64-bit index, 3 80-bit key + 48-bit position */
__global__ void fill_kernel(void *out, int kind, int dist, uint64_t n, uint64_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		if (kind == 0) {
			((uint32_t *)out)[i] = (uint32_t)draw(dist, i, n, 32, seed);
		} else if (kind == 1) {
			((uint64_t *)out)[i] = draw(dist, i, n, 64, seed);
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

template <typename T>
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
			std::vector<float> times;
			size_t temp_bytes = 0;
			void *temp = nullptr;
			if (alg == 1)
				radix_sort<T>(nullptr, temp_bytes, (T *)work, (T *)other, n, stream);
			if (alg == 2)
				CHECK(cub::DeviceMergeSort::SortKeys(nullptr, temp_bytes, (T *)work, (int64_t)n, item_less_op(), stream));
			if (temp_bytes)
				CHECK(cudaMalloc(&temp, temp_bytes));
			T *result = alg == 1 ? (T *)other : (T *)work;
			for (int r = 0; r < runs + 1; r++) {
				CHECK(cudaMemcpyAsync(work, pristine, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
				CHECK(cudaEventRecord(start, stream));
				if (alg == 0)
					CHECK(gpu_bucket_sort_device(sizeof(T), work, other, n, stream, lanes, nullptr));
				else if (alg == 1)
					radix_sort<T>(temp, temp_bytes, (T *)work, (T *)other, n, stream);
				else
					CHECK(cub::DeviceMergeSort::SortKeys(temp, temp_bytes, (T *)work, (int64_t)n, item_less_op(), stream));
				CHECK(cudaEventRecord(stop, stream));
				CHECK(cudaEventSynchronize(stop));
				float ms = 0;
				CHECK(cudaEventElapsedTime(&ms, start, stop));
				if (r > 0)
					times.push_back(ms);
#ifdef GPU_BUCKET_PROFILE
				if (alg == 0 && r == 0)
					gpu_bucket_profile_print(1e30); /* drop the warm-up's step times */
#endif
			}
			if (temp)
				CHECK(cudaFree(temp));
			std::sort(times.begin(), times.end());
			double median = times[times.size() / 2];
			row.rate[alg] = n / (median * 1e-3) / 1e9;
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
	std::string kinds = kinds_env ? kinds_env : "u32,u64,u64+index,key80+pos48";
	bool profile = getenv("GPU_BENCH_PROFILE") != nullptr;
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs, tile %zu/%zu/%zu items (u32/u64/128-bit)\n", prop.name, prop.multiProcessorCount,
	       gpu_bucket_tile_items(4), gpu_bucket_tile_items(8), gpu_bucket_tile_items(16));
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
		if (kinds.find("u32") != std::string::npos)
			bench_kind<uint32_t>(0, "u32", log_n, algs, runs, rows, pristine, work, other, stream, profile);
		if (kinds.find("u64,") != std::string::npos || kinds == "u64" || kinds.find(",u64") == kinds.size() - 4)
			bench_kind<uint64_t>(1, "u64", log_n, algs, runs, rows, pristine, work, other, stream, profile);
		if (kinds.find("u64+index") != std::string::npos)
			bench_kind<gpu_u128>(2, "u64+index", log_n, algs, runs, rows, pristine, work, other, stream, profile);
		if (kinds.find("key80") != std::string::npos)
			bench_kind<gpu_u128>(3, "key80+pos48", log_n, algs, runs, rows, pristine, work, other, stream, profile);
	}
	printf("\n| items | n | distribution | bucket | CUB radix | CUB merge |\n|---|---|---|---|---|---|\n");
	for (const result_row &row : rows)
		printf("| %s | 2^%d | %s | %.2f | %.2f | %.2f |\n", row.kind.c_str(), row.log_n, row.dist.c_str(), row.rate[0],
		       row.rate[1], row.rate[2]);
	return 0;
}
