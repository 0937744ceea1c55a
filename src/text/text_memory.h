/* Large arrays of text mode (line starts, items, output order, text read from pipes):
 * allocated on huge pages where the kernel offers them, since faulting in fresh 4 KiB
 * pages one at a time costs more than the passes over them (1.3 s per 256 MiB on the
 * dev VM, 0.03 s on huge pages). */
#ifndef GPUSORT_TEXT_MEMORY_H
#define GPUSORT_TEXT_MEMORY_H

#include <stddef.h>

/* Like malloc (release with free()); NULL when out of memory. */
void *text_huge_alloc(size_t bytes);

#endif
