/* SPDX-License-Identifier: MIT */
/* input_file: regular files of sizes 0, 1, odd and many blocks read back byte for byte in
 * several read sizes, files around the size for parallel reads read first in a small
 * piece and then in others (the path is chosen at the second read), a pipe on stdin,
 * stdin redirected from a partly read file, a directory. Run once as is (io_uring where the kernel has it) and once with
 * GPUSORT_FAULT=io_ring:ENOSYS (test_io_input_sync.sh). */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "io/fault_inject.h"
#include "io/input_file.h"
#include "io/parallel_io.h"
#include "tests/distributions.h"
#include "tests/tap.h"

static unsigned char *pattern(size_t bytes, uint64_t seed)
{
	unsigned char *data = malloc(bytes + 1);
	for (size_t i = 0; i < bytes; i++)
		data[i] = (unsigned char)(random_next(&seed) >> 56);
	return data;
}

static void write_file(const char *path, const void *data, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	if (bytes)
		fwrite(data, 1, bytes, f);
	fclose(f);
}

/* Reads the whole input in pieces of `piece` bytes; returns the bytes read or -errno. */
static ssize_t read_all(struct input_file *file, unsigned char *into, size_t room, size_t piece)
{
	size_t have = 0;
	for (;;) {
		size_t want = piece < room - have ? piece : room - have;
		ssize_t got = input_file_read(file, into + have, want);
		if (got < 0)
			return got;
		have += got;
		if ((size_t)got < want || have == room)
			break;
	}
	return have;
}

int main(void)
{
	/* the faults a wrapper script asks for (io_ring: no io_uring) */
	fault_arm(getenv("GPUSORT_FAULT"));
	char dir[] = "/tmp/test_io_input.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char path[256];
	snprintf(path, sizeof path, "%s/data", dir);
	const size_t sizes[] = { 0, 1, 4097, (size_t)21 << 20 | 12345 };
	const size_t pieces[] = { 1000003, (size_t)64 << 20, 4096 };
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		unsigned char *data = pattern(sizes[s], s + 1);
		write_file(path, data, sizes[s]);
		for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
			if (sizes[s] > (1u << 20) && pieces[p] < 8192)
				continue;
			struct input_file *file;
			int error = input_file_open(path, &file);
			tap_ok(error == 0 && input_file_size(file) == (off_t)sizes[s],
			       "size %zu: opens, input_file_size is the size", sizes[s]);
			if (error)
				continue;
			unsigned char *back = malloc(sizes[s] + 100);
			ssize_t got = read_all(file, back, sizes[s] + 100, pieces[p]);
			tap_ok(got == (ssize_t)sizes[s] && memcmp(back, data, sizes[s]) == 0,
			       "size %zu in pieces of %zu: same bytes (got %zd)", sizes[s], pieces[p], got);
			tap_ok(input_file_read(file, back, 10) == 0, "size %zu: 0 at the end, again",
			       sizes[s]);
			tap_ok(input_file_same(file, path) && !input_file_same(file, dir),
			       "input_file_same tells its own path");
			input_file_close(file);
			free(back);
		}
		free(data);
	}

	/* Parts of a file (input_file_open_range, a rank's share): exactly their bytes,
	 * by the read-ahead ring (small pieces) and by direct reads (large ones), at
	 * offsets and lengths around the ring's 8 MiB blocks; a length past the end
	 * stops at the end. */
	size_t whole = (size_t)21 << 20 | 12345;
	unsigned char *file_data = pattern(whole, 7);
	write_file(path, file_data, whole);
	const size_t offsets[] = { 0, 1, (size_t)8 << 20, ((size_t)8 << 20) - 1, whole - 10 };
	const size_t lengths[] = { 0, 1, 4097, ((size_t)8 << 20) + 1, (size_t)13 << 20 };
	const size_t range_pieces[] = { 65536, (size_t)64 << 20 };
	for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
		for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
			for (size_t p = 0; p < sizeof range_pieces / sizeof range_pieces[0]; p++) {
				size_t expect = offsets[o] + lengths[l] > whole ? whole - offsets[o] : lengths[l];
				struct input_file *part;
				unsigned char *into = malloc(expect + 100);
				int error = input_file_open_range(path, (off_t)offsets[o], (off_t)lengths[l], &part);
				ssize_t got = error ? error : read_all(part, into, expect + 100, range_pieces[p]);
				tap_ok(!error && input_file_size(part) == (off_t)expect && got == (ssize_t)expect &&
					       memcmp(into, file_data + offsets[o], expect) == 0,
				       "range %zu+%zu in pieces of %zu: its %zu bytes (got %zd)", offsets[o], lengths[l],
				       range_pieces[p], expect, got);
				if (!error)
					input_file_close(part);
				free(into);
			}
	free(file_data);

	/* Files around PARALLEL_IO_MINIMUM, whole and as a range from an odd offset: a
	 * first read of 1 MiB + 3 (made as it is, the path not chosen yet), then pieces as
	 * large as a parallel read (text's pattern: its first piece is sized before any
	 * line is seen) or as small as the first (the read-ahead then starts where the first
	 * read ended). */
	const size_t around[] = { PARALLEL_IO_MINIMUM - 1, PARALLEL_IO_MINIMUM, PARALLEL_IO_MINIMUM + 1,
				  PARALLEL_IO_MINIMUM + (PARALLEL_IO_MINIMUM >> 2) + 4097 };
	const size_t first_piece = ((size_t)1 << 20) + 3;
	for (size_t a = 0; a < sizeof around / sizeof around[0]; a++) {
		unsigned char *big = pattern(around[a], 11 + a);
		write_file(path, big, around[a]);
		for (int ranged = 0; ranged < 2; ranged++) {
			size_t offset = ranged ? 4099 : 0, expect = around[a] - offset;
			for (int later = 0; later < 2; later++) {
				size_t piece = later ? PARALLEL_IO_MINIMUM + 5 : first_piece;
				struct input_file *in;
				int error = ranged ? input_file_open_range(path, (off_t)offset, (off_t)expect, &in)
						   : input_file_open(path, &in);
				unsigned char *into = malloc(expect + 100);
				ssize_t got = error ? error : input_file_read(in, into, first_piece);
				if (got == (ssize_t)first_piece) {
					ssize_t rest = read_all(in, into + got, expect + 100 - (size_t)got, piece);
					got = rest < 0 ? rest : got + rest;
				}
				tap_ok(got == (ssize_t)expect && memcmp(into, big + offset, expect) == 0 &&
					       input_file_read(in, into, 10) == 0,
				       "%s of %zu bytes: a first read of %zu, then pieces of %zu: its %zu bytes (got %zd)",
				       ranged ? "a range" : "a file", around[a], first_piece, piece, expect, got);
				if (!error)
					input_file_close(in);
				free(into);
			}
		}
		free(big);
	}
	struct input_file *not_regular;
	tap_ok(input_file_open_range(dir, 0, 10, &not_regular) == -EISDIR, "a range of a directory: -EISDIR");

	/* A pipe on stdin: a child writes 5 MiB + 3 in small uneven writes. */
	size_t pipe_bytes = (5u << 20) + 3;
	unsigned char *data = pattern(pipe_bytes, 99);
	int fds[2];
	if (pipe(fds) != 0)
		return 1;
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		close(fds[0]);
		for (size_t at = 0; at < pipe_bytes;) {
			size_t n = 7777 < pipe_bytes - at ? 7777 : pipe_bytes - at;
			ssize_t wrote = write(fds[1], data + at, n);
			if (wrote <= 0)
				_exit(1);
			at += wrote;
		}
		_exit(0);
	}
	close(fds[1]);
	int saved_stdin = dup(0);
	dup2(fds[0], 0);
	close(fds[0]);
	struct input_file *file;
	tap_ok(input_file_open("-", &file) == 0 && input_file_size(file) == -1,
	       "a pipe on stdin opens with size -1");
	unsigned char *back = malloc(pipe_bytes + 10);
	ssize_t got = read_all(file, back, pipe_bytes + 10, (size_t)1 << 20);
	tap_ok(got == (ssize_t)pipe_bytes && memcmp(back, data, pipe_bytes) == 0,
	       "a pipe reads back whole reads of the asked size until its end (got %zd)", got);
	input_file_close(file);
	int status;
	waitpid(child, &status, 0);

	/* stdin redirected from a file that was partly read already. */
	write_file(path, data, pipe_bytes);
	FILE *f = fopen(path, "rb");
	dup2(fileno(f), 0);
	fclose(f);
	lseek(0, 1000, SEEK_SET);
	tap_ok(input_file_open("-", &file) == 0 && input_file_size(file) == (off_t)pipe_bytes - 1000,
	       "stdin from a file at offset 1000: size is what is left");
	got = read_all(file, back, pipe_bytes, (size_t)3 << 20);
	tap_ok(got == (ssize_t)pipe_bytes - 1000 && memcmp(back, data + 1000, got) == 0,
	       "stdin from a file reads from its offset");
	input_file_close(file);
	dup2(saved_stdin, 0);

	tap_ok(input_file_open(dir, &file) == -EISDIR, "a directory: -EISDIR");
	snprintf(path, sizeof path, "%s/missing", dir);
	tap_ok(input_file_open(path, &file) == -ENOENT, "a missing file: -ENOENT");
	snprintf(path, sizeof path, "%s/data", dir);
	unlink(path);
	rmdir(dir);
	free(back);
	free(data);
	return tap_done();
}
