/* SPDX-License-Identifier: MIT */
/* Device-side item types for the CUDA backend: u32, u64, the 96-bit pair item as three
 * 32-bit words and the 128-bit item as two 64-bit words (low word first, as item_u96 and
 * unsigned __int128 on the host), with their order, their largest value (padding that
 * sorts last) and a width dispatch. */
#ifndef GPUSORT_GPU_ITEMS_CUH
#define GPUSORT_GPU_ITEMS_CUH

#include <stdint.h>

struct gpu_u128 {
	uint64_t lo, hi; /* little-endian layout of unsigned __int128 */
};

/* 64-bit key image << 32 | 32-bit position in 12 bytes: 4-byte words, so items pack. */
struct gpu_u96 {
	uint32_t position, image_lo, image_hi;
};

__host__ __device__ __forceinline__ uint64_t item_image(gpu_u96 a) { return (uint64_t)a.image_hi << 32 | a.image_lo; }

__host__ __device__ __forceinline__ bool item_less(uint32_t a, uint32_t b) { return a < b; }
__host__ __device__ __forceinline__ bool item_less(uint64_t a, uint64_t b) { return a < b; }
__host__ __device__ __forceinline__ bool item_less(gpu_u96 a, gpu_u96 b)
{
	uint64_t x = item_image(a), y = item_image(b);
	return x < y || (x == y && a.position < b.position);
}
__host__ __device__ __forceinline__ bool item_less(gpu_u128 a, gpu_u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
__host__ __device__ __forceinline__ bool item_equal(uint32_t a, uint32_t b) { return a == b; }
__host__ __device__ __forceinline__ bool item_equal(uint64_t a, uint64_t b) { return a == b; }
__host__ __device__ __forceinline__ bool item_equal(gpu_u96 a, gpu_u96 b)
{
	return a.position == b.position && a.image_lo == b.image_lo && a.image_hi == b.image_hi;
}
__host__ __device__ __forceinline__ bool item_equal(gpu_u128 a, gpu_u128 b)
{
	return a.hi == b.hi && a.lo == b.lo;
}

template <typename T> __host__ __device__ __forceinline__ T item_max();
template <> __host__ __device__ __forceinline__ uint32_t item_max<uint32_t>() { return ~0u; }
template <> __host__ __device__ __forceinline__ uint64_t item_max<uint64_t>() { return ~0ull; }
template <> __host__ __device__ __forceinline__ gpu_u96 item_max<gpu_u96>()
{
	return gpu_u96{ ~0u, ~0u, ~0u };
}
template <> __host__ __device__ __forceinline__ gpu_u128 item_max<gpu_u128>()
{
	return gpu_u128{ ~0ull, ~0ull };
}

/* Comparator object for CUB's merge sort (the fallback for buckets that do not split). */
struct item_less_op {
	template <typename T> __host__ __device__ __forceinline__ bool operator()(const T &a, const T &b) const
	{
		return item_less(a, b);
	}
};

/* Calls body with `item_t` bound to the device type of width (4, 8, 12 or 16 bytes). */
#define GPU_FOR_WIDTH(width, body)                                            \
	do {                                                                  \
		switch (width) {                                              \
		case 4: { typedef uint32_t item_t; body; } break;             \
		case 8: { typedef uint64_t item_t; body; } break;             \
		case 12: { typedef gpu_u96 item_t; body; } break;             \
		case 16: { typedef gpu_u128 item_t; body; } break;            \
		default: break;                                               \
		}                                                             \
	} while (0)

#endif
