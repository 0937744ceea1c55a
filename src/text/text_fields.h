/* SPDX-License-Identifier: MIT */
/* Key extraction for text lines: where a -k key begins and ends inside a line, with
 * GNU sort's field rules (blank-to-nonblank transitions or -t SEP, b, .C offsets). */
#ifndef GPUSORT_TEXT_FIELDS_H
#define GPUSORT_TEXT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include "../settings/keydef.h"

/* GNU sort's blanks in the C locale: space, tab and newline (a newline can sit inside a
 * line with -z). */
static inline bool text_is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Sets [*begin, *end) to the key's bytes in line[0, len); separator is -1 for fields
 * split at blank-to-nonblank transitions. An end before the start gives an empty key. */
void text_key_bounds(const struct keydef *key, int separator, const char *line, size_t len,
		     const char **begin, const char **end);

#endif
