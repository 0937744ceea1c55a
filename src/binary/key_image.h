/* Order-preserving unsigned images of binary keys: comparing images as unsigned
 * integers gives the key order (signed: sign bit flipped; floats: the usual transform
 * with -0.0 equal to +0.0 and every NaN after every number; bytes: big-endian prefix). */
#ifndef GPUSORT_KEY_IMAGE_H
#define GPUSORT_KEY_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../settings/options.h"

/* The image of a 4- or 8-byte numeric key, or of a bytes key's first 8 bytes (zero
 * padded), as a 64-bit value (32-bit types use the low 32 bits). */
uint64_t key_image(enum key_type type, const unsigned char *key, size_t key_size);

/* True when the image is a bijection of the key bytes (integer types), so a file of
 * bare keys can be sorted as images and turned back. */
bool key_image_is_bijective(enum key_type type);
/* The inverse of key_image for bijective types, written little-endian to key. */
void key_image_restore(enum key_type type, uint64_t image, unsigned char *key);

/* Full comparison of two keys: <0, 0, >0. */
int key_compare(enum key_type type, size_t key_size, const unsigned char *a, const unsigned char *b);

#endif
