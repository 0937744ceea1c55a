/* Large arrays (items and their scratch copies, text and its line tables) on mappings of
 * their own, on huge pages where the kernel offers them: faulting in fresh 4 KiB pages
 * one at a time costs more than a sort's pass over them (1.3 s per 256 MiB on the dev VM,
 * 0.03 s on huge pages), and malloc's heaps keep what is freed, so that a spill that
 * makes a chunk's arrays anew for every chunk, at sizes that vary with its lines, grew to
 * three times its budget there (-S 128M, 394 MiB). Smaller requests go to malloc. */
#ifndef GPUSORT_HUGE_MEMORY_H
#define GPUSORT_HUGE_MEMORY_H

#include <stddef.h>

/* bytes of memory aligned to 64 bytes (a huge page when mapped); NULL when there is no
 * memory. Release it with huge_memory_free. */
void *huge_memory_alloc(size_t bytes);
/* Releases what huge_memory_alloc returned (NULL: nothing). */
void huge_memory_free(void *memory);

#endif
