/* SPDX-License-Identifier: MIT */
/* Whether and how io/ uses io_uring. It is skipped when
 * /proc/sys/kernel/io_uring_disabled is non-zero (and by the tests' fault point io_ring,
 * fault_inject.h, which then cover the plain paths), and any file falls back to the plain
 * path when io_uring_queue_init fails (ENOSYS, EPERM, ENOMEM...). Results are the same
 * either way; only the overlap of I/O with the caller's work is lost. */
#ifndef GPUSORT_IO_RING_H
#define GPUSORT_IO_RING_H

#include <stdbool.h>
#include <liburing.h>

/* False when the kernel disables io_uring (or the tests say so). Decided once. */
bool io_ring_wanted(void);
/* io_uring_queue_init when wanted; 0 or a negative errno (-ENOTSUP when not wanted). */
int io_ring_init(struct io_uring *ring, unsigned entries);

#endif
