/* Device-side item types for the CUDA backend: u32, u64 and the 128-bit item as two
 * 64-bit words (low word first, as unsigned __int128 on the host), with their order,
 * their largest value (padding that sorts last) and a width dispatch. */
#ifndef GPUSORT_GPU_ITEMS_CUH
#define GPUSORT_GPU_ITEMS_CUH

#include <stdint.h>

struct gpu_u128 {
	uint64_t lo, hi; /* little-endian layout of unsigned __int128 */
};

__host__ __device__ __forceinline__ bool item_less(uint32_t a, uint32_t b) { return a < b; }
__host__ __device__ __forceinline__ bool item_less(uint64_t a, uint64_t b) { return a < b; }
__host__ __device__ __forceinline__ bool item_less(gpu_u128 a, gpu_u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
__host__ __device__ __forceinline__ bool item_equal(uint32_t a, uint32_t b) { return a == b; }
__host__ __device__ __forceinline__ bool item_equal(uint64_t a, uint64_t b) { return a == b; }
__host__ __device__ __forceinline__ bool item_equal(gpu_u128 a, gpu_u128 b)
{
	return a.hi == b.hi && a.lo == b.lo;
}

template <typename T> __host__ __device__ __forceinline__ T item_max();
template <> __host__ __device__ __forceinline__ uint32_t item_max<uint32_t>() { return ~0u; }
template <> __host__ __device__ __forceinline__ uint64_t item_max<uint64_t>() { return ~0ull; }
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

/* Calls body with `item_t` bound to the device type of width (4, 8 or 16 bytes). */
#define GPU_FOR_WIDTH(width, body)                                            \
	do {                                                                  \
		switch (width) {                                              \
		case 4: { typedef uint32_t item_t; body; } break;             \
		case 8: { typedef uint64_t item_t; body; } break;             \
		case 16: { typedef gpu_u128 item_t; body; } break;            \
		default: break;                                               \
		}                                                             \
	} while (0)

#endif
