/* SPDX-License-Identifier: MIT */
/* The 64-bit prefix of a line's sort item: an order-preserving image of its first key
 * (bytes big-endian for byte keys, a parsed image for -n -h -g -M), so that a smaller
 * prefix always means an earlier line; equal prefixes are finished by the comparator. */
#ifndef GPUSORT_TEXT_PREFIX_H
#define GPUSORT_TEXT_PREFIX_H

#include <stddef.h>
#include <stdint.h>
#include "text_order.h"

uint64_t text_prefix(const struct text_order *order, const char *line, size_t len);

#endif
