/* SPDX-License-Identifier: MIT */
/* A queue of sequential writes to one file descriptor that run behind the caller: the
 * caller fills one of the queue's buffers and submits it, then fills the next while the
 * kernel writes (io_uring). Where io_uring is unavailable, or for pipes and terminals,
 * submit writes synchronously. Errors are sticky: the first one is returned by every
 * later call. Functions return 0 or a negative errno. */
#ifndef GPUSORT_WRITE_QUEUE_H
#define GPUSORT_WRITE_QUEUE_H

#include <stddef.h>
#include <sys/types.h>

struct write_queue;

/* Writes start at the fd's current offset; faults are injected as fd's tag
 * (fault_inject.h). depth buffers of slot_bytes each. */
int write_queue_open(int fd, unsigned depth, size_t slot_bytes, struct write_queue **queue);
/* A free buffer of at least min_bytes (waits for an earlier write when all are busy). */
int write_queue_buffer(struct write_queue *queue, size_t min_bytes, void **buffer);
/* Writes bytes of the buffer last handed out at the next offset. */
int write_queue_submit(struct write_queue *queue, size_t bytes);
/* Writes bytes of *buffer (malloc'ed, *capacity bytes) at the next offset without a
 * copy: the queue keeps that buffer for the write and hands back, in *buffer and
 * *capacity, a free one of its own for the caller to keep (waiting for an earlier write
 * when all are busy). Not mixed with write_queue_buffer on one queue. */
int write_queue_submit_exchange(struct write_queue *queue, void **buffer, size_t *capacity,
				size_t bytes);
/* Waits for every write; for a seekable fd leaves its offset after the data. */
int write_queue_flush(struct write_queue *queue);
/* Waits for every write, and leaves the fd's offset alone (a descriptor other threads
 * write at offsets of their own). */
int write_queue_wait(struct write_queue *queue);
/* Waits for every write, then sends the next submitted buffer to offset, and counts
 * write_queue_bytes from there: a seekable file written in pieces at offsets of the
 * caller's choosing (the ranges of a parallel merge). -ESPIPE for a pipe. */
int write_queue_seek(struct write_queue *queue, off_t offset);
/* Where the next submitted buffer goes (seekable files). */
off_t write_queue_offset(const struct write_queue *queue);
/* After a flush, for a caller that wrote bytes at write_queue_offset() itself: the next
 * submitted buffer goes after them. */
void write_queue_skip(struct write_queue *queue, size_t bytes);
/* Write-behind for a regular file: once more than `window` bytes were submitted since
 * the last call that acted, waits until the window before (all of it written by now,
 * when window exceeds the bytes a queue holds) is on the device and starts the device
 * writes of the newer one (sync_file_range). Dirty pages then stay within about two
 * windows, and a disk slower than the page cache shows in write_queue_wait_seconds as
 * the device's own time; on tmpfs it costs nothing. Window 0, after a flush: starts the
 * device writes of the rest without waiting. Returns 0 or a negative errno. */
int write_queue_write_behind(struct write_queue *queue, size_t window);
/* The bytes submitted so far are left to the page cache: write-behind begins after them. */
void write_queue_leave_cached(struct write_queue *queue);
/* The time the caller spent in the writes: waiting for a free buffer, at a flush or for
 * the write-behind (io_uring), or writing (synchronous writes). Writes that kept up with the caller cost
 * it nothing; a disk slower than the caller shows here as its time. */
double write_queue_wait_seconds(const struct write_queue *queue);
/* The bytes submitted so far. */
off_t write_queue_bytes(const struct write_queue *queue);
/* Direct mode, for a queue of positional writes to a regular file (io_uring only, before
 * the first write): the whole pages of what is submitted go through direct_fd (the same
 * file opened with O_DIRECT, which the queue now owns and closes) from the queue's own
 * page-aligned buffers, past the page cache: no copy of them on the CPU, and the device's
 * pace without the page cache's write-back in between. The partial pages at the ends of
 * each seek's stretch are written through the page cache (never a page both ways), so
 * offsets and lengths stay free. A queue whose writes keep it waiting more than a
 * quarter of its time over its first 16 MiB (a device slower than the caller), or whose
 * file system refuses the alignment (EINVAL), goes back to the page cache for good.
 * write_queue_submit_exchange copies in this mode. -ENOTSUP (direct_fd closed) without
 * io_uring, where each write would wait for the device in turn. */
int write_queue_direct(struct write_queue *queue, int direct_fd);
/* The bytes written past the page cache so far. */
off_t write_queue_direct_bytes(const struct write_queue *queue);
/* Waits for writes in flight (their buffers must outlive them) and frees; the fd stays
 * open. */
void write_queue_close(struct write_queue *queue);

#endif
