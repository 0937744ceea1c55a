/* SPDX-License-Identifier: MIT */
/* The one place that decides between io_uring and the plain system calls, so every
 * reader and writer falls back the same way (see io_ring.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fault_inject.h"
#include "io_ring.h"
#include "safe_fd.h"

static bool io_ring_allowed;
static pthread_once_t io_ring_once = PTHREAD_ONCE_INIT;

static void io_ring_decide(void)
{
	io_ring_allowed = fault_at(FAULT_IO_RING) == 0;
	int fd = fd_safer(open("/proc/sys/kernel/io_uring_disabled", O_RDONLY | O_CLOEXEC));
	if (fd >= 0) {
		char value[8] = "";
		if (read(fd, value, sizeof value - 1) > 0 && value[0] != '0')
			io_ring_allowed = false;
		close(fd);
	}
}

bool io_ring_wanted(void)
{
	pthread_once(&io_ring_once, io_ring_decide);
	return io_ring_allowed;
}

int io_ring_init(struct io_uring *ring, unsigned entries)
{
	if (!io_ring_wanted())
		return -ENOTSUP;
	return ring_init_safer(ring, entries);
}
