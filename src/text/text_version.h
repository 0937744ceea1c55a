/* SPDX-License-Identifier: MIT */
/* -V: version order as GNU sort's filevercmp (gnulib filenvercmp): digit runs compare
 * as numbers, letters before other bytes, '~' before everything, file suffixes last. */
#ifndef GPUSORT_TEXT_VERSION_H
#define GPUSORT_TEXT_VERSION_H

#include <stddef.h>
#include <stdint.h>

int text_version_compare(const char *a, size_t alen, const char *b, size_t blen);
/* An order-preserving 64-bit image for item prefixes: a smaller image means an earlier
 * string; equal images leave the order to text_version_compare. */
uint64_t text_version_image(const char *s, size_t len);

#endif
