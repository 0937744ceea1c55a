/* SPDX-License-Identifier: MIT */
/* How many times a byte occurs: lines by their terminators, quotes by their parity. */
#ifndef GPUSORT_TEXT_COUNT_H
#define GPUSORT_TEXT_COUNT_H

#include <stddef.h>

/* How many bytes of data[0, len) are eol (16 bytes a step where SSE2 is there). */
size_t text_count_terminators(const char *data, size_t len, unsigned char eol);

#endif
