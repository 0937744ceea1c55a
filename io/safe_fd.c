/* SPDX-License-Identifier: MIT */
/* Moving new descriptors above the standard three (see safe_fd.h). F_DUPFD picks the
 * lowest free descriptor from 3 on; the duplicate shares the open file description, so
 * offsets, locks and flags stay as the call that opened it made them. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "safe_fd.h"

int fd_safer(int fd)
{
	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	int flags = fcntl(fd, F_GETFD);
	int moved = flags < 0 ? -1 : fcntl(fd, flags & FD_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD, STDERR_FILENO + 1);
	int error = errno;
	close(fd);
	errno = error;
	return moved;
}

int pipe_safer(int ends[2], int flags)
{
	if (pipe2(ends, flags) != 0)
		return -1;
	ends[0] = fd_safer(ends[0]);
	ends[1] = fd_safer(ends[1]);
	if (ends[0] >= 0 && ends[1] >= 0)
		return 0;
	int error = errno;
	if (ends[0] >= 0)
		close(ends[0]);
	if (ends[1] >= 0)
		close(ends[1]);
	errno = error;
	return -1;
}

/* liburing chooses the ring's descriptor itself (the lowest free one): while it does,
 * stand-ins hold the free standard descriptors. A ring that got one all the same (no
 * stand-in could be opened) is not used: the caller falls back to plain calls. */
int ring_init_safer(struct io_uring *ring, unsigned entries)
{
	int held[STDERR_FILENO + 1], count = 0;
	for (;;) {
		int fd = open("/", O_PATH | O_CLOEXEC);
		if (fd >= 0 && fd <= STDERR_FILENO) {
			held[count++] = fd;
			continue;
		}
		if (fd >= 0)
			close(fd);
		break;
	}
	int error = io_uring_queue_init(entries, ring, 0);
	while (count > 0)
		close(held[--count]);
	if (!error && ring->ring_fd <= STDERR_FILENO) {
		io_uring_queue_exit(ring);
		error = -EMFILE;
	}
	return error;
}

int fd_standard(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || (flags & O_PATH)) {
		errno = EBADF;
		return -1;
	}
	return fd;
}
