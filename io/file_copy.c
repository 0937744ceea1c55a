/* SPDX-License-Identifier: MIT */
/* file_copy_contents (see file_copy.h): copy_file_range lets the kernel move the bytes
 * (or share the blocks) without a trip through user memory; where it cannot (another file
 * system, an old kernel) pread and pwrite do. Old bytes are overwritten, and only the
 * tail beyond the new length is cut at the end, so the copy asks for no more space than
 * the new content needs beyond the old; that room is reserved before the first write. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "fault_inject.h"
#include "file_copy.h"
#include "parallel_io.h"

#define COPY_BUFFER (1u << 20)

/* May the copy go on with pread and pwrite after copy_file_range said error? */
static bool copy_range_unsupported(int error)
{
	return error == EXDEV || error == ENOSYS || error == EINVAL || error == EOPNOTSUPP ||
	       error == ENOTSUP;
}

/* Copies [offset, length) with pread and pwrite. */
static int copy_by_buffer(int from_fd, int to_fd, off_t offset, off_t length)
{
	unsigned char *buffer = malloc(COPY_BUFFER);
	if (!buffer)
		return -ENOMEM;
	int error = 0;
	while (!error && offset < length) {
		size_t want = length - offset < COPY_BUFFER ? (size_t)(length - offset) : COPY_BUFFER;
		ssize_t got = pread(from_fd, buffer, want, offset);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			error = got < 0 ? -errno : -EIO; /* the twin shrank under us */
			break;
		}
		for (ssize_t done = 0; !error && done < got;) {
			int fault = fault_at(FAULT_OUTPUT_COPY);
			if (fault < 0) {
				error = fault;
				break;
			}
			size_t part = fault == FAULT_SHORT && got - done > 1 ? (size_t)(got - done) / 2
									     : (size_t)(got - done);
			ssize_t wrote = pwrite(to_fd, buffer + done, part, offset + done);
			if (wrote < 0 && errno == EINTR)
				continue;
			if (wrote <= 0)
				error = wrote < 0 ? -errno : -EIO;
			else
				done += wrote;
		}
		offset += got;
	}
	free(buffer);
	return error;
}

int file_copy_lock(int fd)
{
	struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	int command = F_OFD_SETLKW;
	for (;;) {
		if (fcntl(fd, command, &lock) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EINVAL && command == F_OFD_SETLKW) {
			command = F_SETLKW; /* a kernel before open file description locks */
			continue;
		}
		return errno == ENOLCK ? 0 : -errno;
	}
}

/* fallocate, again where a signal cut it short. */
static int allocate(int fd, int mode, off_t offset, off_t length)
{
	int result;
	while ((result = fallocate(fd, mode, offset, length)) != 0 && errno == EINTR)
		;
	return result == 0 ? 0 : -errno;
}

/* Room for length bytes in to_fd (of old_size now) before an old byte is overwritten:
 * FALLOC_FL_KEEP_SIZE allocates [0, length) without changing the size or a byte (the
 * old file's holes read as zeros still), and fails with ENOSPC or EDQUOT when the room
 * is not there, giving back what it took past the end. Where the file system cannot
 * allocate so, its free space must hold what the file grows by. */
static int copy_reserve(int to_fd, off_t old_size, off_t length)
{
	int error = fault_at(FAULT_OUTPUT_COPY);
	if (error > 0)
		error = 0; /* a short transfer means nothing here */
	if (!error && length > 0)
		error = allocate(to_fd, FALLOC_FL_KEEP_SIZE, 0, length);
	if (error == -EOPNOTSUPP || error == -ENOSYS) {
		struct statvfs room;
		if (length > old_size && fstatvfs(to_fd, &room) == 0 &&
		    (uint64_t)room.f_bavail * room.f_frsize < (uint64_t)(length - old_size))
			return -ENOSPC;
		return 0;
	}
	if (error && length > old_size)
		allocate(to_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, old_size, length - old_size);
	return error;
}

int file_copy_contents(int from_fd, int to_fd)
{
	struct stat st, old;
	if (fstat(from_fd, &st) != 0 || fstat(to_fd, &old) != 0)
		return -errno;
	off_t length = st.st_size, offset = 0;
	int error = copy_reserve(to_fd, old.st_size, length);
	if (error)
		return error;
	while (offset < length) {
		int fault = fault_at(FAULT_OUTPUT_COPY);
		if (fault < 0)
			return fault;
		/* in pieces, as parallel_io's calls: a signal waits for one piece at most */
		size_t want = length - offset < (off_t)IO_CALL_MAX ? (size_t)(length - offset) : IO_CALL_MAX;
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		off_t in = offset, out = offset;
		ssize_t moved = copy_file_range(from_fd, &in, to_fd, &out, want, 0);
		if (moved < 0 && errno == EINTR)
			continue;
		if (moved < 0 && copy_range_unsupported(errno)) {
			error = copy_by_buffer(from_fd, to_fd, offset, length);
			break;
		}
		if (moved <= 0)
			return moved < 0 ? -errno : -EIO;
		offset += moved;
	}
	if (!error && ftruncate(to_fd, length) != 0)
		error = -errno;
	return error;
}
