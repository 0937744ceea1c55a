/* A range of a file being written, allocated and mapped, so that several threads or
 * processes copy into its pages without the file's lock, which buffered writes (pwrite)
 * take in turn: on the H200 machine 2 GiB went into one file at 4.4 GB/s at most by
 * pwrite and at 11 GB/s by copies into one such mapping (bench/RESULTS.md). */
#ifndef GPUSORT_FILE_MAP_H
#define GPUSORT_FILE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_map {
	unsigned char *bytes; /* the file's byte `from` is bytes[0]; NULL: not mapped */
	uint64_t from;        /* a page boundary */
	size_t length;
	bool in_memory;       /* a tmpfs file: pages faulted in before each copy */
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
 * injected as fault_op. Callers ask file_map_wanted first. */
int file_map_range(int fd, uint64_t offset, uint64_t length, bool sole, const char *fault_op, struct file_map *map);

/* Whether fd is a file of a memory file system (tmpfs): no write-back behind it. */
bool file_in_memory(int fd);

/* Whether a writer of bytes should map them: GPUSORT_OUTPUT_MAP=1 always, =0 never,
 * else from min_bytes up (the caller's measured crossover). */
int file_map_wanted(uint64_t bytes, uint64_t min_bytes);

/* Copies length bytes to the file's offset through the mapping when it holds them all:
 * returns 1 when done, 0 when it does not (the caller writes them), or the negative
 * errno that fault_op injected. */
int file_map_copy(const struct file_map *map, uint64_t offset, const void *bytes, size_t length,
		  const char *fault_op);

/* Faults in, for writing, the pages of the mapped part of [offset, offset + length), so
 * that later copies there take no page faults: a thread can do this for a range while
 * the data to copy is still being made (on the H100 machine's ext4 and the dev VM's, the
 * faults of a fresh mapping cost twice the copy itself). Where the kernel cannot
 * (before Linux 5.14) the copies fault as before. */
void file_map_prefault(const struct file_map *map, uint64_t offset, uint64_t length);

/* Unmaps (the pages stay in the page cache, written back as any). */
void file_map_release(struct file_map *map);

#endif
