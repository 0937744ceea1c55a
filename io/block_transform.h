/* SPDX-License-Identifier: MIT */
/* Order-aware transforms of a block of fixed-size elements before compression: byte
 * planes (byte j of every element stored together); for 4- and 8-byte little-endian
 * integers, differences from the previous element first; and the leading bytes of each
 * element XORed with the element before's. Sorted keys turn into planes of
 * mostly-zero high bytes, which zstd compresses far better than the keys themselves. */
#ifndef GPUSORT_BLOCK_TRANSFORM_H
#define GPUSORT_BLOCK_TRANSFORM_H

#include <stdbool.h>
#include <stddef.h>

/* bytes is a multiple of element_bytes; from and to do not overlap. */
void byte_planes_split(const void *from, void *to, size_t bytes, size_t element_bytes);
void byte_planes_join(const void *from, void *to, size_t bytes, size_t element_bytes);
/* In place: each element's first prefix_bytes (<= element_bytes) XORed with those of
 * the element before, the first element's left as they are. Sorted records whose key
 * leads them share its first bytes with the record before, which become zeros. */
void prefix_xor_encode(void *data, size_t bytes, size_t element_bytes, size_t prefix_bytes);
void prefix_xor_decode(void *data, size_t bytes, size_t element_bytes, size_t prefix_bytes);
/* In place; element_bytes is 4 or 8. */
bool delta_supported(size_t element_bytes);
void delta_encode(void *data, size_t bytes, size_t element_bytes);
void delta_decode(void *data, size_t bytes, size_t element_bytes);

#endif
