/* SPDX-License-Identifier: MIT */
/* Order-preserving unsigned images of binary keys: comparing images as unsigned
 * integers gives the key order (signed: sign bit flipped; floats: the usual transform
 * with -0.0 equal to +0.0 and every NaN after every number; bytes: big-endian prefix). */
#ifndef GPUSORT_KEY_IMAGE_H
#define GPUSORT_KEY_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../settings/key_field.h"

/* The image of a 4- or 8-byte numeric key, or of a bytes key's first 8 bytes (zero
 * padded), as a 64-bit value (32-bit types use the low 32 bits). */
uint64_t key_image(enum key_type type, const unsigned char *key, size_t key_size);

/* True when the image is a bijection of the key bytes (integer types), so a file of
 * bare keys can be sorted as images and turned back. */
bool key_image_is_bijective(enum key_type type);

/* Full comparison of two keys: <0, 0, >0. Inline, for the self-check's order test of
 * every output record: byte keys decide on their first 8 bytes as one big-endian word
 * where those differ, as they do for nearly all neighbours. */
static inline int key_compare(enum key_type type, size_t key_size, const unsigned char *a,
			      const unsigned char *b)
{
	if (type == KEY_BYTES) {
		if (key_size < 8)
			return memcmp(a, b, key_size);
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
		return memcmp(a + 8, b + 8, key_size - 8);
	}
	uint64_t x = key_image(type, a, key_size), y = key_image(type, b, key_size);
	return (x > y) - (x < y);
}

#endif
