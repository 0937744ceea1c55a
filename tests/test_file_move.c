/* SPDX-License-Identifier: MIT */
/* file_move_down: a stretch of a file moved to a lower offset of the same file, in
 * pieces read one ahead of the writes. For pieces of 1 byte to 64 KiB, lengths around
 * every multiple of the piece (k*piece - 1, k*piece, k*piece + 1), shifts of 0, 1 byte,
 * less than a piece (the two places overlap), exactly a piece and more, the file must
 * hold the old bytes at the new place and be unchanged below it, and the bytes above the
 * new place's end untouched by anything but the move; 8 MiB pieces move 20 MiB on
 * several threads. A file shorter than the stretch is -EIO. (Failed and short reads
 * and writes in the moves: tests/test_unique_merge.sh, through GPUSORT_FAULT.) */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/file_move.h"
#include "tests/tap.h"

static unsigned char byte_at(uint64_t i)
{
	return (unsigned char)(i * 2654435761u >> 13);
}

/* Writes size bytes of the pattern to a fresh file; returns its fd. */
static int pattern_file(const char *path, size_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	unsigned char *bytes = malloc(size ? size : 1);
	for (size_t i = 0; i < size; i++)
		bytes[i] = byte_at(i);
	if (fd >= 0 && size && pwrite(fd, bytes, size, 0) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	free(bytes);
	return fd;
}

/* Moves [from, from + len) to `to` in a file of from + len + tail bytes and checks it. */
static int move_case(const char *path, uint64_t from, uint64_t to, uint64_t len, size_t piece, size_t tail)
{
	size_t size = (size_t)(from + len + tail);
	int fd = pattern_file(path, size);
	if (fd < 0)
		return 0;
	int error = file_move_down(fd, from, to, len, piece);
	unsigned char *after = malloc(size ? size : 1);
	int ok = !error && pread(fd, after, size, 0) == (ssize_t)size;
	for (size_t i = 0; ok && i < size; i++) {
		unsigned char want;
		if (i < to)
			want = byte_at(i);                /* below: untouched */
		else if (i < to + len)
			want = byte_at(i - to + from);    /* the moved stretch */
		else if (i >= from + len)
			want = byte_at(i);                /* above the old place: untouched */
		else
			continue;                          /* the old place's rest: anything */
		ok = after[i] == want;
		if (!ok)
			tap_diag("from %llu to %llu len %llu piece %zu: byte %zu differs", (unsigned long long)from,
				 (unsigned long long)to, (unsigned long long)len, piece, i);
	}
	free(after);
	close(fd);
	return ok;
}

int main(void)
{
	char path[] = "/tmp/gpusort-file-move-XXXXXX";
	int probe = mkstemp(path);
	if (probe < 0) {
		tap_plan_skip_all("no temp file");
		return 0;
	}
	close(probe);
	const size_t pieces[] = {1, 7, 4096, 65536};
	for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
		size_t piece = pieces[p];
		int all = 1;
		for (uint64_t k = 0; k <= 3; k++)
			for (int delta = -1; delta <= 1; delta++) {
				if ((int64_t)(k * piece) + delta < 0)
					continue;
				uint64_t len = k * piece + (uint64_t)(int64_t)delta;
				const uint64_t shifts[] = {0, 1, piece > 1 ? piece - 1 : 1, piece, piece + 1, 3 * piece + 5};
				for (size_t s = 0; s < sizeof shifts / sizeof *shifts; s++) {
					uint64_t to = 11, from = to + shifts[s];
					all &= move_case(path, from, to, len, piece, 13);
				}
			}
		tap_ok(all, "pieces of %zu bytes: lengths around 0-3 pieces, shifts 0, 1, < a piece, a piece, more",
		       piece);
	}
	tap_ok(move_case(path, (3 << 20) + 5, 1, 20 << 20, 8 << 20, 4096),
	       "20 MiB in pieces of 8 MiB, each new place overlapping its old one");
	tap_ok(move_case(path, 100, 0, 1000, 64, 0), "a stretch that ends at the file's end");
	int fd = pattern_file(path, 1000);
	tap_ok(file_move_down(fd, 500, 0, 600, 64) == -EIO, "a file shorter than the stretch: -EIO");
	tap_ok(file_move_down(fd, 0, 10, 100, 64) == -EINVAL, "upwards: -EINVAL");
	close(fd);
	unlink(path);
	return tap_done();
}
