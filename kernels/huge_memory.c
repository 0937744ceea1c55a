/* Huge-page arrays (see huge_memory.h): a header just before the memory says how it was
 * made, so that one call releases either kind. */
#include "config.h"
#include "huge_memory.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES ((size_t)2 << 20)
/* From two huge pages up a request has a mapping of its own. */
#define MAPPED_MINIMUM (2 * HUGE_PAGE_BYTES)
#define SMALL_ALIGN 64

struct huge_header {
	void *base;    /* what malloc or mmap returned */
	size_t mapped; /* bytes mapped, 0 for malloc */
};

void *huge_memory_alloc(size_t bytes)
{
	bool mapped = bytes >= MAPPED_MINIMUM;
	size_t pad = mapped ? HUGE_PAGE_BYTES : SMALL_ALIGN, total = bytes + pad;
	if (total < bytes)
		return NULL;
	char *base;
	if (mapped) {
		base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			return NULL;
	} else if (!(base = malloc(total))) {
		return NULL;
	}
	/* at least a header's room after base, aligned */
	char *aligned = (char *)(((uintptr_t)base + pad) & ~(uintptr_t)(pad - 1));
	struct huge_header *header = (struct huge_header *)aligned - 1;
	header->base = base;
	header->mapped = mapped ? total : 0;
	if (mapped)
		madvise(aligned, bytes, MADV_HUGEPAGE);
	return aligned;
}

void huge_memory_free(void *memory)
{
	if (!memory)
		return;
	struct huge_header *header = (struct huge_header *)memory - 1;
	if (header->mapped)
		munmap(header->base, header->mapped);
	else
		free(header->base);
}
