/* Huge-page allocation: aligned_alloc keeps free() as the way to release the memory,
 * and madvise asks for transparent huge pages (THP "madvise" mode is the common
 * default). Small requests go to plain malloc. */
#include "text_memory.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

void *text_huge_alloc(size_t bytes)
{
	if (bytes < 4 * HUGE_PAGE_BYTES)
		return malloc(bytes ? bytes : 1);
	size_t rounded = (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
	if (rounded < bytes)
		return NULL;
	void *memory = aligned_alloc(HUGE_PAGE_BYTES, rounded);
	if (memory)
		madvise(memory, rounded, MADV_HUGEPAGE);
	return memory;
}
