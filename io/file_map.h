/* SPDX-License-Identifier: MIT */
/* A range of a file being written, allocated and mapped, so that several threads or
 * processes copy into its pages without the file's lock, which buffered writes (pwrite)
 * take in turn, so that copies into the mapping outpace pwrite (bench/RESULTS.md). Or a range of
 * a file in memory, mapped to be read where it lies (file_map_read). */
#ifndef GPUSORT_FILE_MAP_H
#define GPUSORT_FILE_MAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_map {
	unsigned char *bytes; /* the file's byte `from` is bytes[0]; NULL: not mapped */
	uint64_t from;        /* a page boundary */
	size_t length;
	bool in_memory;       /* a tmpfs file: pages faulted in before each copy */
	int fault;            /* the fault point of the descriptor mapped (fault_inject.h) */
};

/* Allocates [offset, offset + length) of fd (fallocate, which may extend the file) and
 * maps it for writing into map. Where that does not pay or cannot be, map stays
 * unmapped and 0 is returned, for the caller to write as before: fd not open for
 * reading and writing, or a file system that cannot allocate or map. On a tmpfs, whose
 * fallocate clears every page before the copies fill them again, the file is only
 * extended (ftruncate) and mapped, and only where sole says this process alone sizes
 * the file (ranks extending one file at once could shrink it under another's mapping);
 * its pages are then faulted in before each copy (file_map_copy), so that a full tmpfs
 * is an error (ENOSPC) and not a SIGBUS, and without MADV_POPULATE_WRITE (Linux 5.14)
 * it is not mapped. No room (ENOSPC, EDQUOT, EFBIG) is a negative errno. Faults are
 * injected as fd's tag, and the copies' as the same (fault_inject.h). Callers ask
 * file_map_wanted first. */
int file_map_range(int fd, uint64_t offset, uint64_t length, bool sole, struct file_map *map);

/* Maps [offset, offset + length) of the file at path for reading into map where the
 * file is on a memory file system and holds the range: its pages are in memory already,
 * and reading them in place saves a copy of every byte (a distributed sort's ranks
 * merging each other's runs, bench/RESULTS.md). Elsewhere, or where it cannot, map stays
 * unmapped for the caller to read the file. file_map_release unmaps. */
void file_map_read(const char *path, uint64_t offset, uint64_t length, struct file_map *map);

/* The mapped byte that is the file's byte offset (a byte of the range mapped). */
static inline const unsigned char *file_map_at(const struct file_map *map, uint64_t offset)
{
	return map->bytes + (offset - map->from);
}

/* Whether fd is a file of a memory file system (tmpfs): no write-back behind it. */
bool file_in_memory(int fd);

/* Whether a writer of bytes should map them: forced 1 always, 0 never, else from
 * min_bytes up (the caller's crossover; GPUSORT_OUTPUT_MAP gives forced). */
int file_map_wanted(int forced, uint64_t bytes, uint64_t min_bytes);

/* Copies length bytes to the file's offset through the mapping when it holds them all:
 * returns 1 when done, 0 when it does not (the caller writes them), or the negative
 * errno of a fault injected. */
int file_map_copy(const struct file_map *map, uint64_t offset, const void *bytes, size_t length);

/* Faults in, for writing, the pages of the mapped part of [offset, offset + length), so
 * that later copies there take no page faults: a thread can do this for a range while
 * the data to copy is still being made (the faults of a fresh mapping can cost more than
 * the copy itself). Where the kernel cannot
 * (before Linux 5.14) the copies fault as before. */
void file_map_prefault(const struct file_map *map, uint64_t offset, uint64_t length);

/* Threads that fault in a mapped range (file_map_prefault) while the data to copy there
 * is still being made (the GPU sorting, say), a piece at a time, until stopped: each
 * takes its part of the range, faults in its first piece whatever happens, and stops at
 * the end of a piece once told. */
#define FILE_PREFAULT_THREADS 4
#define FILE_PREFAULT_PIECE_BYTES ((uint64_t)64 << 20)
struct file_prefault_part {
	const struct file_map *map;
	uint64_t offset, length;
	const atomic_bool *stop;
	pthread_t thread;
	bool started;
};
struct file_prefault {
	struct file_prefault_part parts[FILE_PREFAULT_THREADS];
	atomic_bool stop;
};

/* Starts the threads on [offset, offset + length) of map (which must outlive them);
 * where a thread cannot start, its part is left to the copies. */
void file_prefault_start(struct file_prefault *prefault, const struct file_map *map, uint64_t offset,
			 uint64_t length);
/* Stops them and waits (a prefault never started, zeroed, is fine too). */
void file_prefault_stop(struct file_prefault *prefault);

/* Unmaps (the pages stay in the page cache, written back as any). */
void file_map_release(struct file_map *map);

#endif
