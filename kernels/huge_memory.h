/* SPDX-License-Identifier: MIT */
/* Large arrays (items and their scratch copies, text and its line tables) on mappings of
 * their own, on huge pages where the kernel offers them: faulting in fresh 4 KiB pages
 * one at a time costs more than a sort's pass over them, and malloc's heaps keep what is
 * freed, so that a spill that makes a chunk's arrays anew for every chunk, at sizes that
 * vary with its lines, would grow well past its budget. Smaller requests go to malloc. */
#ifndef GPUSORT_HUGE_MEMORY_H
#define GPUSORT_HUGE_MEMORY_H

#include <stddef.h>

/* bytes of memory aligned to 64 bytes (a huge page when mapped); NULL when there is no
 * memory. Release it with huge_memory_free. */
void *huge_memory_alloc(size_t bytes);
/* Releases what huge_memory_alloc returned (NULL: nothing). */
void huge_memory_free(void *memory);
/* Grows what huge_memory_alloc returned for old_bytes (NULL: nothing yet) to bytes, its
 * first old_bytes kept, as realloc does: a mapping moves whole to a new huge-page
 * aligned place (mremap: no copy, the pages it holds stay in memory), a small one is
 * copied. Returns the memory's new place, or NULL with the old one untouched. */
void *huge_memory_grow(void *memory, size_t old_bytes, size_t bytes);

struct thread_pool;
/* Faults in the pages of count arrays from huge_memory_alloc now, in pieces on the
 * pool's threads (MADV_POPULATE_WRITE; nothing where the kernel lacks it, the pages then
 * fault in when first used, as they would have). A page fault waits for the process's
 * memory map while another thread maps or unmaps memory (a thread's stack, a compressor's
 * tables), and a huge page's fault holds the map as long as it takes to zero 2 MiB, so
 * buffers first touched while other threads start and allocate stall them all. Arrays
 * from malloc (below two huge pages) and NULL
 * ones are skipped, and arrays past the eighth. A pool whose owner stopped
 * (thread_pool_set_stop) faults in no further piece. */
void huge_memory_populate(struct thread_pool *pool, void *const *arrays, const size_t *bytes, unsigned count);

#endif
