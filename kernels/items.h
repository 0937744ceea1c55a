/* SPDX-License-Identifier: MIT */
/* Sort items: fixed-width unsigned integers whose high bits hold the order-preserving
 * image of a key and whose low bits (when needed) hold the item's input position.
 * Every backend sorts items ascending; position bits make equal keys distinct, so any
 * correct sort yields one output, and every sort is stable. */
#ifndef GPUSORT_ITEMS_H
#define GPUSORT_ITEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum item_width {
	ITEM_U32 = 4,   /* a 32-bit key image alone */
	ITEM_U64 = 8,   /* a 64-bit key image alone, or 32-bit image << 32 | 32-bit position */
	ITEM_U96 = 12,  /* 64-bit image << 32 | 32-bit position: the narrow pair item */
	ITEM_U128 = 16, /* 64-bit image << 64 | position, or an 80-bit image << 48 | 48-bit position */
};

/* Little-endian layout: the low word comes first in memory, as in unsigned __int128. */
typedef unsigned __int128 item_u128;

static inline item_u128 item_u128_make(uint64_t high, uint64_t low)
{
	return ((item_u128)high << 64) | low;
}

static inline uint64_t item_u128_high(item_u128 item) { return (uint64_t)(item >> 64); }
static inline uint64_t item_u128_low(item_u128 item) { return (uint64_t)item; }

/* The 96-bit item, 12 bytes with the low word first: the position, then the image's
 * low and high halves. Its words are 4-byte aligned, so arrays of it pack tightly. */
typedef struct {
	uint32_t word[3];
} item_u96;

static inline item_u96 item_u96_make(uint64_t image, uint32_t position)
{
	item_u96 item = {{position, (uint32_t)image, (uint32_t)(image >> 32)}};
	return item;
}

static inline uint64_t item_u96_image(item_u96 item)
{
	uint64_t image; /* one 8-byte load (the words are little-endian) */
	memcpy(&image, &item.word[1], sizeof image);
	return image;
}
static inline uint32_t item_u96_position(item_u96 item) { return item.word[0]; }

/* Whether the positions of n items (0 to n - 1) fit 32 bits. */
static inline bool item_positions_fit_u32(uint64_t n)
{
	return n <= ((uint64_t)1 << 32);
}

/* A pair item, an image over a position (ITEM_U96, or ITEM_U128 with a 64-bit
 * position), read from its bytes: the position first (4 or 8 bytes), the image last. */
static inline uint64_t item_pair_image(size_t width, const void *item)
{
	uint64_t image;
	memcpy(&image, (const unsigned char *)item + width - 8, sizeof image);
	return image;
}

static inline uint64_t item_pair_position(size_t width, const void *item)
{
	if (width == ITEM_U96) {
		uint32_t position;
		memcpy(&position, item, sizeof position);
		return position;
	}
	uint64_t position;
	memcpy(&position, item, sizeof position);
	return position;
}

/* Its value as an integer, image << 32 | position: the order every sort gives it (the
 * tests compare by it; the CPU sort uses an equivalent that takes fewer shifts). */
static inline item_u128 item_u96_value(item_u96 item)
{
	return (item_u128)item_u96_image(item) << 32 | item.word[0];
}

#endif
