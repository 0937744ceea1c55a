/* SPDX-License-Identifier: MIT */
/* The bytes of a key that -d (dictionary) and -i (nonprinting) leave out, and -f's case
 * folding, in the C locale: shared by the comparator, the random order's hash, the key
 * prefixes and the month names. */
#ifndef GPUSORT_TEXT_IGNORE_H
#define GPUSORT_TEXT_IGNORE_H

#include <stdbool.h>
#include "../settings/keydef.h"

/* A table of 256 (true: left out), or NULL when the ordering ignores nothing. */
const bool *text_ignored_bytes(const struct key_ordering *ordering);
static inline unsigned char text_fold(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

#endif
