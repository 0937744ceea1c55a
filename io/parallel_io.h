/* SPDX-License-Identifier: MIT */
/* Large positional reads and writes of regular files split over several threads: the
 * kernel's copies between the page cache and user memory (and the first touch of fresh
 * pages) then run on several cores, which one io_uring queue does not give. */
#ifndef GPUSORT_PARALLEL_IO_H
#define GPUSORT_PARALLEL_IO_H

#include <stddef.h>
#include <sys/types.h>

/* Transfers of at least this many bytes are worth splitting. */
#define PARALLEL_IO_MINIMUM ((size_t)32 << 20)
/* The most bytes one read or write call of a large transfer moves: a signal that comes
 * while a thread is in such a call is acted on only when the call returns, so that its
 * handler (temp files removed, the process ended) runs within one piece's time. */
#define IO_CALL_MAX ((size_t)4 << 20)

/* Reads up to len bytes at offset; returns the bytes read (fewer only at the end of
 * the file) or a negative errno: -ECANCELED once the calling thread's io scope says it
 * is stopped. Faults are injected as fd's tag (fault_inject.h). */
ssize_t parallel_pread(int fd, void *buffer, size_t len, off_t offset);
/* Writes len bytes at offset; returns 0 or a negative errno (-ENOSPC on a full disk,
 * -ECANCELED as a read). */
int parallel_pwrite(int fd, const void *buffer, size_t len, off_t offset);

/* The byte range [begin, end) of piece i when len bytes are split into count pieces:
 * page-aligned, in order, together exactly [0, len). */
void parallel_io_piece(size_t len, unsigned count, unsigned i, size_t *begin, size_t *end);

#endif
