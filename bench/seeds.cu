/* SPDX-License-Identifier: MIT */
/* The seeds' experiments on one GPU, 32-bit keys (ITEM_U32), device alone (no host
 * copies): every method of gpusort (bucket, sample, radix, bitonic, quick) and CUB's
 * DeviceRadixSort (the path Thrust takes for keys) over
 *   A. uniform, normal, Poisson, descending at 10M, 20M, ..., 100M (Fine Sample Sort thesis)
 *   B. uniform, gaussian, bucket, sorted, zero (all-equal) at 2^24 ("Sorting on CUDA")
 *   C. 16,777,217 uniform keys (the radix-sort report), and radix digit widths 4..8
 * Device events around each sort, one warm-up, median of several runs; every output is
 * compared on the device with CUB's. Keys come from tests/distributions.c.
 * Usage: seeds [runs] (default 5). Prints progress to stderr, tables to stdout. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cub/device/device_radix_sort.cuh>
#include "kernels/gpu_algorithms.cuh"
#include "kernels/gpu_bucket_sort.cuh"
extern "C" {
#include "tests/distributions.h"
}

#define CHECK(call)                                                                                       \
	do {                                                                                              \
		cudaError_t e_ = (call);                                                                  \
		if (e_ != cudaSuccess) {                                                                  \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(2);                                                                          \
		}                                                                                         \
	} while (0)

enum method { M_BUCKET, M_SAMPLE, M_RADIX, M_BITONIC, M_QUICK, M_CUB, M_COUNT };
static const char *const method_names[M_COUNT] = { "bucket", "sample", "radix", "bitonic", "quick", "CUB radix" };

struct bench {
	uint32_t *pristine, *work, *scratch, *reference;
	void *cub_temp;
	size_t cub_temp_bytes;
	unsigned long long *mismatches;
	cudaStream_t stream;
	cudaEvent_t start, stop;
	int runs;
};

__global__ void count_mismatches(const uint32_t *a, const uint32_t *b, size_t n, unsigned long long *count)
{
	unsigned long long local = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		local += a[i] != b[i];
	if (local)
		atomicAdd(count, local);
}

/* Sorts work[0, n); returns where the sorted keys are. */
static uint32_t *run_method(bench &b, int m, size_t n, int radix_bits)
{
	switch (m) {
	case M_BUCKET: CHECK(gpu_bucket_sort_device(4, b.work, b.scratch, n, b.stream, nullptr, nullptr)); return b.work;
	case M_SAMPLE: CHECK(gpu_sample_sort_device(4, b.work, b.scratch, n, b.stream)); return b.work;
	case M_RADIX: CHECK(gpu_radix_sort_device(4, b.work, b.scratch, n, radix_bits, b.stream)); return b.work;
	case M_BITONIC: CHECK(gpu_bitonic_sort_device(4, b.work, b.scratch, n, b.stream)); return b.work;
	case M_QUICK: CHECK(gpu_quick_sort_device(4, b.work, b.scratch, n, b.stream)); return b.work;
	default:
		CHECK(cub::DeviceRadixSort::SortKeys(b.cub_temp, b.cub_temp_bytes, b.work, b.scratch, (int64_t)n, 0, 32, b.stream));
		return b.scratch;
	}
}

/* Median milliseconds of b.runs timed sorts after one warm-up whose output is checked. */
static double time_method(bench &b, int m, size_t n, int radix_bits, bool *correct)
{
	std::vector<float> times;
	for (int r = 0; r <= b.runs; r++) {
		CHECK(cudaMemcpyAsync(b.work, b.pristine, n * 4, cudaMemcpyDeviceToDevice, b.stream));
		CHECK(cudaEventRecord(b.start, b.stream));
		uint32_t *sorted = run_method(b, m, n, radix_bits);
		CHECK(cudaEventRecord(b.stop, b.stream));
		CHECK(cudaEventSynchronize(b.stop));
		CHECK(cudaGetLastError());
		float ms = 0;
		CHECK(cudaEventElapsedTime(&ms, b.start, b.stop));
		if (r == 0) {
			unsigned long long wrong = 0;
			CHECK(cudaMemsetAsync(b.mismatches, 0, sizeof wrong, b.stream));
			count_mismatches<<<1024, 256, 0, b.stream>>>(sorted, b.reference, n, b.mismatches);
			CHECK(cudaGetLastError());
			CHECK(cudaMemcpyAsync(&wrong, b.mismatches, sizeof wrong, cudaMemcpyDeviceToHost, b.stream));
			CHECK(cudaStreamSynchronize(b.stream));
			*correct = wrong == 0;
		} else {
			times.push_back(ms);
		}
	}
	std::sort(times.begin(), times.end());
	return times[times.size() / 2];
}

/* The reference: CUB's sort of pristine[0, n). */
static void make_reference(bench &b, size_t n)
{
	CHECK(cub::DeviceRadixSort::SortKeys(b.cub_temp, b.cub_temp_bytes, b.pristine, b.reference, (int64_t)n, 0, 32, b.stream));
	CHECK(cudaStreamSynchronize(b.stream));
}

struct row {
	std::string experiment, distribution;
	size_t n;
	double ms[M_COUNT];
	bool correct[M_COUNT];
};

static row measure(bench &b, const char *experiment, const char *distribution, size_t n)
{
	row r{ experiment, distribution, n, {}, {} };
	make_reference(b, n);
	for (int m = 0; m < M_COUNT; m++) {
		r.ms[m] = time_method(b, m, n, 0, &r.correct[m]);
		fprintf(stderr, "%s %-9s n=%-10zu %-9s %9.3f ms %7.3f Gkeys/s%s\n", experiment, distribution, n, method_names[m],
			r.ms[m], n / (r.ms[m] * 1e6), r.correct[m] ? "" : "  WRONG");
	}
	return r;
}

static void upload(bench &b, enum distribution d, size_t n, uint64_t seed, std::vector<uint32_t> &host)
{
	host.resize(n);
	distribution_fill_u32(d, seed, host.data(), n);
	CHECK(cudaMemcpy(b.pristine, host.data(), n * 4, cudaMemcpyHostToDevice));
}

static void print_rows(const std::vector<row> &rows)
{
	printf("| exp | distribution | n | bucket | sample | radix | bitonic | quick | CUB radix |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (const row &r : rows) {
		printf("| %s | %s | %zu |", r.experiment.c_str(), r.distribution.c_str(), r.n);
		for (int m = 0; m < M_COUNT; m++)
			printf(" %.2f ms, %.2f%s |", r.ms[m], r.n / (r.ms[m] * 1e6), r.correct[m] ? "" : " WRONG");
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	bench b{};
	b.runs = argc > 1 ? atoi(argv[1]) : 5;
	if (b.runs < 1)
		b.runs = 1;
	const size_t most = 100000000;
	cudaDeviceProp properties;
	CHECK(cudaGetDeviceProperties(&properties, 0));
	printf("device: %s, %d SMs; runs per point: %d (median), 1 warm-up\n", properties.name, properties.multiProcessorCount, b.runs);
	CHECK(cudaMalloc(&b.pristine, most * 4));
	CHECK(cudaMalloc(&b.work, most * 4));
	CHECK(cudaMalloc(&b.scratch, most * 4));
	CHECK(cudaMalloc(&b.reference, most * 4));
	CHECK(cudaMalloc(&b.mismatches, sizeof *b.mismatches));
	CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b.cub_temp_bytes, b.work, b.scratch, (int64_t)most, 0, 32, (cudaStream_t)0));
	CHECK(cudaMalloc(&b.cub_temp, b.cub_temp_bytes));
	CHECK(cudaStreamCreate(&b.stream));
	CHECK(cudaEventCreate(&b.start));
	CHECK(cudaEventCreate(&b.stop));
	cudaMemPool_t pool;
	uint64_t keep = UINT64_MAX;
	CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
	CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
	std::vector<uint32_t> host;
	std::vector<row> rows;

	/* A: the i.i.d. distributions once at 100M, their prefixes for the smaller sizes */
	const enum distribution a_dists[] = { DIST_UNIFORM, DIST_NORMAL, DIST_POISSON, DIST_REVERSE };
	for (enum distribution d : a_dists) {
		if (d != DIST_REVERSE)
			upload(b, d, most, 1000 + d, host);
		for (size_t n = most / 10; n <= most; n += most / 10) {
			if (d == DIST_REVERSE)
				upload(b, d, n, 1000 + d, host);
			rows.push_back(measure(b, "A", d == DIST_REVERSE ? "descending" : distribution_name(d), n));
		}
	}
	/* B */
	const enum distribution b_dists[] = { DIST_UNIFORM, DIST_NORMAL, DIST_BUCKET, DIST_SORTED, DIST_ALL_EQUAL };
	const char *const b_names[] = { "uniform", "gaussian", "bucket", "sorted", "zero" };
	for (int i = 0; i < 5; i++) {
		upload(b, b_dists[i], (size_t)1 << 24, 2000 + i, host);
		rows.push_back(measure(b, "B", b_names[i], (size_t)1 << 24));
	}
	/* C, and the radix digit width at C's size and at 100M */
	upload(b, DIST_UNIFORM, 16777217, 3000, host);
	rows.push_back(measure(b, "C", "uniform", 16777217));
	printf("\n");
	print_rows(rows);

	printf("\n| radix digit bits | 16,777,217 uniform | 100M uniform | 100M normal |\n|---|---|---|---|\n");
	double radix[9][3] = {};
	bool radix_ok = true;
	const size_t radix_sizes[3] = { 16777217, most, most };
	const enum distribution radix_dists[3] = { DIST_UNIFORM, DIST_UNIFORM, DIST_NORMAL };
	for (int s = 0; s < 3; s++) {
		upload(b, radix_dists[s], radix_sizes[s], 4000 + s, host);
		make_reference(b, radix_sizes[s]);
		for (int bits = 4; bits <= 8; bits++) {
			bool ok = false;
			radix[bits][s] = time_method(b, M_RADIX, radix_sizes[s], bits, &ok);
			radix_ok = radix_ok && ok;
			fprintf(stderr, "radix k=%d n=%zu %.3f ms%s\n", bits, radix_sizes[s], radix[bits][s], ok ? "" : " WRONG");
		}
	}
	for (int bits = 4; bits <= 8; bits++)
		printf("| %d | %.2f ms, %.2f | %.2f ms, %.2f | %.2f ms, %.2f |\n", bits, radix[bits][0], radix_sizes[0] / (radix[bits][0] * 1e6),
		       radix[bits][1], radix_sizes[1] / (radix[bits][1] * 1e6), radix[bits][2], radix_sizes[2] / (radix[bits][2] * 1e6));

	/* the claims */
	printf("\nClaims (rates in Gkeys/s):\n");
	for (size_t n = most / 10; n <= most; n += most / 10) {
		double lo = 1e30, hi = 0, sample_over_bucket_lo = 1e30, sample_over_bucket_hi = 0;
		for (const row &r : rows) {
			if (r.experiment != "A" || r.n != n)
				continue;
			double rate = n / (r.ms[M_BUCKET] * 1e6);
			lo = std::min(lo, rate), hi = std::max(hi, rate);
			double ratio = r.ms[M_BUCKET] / r.ms[M_SAMPLE];
			sample_over_bucket_lo = std::min(sample_over_bucket_lo, ratio);
			sample_over_bucket_hi = std::max(sample_over_bucket_hi, ratio);
		}
		printf("  A n=%zu: bucket rate over the 4 distributions %.2f..%.2f (spread %.0f%%); sample sort %.2fx..%.2fx the bucket sort's speed\n",
		       n, lo, hi, 100.0 * (hi - lo) / lo, sample_over_bucket_lo, sample_over_bucket_hi);
	}
	double lo = 1e30, hi = 0;
	for (const row &r : rows)
		if (r.experiment == "B") {
			double rate = r.n / (r.ms[M_BUCKET] * 1e6);
			lo = std::min(lo, rate), hi = std::max(hi, rate);
		}
	printf("  B 2^24: bucket rate over the 5 distributions %.2f..%.2f (spread %.0f%%)\n", lo, hi, 100.0 * (hi - lo) / lo);
	int best = 4;
	for (int bits = 5; bits <= 8; bits++)
		if (radix[bits][1] < radix[best][1])
			best = bits;
	printf("  radix: fastest digit width at 100M uniform: %d bits (the radix report found 4 best on its GPU)\n", best);
	bool all_ok = radix_ok;
	for (const row &r : rows)
		for (int m = 0; m < M_COUNT; m++)
			all_ok = all_ok && r.correct[m];
	printf("  every output equal to CUB's: %s\n", all_ok ? "yes" : "NO");
	return all_ok ? 0 : 1;
}
