/* SPDX-License-Identifier: MIT */
/* Counting one byte's occurrences (text_count.h). */
#include "text_count.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

size_t text_count_terminators(const char *data, size_t len, unsigned char eol)
{
	size_t n = 0, at = 0;
#ifdef __SSE2__
	/* Each byte lane subtracts its matches (-1 each) for up to 255 steps of 16 bytes,
	 * then one sum of absolute differences adds the lanes up: no popcount, which
	 * baseline x86-64 lacks (gcc calls a library routine for it). */
	__m128i eol_vector = _mm_set1_epi8((char)eol), zero = _mm_setzero_si128();
	while (at + 16 <= len) {
		size_t steps = (len - at) / 16 < 255 ? (len - at) / 16 : 255;
		__m128i lanes = zero;
		for (size_t k = 0; k < steps; k++, at += 16)
			lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(data + at)), eol_vector));
		__m128i sums = _mm_sad_epu8(lanes, zero);
		n += (size_t)_mm_cvtsi128_si64(sums) + (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
	}
#endif
	for (; at < len; at++)
		n += (unsigned char)data[at] == eol;
	return n;
}
