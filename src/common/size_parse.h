/* GNU sort's SIZE syntax for -S and --gpu-memory: a number with an optional suffix
 * b (bytes), K M G T P E (powers of 1024; KiB if none), or % of physical memory. */
#ifndef GPUSORT_SIZE_PARSE_H
#define GPUSORT_SIZE_PARSE_H

#include <stddef.h>

/* default_unit is the multiplier for a bare number (1024 for -S, as GNU sort).
 * Returns 0, -EINVAL for bad syntax or -ERANGE for overflow. */
int size_parse(const char *text, size_t default_unit, size_t *bytes);
size_t physical_memory_bytes(void);

#endif
