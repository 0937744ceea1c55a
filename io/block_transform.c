/* Byte planes and deltas for run blocks (see block_transform.h). Little-endian hosts
 * only, like the binary formats gpusort reads. */
#include "config.h"
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "block_transform.h"

#ifdef __SSE2__
/* One round of the byte transpose: registers m and m | bit interleaved by bytes. Seen as
 * 7-bit byte indices (3 register bits, 4 lane bits), the lane's top bit moves into the
 * register bit `bit` and that bit enters the lane at the bottom. */
static inline void interleave_round(__m128i x[8], int bit)
{
#pragma GCC unroll 8
	for (int m = 0; m < 8; m++)
		if (!(m & bit)) {
			__m128i lo = _mm_unpacklo_epi8(x[m], x[m | bit]), hi = _mm_unpackhi_epi8(x[m], x[m | bit]);
			x[m] = lo;
			x[m | bit] = hi;
		}
}

/* Elements [0, count & ~15) split into 8 planes 16 at a time: loaded 2 a register (the
 * register holds element bits 3-1, the lane element bit 0 and the byte), four rounds
 * move the element's bits into the lane, highest first, and the byte's into the
 * registers: plane j ends in register (j & 1) << 2 | (j >> 2) << 1 | (j >> 1 & 1). */
static size_t split8_sse2(const unsigned char *in, unsigned char *out, size_t count)
{
	size_t i = 0;
	for (; i + 16 <= count; i += 16) {
		__m128i x[8];
#pragma GCC unroll 8
		for (int m = 0; m < 8; m++)
			x[m] = _mm_loadu_si128((const __m128i *)(const void *)(in + (i + 2 * (size_t)m) * 8));
		interleave_round(x, 4);
		interleave_round(x, 2);
		interleave_round(x, 1);
		interleave_round(x, 4);
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++)
			_mm_storeu_si128((__m128i *)(void *)(out + (size_t)j * count + i),
					 x[(j & 1) << 2 | (j >> 2) << 1 | ((j >> 1) & 1)]);
	}
	return i;
}
#endif

void byte_planes_split(const void *from, void *to, size_t bytes, size_t element_bytes)
{
	const unsigned char *in = from;
	unsigned char *out = to;
	size_t count = bytes / element_bytes;
	if (element_bytes == 8) {
		size_t i = 0;
#ifdef __SSE2__
		i = split8_sse2(in, out, count);
#endif
		for (; i < count; i++)
			for (size_t j = 0; j < 8; j++)
				out[j * count + i] = in[i * 8 + j];
		return;
	}
	for (size_t j = 0; j < element_bytes; j++)
		for (size_t i = 0; i < count; i++)
			out[j * count + i] = in[i * element_bytes + j];
}

#ifdef __SSE2__
/* Elements [0, count & ~15) of 8 planes joined 16 at a time: 16 bytes of each plane,
 * interleaved by bytes, then by 16-bit pairs, then by 32-bit halves (a transpose); a
 * merge reading runs of u64 keys spent 14% of its time in the byte-wise loop below. */
static size_t join8_sse2(const unsigned char *in, unsigned char *out, size_t count)
{
	size_t i = 0;
	for (; i + 16 <= count; i += 16) {
		__m128i p[8];
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++)
			p[j] = _mm_loadu_si128((const __m128i *)(const void *)(in + (size_t)j * count + i));
		/* bytes j and j+1 of elements 0-7 (lo) and 8-15 (hi) */
		__m128i a0 = _mm_unpacklo_epi8(p[0], p[1]), a1 = _mm_unpackhi_epi8(p[0], p[1]);
		__m128i a2 = _mm_unpacklo_epi8(p[2], p[3]), a3 = _mm_unpackhi_epi8(p[2], p[3]);
		__m128i a4 = _mm_unpacklo_epi8(p[4], p[5]), a5 = _mm_unpackhi_epi8(p[4], p[5]);
		__m128i a6 = _mm_unpacklo_epi8(p[6], p[7]), a7 = _mm_unpackhi_epi8(p[6], p[7]);
		/* bytes 0-3 (c) and 4-7 (d) of elements 0-3, 4-7, 8-11, 12-15 */
		__m128i c[4] = {_mm_unpacklo_epi16(a0, a2), _mm_unpackhi_epi16(a0, a2), _mm_unpacklo_epi16(a1, a3),
				_mm_unpackhi_epi16(a1, a3)};
		__m128i d[4] = {_mm_unpacklo_epi16(a4, a6), _mm_unpackhi_epi16(a4, a6), _mm_unpacklo_epi16(a5, a7),
				_mm_unpackhi_epi16(a5, a7)};
#pragma GCC unroll 4
		for (int q = 0; q < 4; q++) {
			_mm_storeu_si128((__m128i *)(void *)(out + (i + 4 * (size_t)q) * 8), _mm_unpacklo_epi32(c[q], d[q]));
			_mm_storeu_si128((__m128i *)(void *)(out + (i + 4 * (size_t)q + 2) * 8),
					 _mm_unpackhi_epi32(c[q], d[q]));
		}
	}
	return i;
}
#endif

void byte_planes_join(const void *from, void *to, size_t bytes, size_t element_bytes)
{
	const unsigned char *in = from;
	unsigned char *out = to;
	size_t count = bytes / element_bytes;
	if (element_bytes == 8) {
		size_t i = 0;
#ifdef __SSE2__
		i = join8_sse2(in, out, count);
#endif
		for (; i < count; i++)
			for (size_t j = 0; j < 8; j++)
				out[i * 8 + j] = in[j * count + i];
		return;
	}
	for (size_t j = 0; j < element_bytes; j++)
		for (size_t i = 0; i < count; i++)
			out[i * element_bytes + j] = in[j * count + i];
}

bool delta_supported(size_t element_bytes)
{
	return element_bytes == 4 || element_bytes == 8;
}

void delta_encode(void *data, size_t bytes, size_t element_bytes)
{
	unsigned char *p = data;
	if (element_bytes == 8) {
		uint64_t previous = 0;
		for (size_t at = 0; at + 8 <= bytes; at += 8) {
			uint64_t value;
			memcpy(&value, p + at, 8);
			uint64_t delta = value - previous;
			memcpy(p + at, &delta, 8);
			previous = value;
		}
	} else {
		uint32_t previous = 0;
		for (size_t at = 0; at + 4 <= bytes; at += 4) {
			uint32_t value;
			memcpy(&value, p + at, 4);
			uint32_t delta = value - previous;
			memcpy(p + at, &delta, 4);
			previous = value;
		}
	}
}

void delta_decode(void *data, size_t bytes, size_t element_bytes)
{
	unsigned char *p = data;
	if (element_bytes == 8) {
		uint64_t sum = 0;
		for (size_t at = 0; at + 8 <= bytes; at += 8) {
			uint64_t delta;
			memcpy(&delta, p + at, 8);
			sum += delta;
			memcpy(p + at, &sum, 8);
		}
	} else {
		uint32_t sum = 0;
		for (size_t at = 0; at + 4 <= bytes; at += 4) {
			uint32_t delta;
			memcpy(&delta, p + at, 4);
			sum += delta;
			memcpy(p + at, &sum, 4);
		}
	}
}
