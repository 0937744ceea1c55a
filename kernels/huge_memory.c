/* SPDX-License-Identifier: MIT */
/* Huge-page arrays (see huge_memory.h): a header just before the memory says how it was
 * made, so that one call releases either kind. */
#include "config.h"
#include "huge_memory.h"
#include "thread_pool.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* Moves the mapping under memory (its header's) to one of total bytes at a place where
 * memory's offset in it is huge-page aligned again, so that its huge pages move whole:
 * a reservation a huge page larger gives the place, the move takes its part, the rest
 * is let go. The move takes one mapping, not the pieces huge_memory_alloc's advice cut
 * it into: the advice is widened to all of it first. Returns the memory's new place, or
 * NULL. */
static void *mapping_grow(void *memory, size_t total)
{
	struct huge_header *header = (struct huge_header *)memory - 1;
	size_t offset = (size_t)((char *)memory - (char *)header->base), reserved = total + HUGE_PAGE_BYTES;
	char *place = mmap(NULL, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (place == MAP_FAILED)
		return NULL;
	char *aligned = (char *)(((uintptr_t)place + offset + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1));
	char *base = aligned - offset;
	madvise(header->base, header->mapped, MADV_HUGEPAGE);
	void *moved = mremap(header->base, header->mapped, total, MREMAP_MAYMOVE | MREMAP_FIXED, base);
	if (moved == MAP_FAILED) {
		munmap(place, reserved);
		return NULL;
	}
	if (base > place)
		munmap(place, (size_t)(base - place));
	if (base + total < place + reserved)
		munmap(base + total, (size_t)(place + reserved - (base + total)));
	header = (struct huge_header *)aligned - 1;
	header->base = base;
	header->mapped = total;
	return aligned;
}

void *huge_memory_grow(void *memory, size_t old_bytes, size_t bytes)
{
	if (memory && bytes <= old_bytes)
		return memory;
	bool mapped = memory && ((struct huge_header *)memory - 1)->mapped;
	if (mapped && bytes + HUGE_PAGE_BYTES > bytes)
		return mapping_grow(memory, bytes + HUGE_PAGE_BYTES);
	void *grown = huge_memory_alloc(bytes);
	if (grown && memory) {
		memcpy(grown, memory, old_bytes);
		huge_memory_free(memory);
	}
	return grown;
}

/* Each array populated in pieces of this many bytes, a pool index each. */
#define POPULATE_PIECE ((size_t)8 << 20)
#define POPULATE_MOST_ARRAYS 8

struct populate_job {
	char *arrays[POPULATE_MOST_ARRAYS];
	size_t bytes[POPULATE_MOST_ARRAYS];
	size_t first_piece[POPULATE_MOST_ARRAYS + 1];
	unsigned count;
	struct thread_pool *pool;
};

static void populate_piece(void *context, size_t index)
{
	const struct populate_job *job = context;
	if (thread_pool_stopped(job->pool))
		return; /* the owner's work stopped: its pages are not wanted */
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
	struct populate_job job = {{NULL}, {0}, {0}, 0, pool};
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
