/* SPDX-License-Identifier: MIT */
/* The 64-bit prefix of a line's sort item: an order-preserving image of its first key
 * (bytes big-endian for byte keys, a parsed image for -n -h -g -M), so that a smaller
 * prefix always means an earlier line; equal prefixes are finished by the comparator. */
#ifndef GPUSORT_TEXT_PREFIX_H
#define GPUSORT_TEXT_PREFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "text_order.h"

uint64_t text_prefix(const struct text_order *order, const char *line, size_t len);

/* Whether text_prefix_pair serves: a plain key (or the whole line) collated in the
 * user's locale, whose one strxfrm gives the next 8 bytes of the level too. */
bool text_prefix_keeps_next(const struct text_order *order);
/* text_prefix, and where next is not NULL (and text_prefix_keeps_next) text_prefix_at at
 * depth 1 in *next; text_prefix is this with next NULL. */
uint64_t text_prefix_pair(const struct text_order *order, const char *line, size_t len, uint64_t *next);

/* Whether the prefix takes a strxfrm of the key (a plain key, or the whole line,
 * collated in the user's locale), which costs a few times a strcoll. */
bool text_prefix_collates(const struct text_order *order);
/* Whether lines whose prefixes tie may be told apart by text_prefix_at, 8 bytes at a
 * time: a key of plain bytes (or the whole line) in the C locale, whose prefix is its
 * first 8 bytes, or a plain key collated in the user's locale, by its strxfrm image. */
bool text_prefix_deepens(const struct text_order *order);
/* Whether keys whose text_prefix_at images are equal to their ends, and of one size,
 * are equal: so for bytes; a collated key's image is its first level alone. */
bool text_prefix_exact(const struct text_order *order);
/* The first step for text_prefix_at in a tie run: 1 where the prefix is the key's
 * first 8 bytes, 0 for a collated key (its prefix holds its image's first level alone). */
size_t text_prefix_deeper_start(const struct text_order *order);
/* Whether lines whose one key ties in every byte are ordered by their whole lines' bytes
 * (the last resort in the C locale): they may then be told apart 8 bytes at a time too. */
bool text_prefix_line_deepens(const struct text_order *order);
/* Where text_prefix_deepens: the image of the key's bytes [8 * depth, 8 * depth + 8)
 * (of the line's, with whole_line; of the first level of the key's strxfrm image where
 * it collates), zero-padded, complemented for a reverse order; *key_size: the key's
 * (line's, level's) bytes. */
uint64_t text_prefix_at(const struct text_order *order, const char *line, size_t len, size_t depth, bool whole_line,
			size_t *key_size);

#endif
