/* SPDX-License-Identifier: MIT */
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

/* 16 elements of 8 bytes between their two layouts, 16 bytes a register, loaded from
 * in + r * in_step and stored to out + r * out_step. Joining, register j holds plane j's
 * 16 bytes (register bits: the byte, lane: the element); three rounds leave register m
 * holding elements 2m and 2m+1. Splitting, register m holds elements 2m and 2m+1
 * (register bits: element bits 3-1; lane: element bit 0 and the byte); four rounds move
 * the element's bits into the lane, highest first, and the byte's into the registers,
 * plane j ending in register (j & 1) << 2 | (j >> 2) << 1 | (j >> 1 & 1). Joining byte
 * by byte would cost a merge of u64 runs a large share of its time. */
static inline void transpose_16(const unsigned char *in, size_t in_step, unsigned char *out, size_t out_step,
				bool split)
{
	__m128i x[8];
#pragma GCC unroll 8
	for (int r = 0; r < 8; r++)
		x[r] = _mm_loadu_si128((const __m128i *)(const void *)(in + (size_t)r * in_step));
	interleave_round(x, 4);
	interleave_round(x, 2);
	interleave_round(x, 1);
	if (split)
		interleave_round(x, 4);
#pragma GCC unroll 8
	for (int r = 0; r < 8; r++)
		_mm_storeu_si128((__m128i *)(void *)(out + (size_t)r * out_step),
				 x[split ? (r & 1) << 2 | (r >> 2) << 1 | ((r >> 1) & 1) : r]);
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
		for (; i + 16 <= count; i += 16)
			transpose_16(in + i * 8, 16, out + i, count, true);
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

void byte_planes_join(const void *from, void *to, size_t bytes, size_t element_bytes)
{
	const unsigned char *in = from;
	unsigned char *out = to;
	size_t count = bytes / element_bytes;
	if (element_bytes == 8) {
		size_t i = 0;
#ifdef __SSE2__
		for (; i + 16 <= count; i += 16)
			transpose_16(in + i, count, out + i * 8, 16, false);
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

/* Each element's first prefix_bytes XORed with the element before's (the first
 * element's stay): from the last element back, so that each XOR meets the plain bytes
 * before it. */
void prefix_xor_encode(void *data, size_t bytes, size_t element_bytes, size_t prefix_bytes)
{
	unsigned char *p = data;
	size_t count = bytes / element_bytes;
	for (size_t i = count; i-- > 1;) {
		unsigned char *element = p + i * element_bytes;
		for (size_t j = 0; j < prefix_bytes; j++)
			element[j] ^= element[j - element_bytes];
	}
}

/* From the second element on, each XOR meets the bytes already restored before it. */
void prefix_xor_decode(void *data, size_t bytes, size_t element_bytes, size_t prefix_bytes)
{
	unsigned char *p = data;
	size_t count = bytes / element_bytes;
	for (size_t i = 1; i < count; i++) {
		unsigned char *element = p + i * element_bytes;
		for (size_t j = 0; j < prefix_bytes; j++)
			element[j] ^= element[j - element_bytes];
	}
}
