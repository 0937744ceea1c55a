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

/* Whether the prefix is the first 8 bytes of its key as they compare (a key of plain
 * bytes in the C locale, or the whole line): then lines whose prefixes tie may be told
 * apart by the key's next 8 bytes, and so on. */
bool text_prefix_deepens(const struct text_order *order);
/* Whether lines whose one key ties in every byte are ordered by their whole lines' bytes
 * (the last resort in the C locale): they may then be told apart 8 bytes at a time too. */
bool text_prefix_line_deepens(const struct text_order *order);
/* Where text_prefix_deepens: the image of the key's bytes [8 * depth, 8 * depth + 8)
 * (of the line's, with whole_line), zero-padded, complemented for a reverse order;
 * *key_size: the key's (line's) bytes. */
uint64_t text_prefix_at(const struct text_order *order, const char *line, size_t len, size_t depth, bool whole_line,
			size_t *key_size);

#endif
