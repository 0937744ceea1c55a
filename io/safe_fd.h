/* SPDX-License-Identifier: MIT */
/* Descriptors that never take 0, 1 or 2 (coreutils' "fd-safer" rule): a file opened while
 * standard input, output or error is closed would otherwise become that stream, and the
 * sorted output or a message would be written into it (or "-" read from it). Every
 * descriptor io/ makes passes through here. And the standard descriptors as the sort
 * may use them: closed, or held by the command's stand-in, they are EBADF. */
#ifndef GPUSORT_SAFE_FD_H
#define GPUSORT_SAFE_FD_H

#include <liburing.h>

/* fd itself when it is negative (errno kept) or above 2; else a duplicate above 2 with
 * the same close-on-exec flag, fd closed. -1 with errno when the duplicate fails. Wraps
 * the call that made fd: fd = fd_safer(open(...)). */
int fd_safer(int fd);
/* pipe2(ends, flags) with both ends above 2: 0, or -1 with errno (nothing left open). */
int pipe_safer(int ends[2], int flags);
/* io_uring_queue_init(entries, ring, 0) with the ring's descriptor above 2: 0 or a
 * negative errno. */
int ring_init_safer(struct io_uring *ring, unsigned entries);
/* fd (0, 1 or 2) when it is open for reading or writing; -1 with errno EBADF when it is
 * closed or an O_PATH descriptor, which can be neither read nor written: what a command
 * puts on a closed standard descriptor (src/cli/main.c) so that no library's file can
 * take it. The sort treats both alike, as a closed descriptor. */
int fd_standard(int fd);

#endif
