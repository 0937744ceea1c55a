/* SPDX-License-Identifier: MIT */
/* GNU sort 9.1's SIZE syntax for -S and --gpu-memory: a number (blanks and a '+' may
 * lead) with an optional suffix b (bytes), K M G T P E Z Y (powers of 1024; k m g t
 * too; KiB if none) or % of physical memory; a suffix alone means one of it. */
#ifndef GPUSORT_SIZE_PARSE_H
#define GPUSORT_SIZE_PARSE_H

#include <stddef.h>

/* default_unit is the multiplier for a bare number (1024 for -S, as GNU sort).
 * Returns 0, or what GNU's xstrtol_fatal() would say: -EINVAL for no number at all
 * ("invalid"), -EILSEQ for a number followed by something else ("invalid suffix"),
 * -ERANGE for a size past SIZE_MAX ("too large"). */
int size_parse(const char *text, size_t default_unit, size_t *bytes);
size_t physical_memory_bytes(void);

#endif
