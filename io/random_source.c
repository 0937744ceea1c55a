/* SPDX-License-Identifier: MIT */
/* The salt of a random order: a file's first bytes, or the kernel's random bytes. */
#include "config.h"
#include "random_source.h"
#include "safe_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

static int read_fully(int fd, unsigned char *bytes, size_t size, bool from_kernel)
{
	size_t done = 0;
	while (done < size) {
		ssize_t got = from_kernel ? getrandom(bytes + done, size - done, 0)
					  : read(fd, bytes + done, size - done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -ENODATA;
		done += (size_t)got;
	}
	return 0;
}

int random_source_read(const char *name, void *bytes, size_t size, bool *open_failed)
{
	*open_failed = false;
	if (!name)
		return read_fully(-1, bytes, size, true);
	int fd = fd_safer(open(name, O_RDONLY | O_CLOEXEC));
	if (fd < 0) {
		*open_failed = true;
		return -errno;
	}
	int err = read_fully(fd, bytes, size, false);
	close(fd);
	return err;
}
