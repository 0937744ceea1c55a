/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "read_full.h"

#include <errno.h>
#include <unistd.h>

int read_full(int fd, void *buffer, size_t bytes, uint64_t offset, enum fault_point point)
{
	unsigned char *p = buffer;
	size_t have = 0;
	while (have < bytes) {
		int fault = fault_at(point);
		if (fault < 0)
			return fault;
		size_t want = bytes - have;
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		ssize_t got = offset == READ_AT_STREAM ? read(fd, p + have, want)
						       : pread(fd, p + have, want, (off_t)(offset + have));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -ENODATA;
		have += (size_t)got;
	}
	return 0;
}
