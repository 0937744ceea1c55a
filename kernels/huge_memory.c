/* Huge-page arrays (see huge_memory.h): a header just before the memory says how it was
 * made, so that one call releases either kind. */
#include "config.h"
#include "huge_memory.h"
#include "thread_pool.h"

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

/* Each array populated in pieces of this many bytes, a pool index each. */
#define POPULATE_PIECE ((size_t)8 << 20)
#define POPULATE_MOST_ARRAYS 8

struct populate_job {
	char *arrays[POPULATE_MOST_ARRAYS];
	size_t bytes[POPULATE_MOST_ARRAYS];
	size_t first_piece[POPULATE_MOST_ARRAYS + 1];
	unsigned count;
};

static void populate_piece(void *context, size_t index)
{
	const struct populate_job *job = context;
	unsigned a = 0;
	while (index >= job->first_piece[a + 1])
		a++;
	size_t offset = (index - job->first_piece[a]) * POPULATE_PIECE, left = job->bytes[a] - offset;
#ifdef MADV_POPULATE_WRITE
	madvise(job->arrays[a] + offset, left < POPULATE_PIECE ? left : POPULATE_PIECE, MADV_POPULATE_WRITE);
#else
	(void)left;
#endif
}

void huge_memory_populate(struct thread_pool *pool, void *const *arrays, const size_t *bytes, unsigned count)
{
	struct populate_job job = {{NULL}, {0}, {0}, 0};
	size_t pieces = 0;
	for (unsigned i = 0; i < count && job.count < POPULATE_MOST_ARRAYS; i++) {
		if (!arrays[i] || !((struct huge_header *)arrays[i] - 1)->mapped || bytes[i] == 0)
			continue;
		job.arrays[job.count] = arrays[i];
		job.bytes[job.count] = bytes[i];
		job.first_piece[job.count] = pieces;
		pieces += (bytes[i] + POPULATE_PIECE - 1) / POPULATE_PIECE;
		job.count++;
	}
	job.first_piece[job.count] = pieces;
	thread_pool_parallel_for(pool, pieces, populate_piece, &job);
}
