/* SPDX-License-Identifier: MIT */
/* The salt of a random order: a file's first bytes, or the kernel's random bytes. */
#include "config.h"
#include "random_source.h"
#include "read_full.h"
#include "safe_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

/* The kernel's random bytes: a request of up to 256 bytes is answered whole once the
 * pool is ready, so only a signal before that makes it try again. */
static int read_kernel_random(unsigned char *bytes, size_t size)
{
	ssize_t got;
	do
		got = getrandom(bytes, size, 0);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	return (size_t)got == size ? 0 : -ENODATA;
}

int random_source_read(const char *name, void *bytes, size_t size, bool *open_failed)
{
	*open_failed = false;
	if (!name)
		return read_kernel_random(bytes, size);
	int fd = fd_safer(open(name, O_RDONLY | O_CLOEXEC));
	if (fd < 0) {
		*open_failed = true;
		return -errno;
	}
	int err = read_full(fd, bytes, size, READ_AT_STREAM, FAULT_NONE);
	close(fd);
	return err;
}
