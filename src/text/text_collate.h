/* SPDX-License-Identifier: MIT */
/* The user's collation (LC_COLLATE) for text keys, as GNU sort uses it outside the C
 * and POSIX locales: keys compare with strcoll, and a key's 64-bit prefix is the start
 * of its strxfrm image, whose byte order is strcoll's order. */
#ifndef GPUSORT_TEXT_COLLATE_H
#define GPUSORT_TEXT_COLLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when LC_COLLATE names a locale other than C or POSIX (GNU's hard_locale), and
 * not one whose collation is known to be byte order (glibc's C.UTF-8): then keys
 * collate; otherwise they compare as bytes. Read once per sort, at its start. */
bool text_collate_active(void);

/* GNU sort's comparison of two keys in such a locale: an empty key sorts first, others
 * compare as xmemcoll0 does (strcoll, part by part across embedded NUL bytes). */
int text_collate_compare(const char *a, size_t alen, const char *b, size_t blen);

/* The first 8 bytes of the first level of the key's strxfrm image (of the key up to its
 * first NUL byte), big-endian, zero-padded: a smaller image means an earlier key by
 * text_collate_compare; equal images decide nothing. */
uint64_t text_collate_image(const char *key, size_t len);
/* text_collate_image, and in *next the level's next 8 bytes (text_collate_level_at at 8)
 * from the same strxfrm. */
uint64_t text_collate_image_pair(const char *key, size_t len, uint64_t *next);

/* Bytes [at, at + 8) of the first level of the key's image (as text_collate_image
 * takes them at 0), zero-padded; *level_length: the first level's bytes (SIZE_MAX when
 * memory ran out). Keys whose first levels are equal may still differ. */
uint64_t text_collate_level_at(const char *key, size_t len, size_t at, size_t *level_length);

/* The key's whole strxfrm image, part by part across embedded NUL bytes, each part's
 * image followed by a 0 byte (none for an empty key): keys with equal images collate
 * equal. Writes at most size bytes of it to image and returns its length, which the
 * caller compares with size to see whether it all fit; on a failed allocation it
 * returns SIZE_MAX. */
size_t text_collate_transform(const char *key, size_t len, char *image, size_t size);

#endif
