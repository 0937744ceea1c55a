/* SPDX-License-Identifier: MIT */
/* Moving a stretch of a file down within it (file_move.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "file_move.h"
#include "parallel_io.h"

/* One piece's read, run on a thread while the piece before is written. */
struct piece_read {
	int fd;
	unsigned char *buffer;
	size_t len;
	uint64_t offset;
	int error;
	pthread_t thread;
	bool running;
};

static void piece_read_run(struct piece_read *read)
{
	ssize_t got = parallel_pread(read->fd, read->buffer, read->len, (off_t)read->offset);
	read->error = got < 0 ? (int)got : (size_t)got < read->len ? -EIO : 0; /* the file is shorter */
}

static void *piece_read_main(void *context)
{
	piece_read_run(context);
	return NULL;
}

static void piece_read_start(struct piece_read *read)
{
	read->running = pthread_create(&read->thread, NULL, piece_read_main, read) == 0;
	if (!read->running)
		piece_read_run(read); /* no thread to be had: here, in turn */
}

static int piece_read_wait(struct piece_read *read)
{
	if (read->running)
		pthread_join(read->thread, NULL);
	read->running = false;
	return read->error;
}

int file_move_down(int fd, uint64_t from, uint64_t to, uint64_t len, size_t piece)
{
	if (to > from || piece == 0)
		return -EINVAL;
	if (to == from || len == 0)
		return 0;
	if (piece > len)
		piece = (size_t)len;
	unsigned char *buffers[2] = {malloc(piece), len > piece ? malloc(piece) : NULL};
	if (!buffers[0] || (len > piece && !buffers[1])) {
		free(buffers[0]);
		free(buffers[1]);
		return -ENOMEM;
	}
	struct piece_read read = {.fd = fd, .buffer = buffers[0], .len = piece, .offset = from};
	piece_read_run(&read);
	int error = read.error;
	for (uint64_t done = 0, k = 0; done < len && !error; k++) {
		size_t this = read.len;
		unsigned char *data = read.buffer;
		/* the next piece's old place begins where this one's new place ends, or above */
		if (done + this < len) {
			uint64_t next = done + this;
			read = (struct piece_read){.fd = fd, .buffer = buffers[(k + 1) & 1],
						   .len = len - next < piece ? (size_t)(len - next) : piece,
						   .offset = from + next};
			piece_read_start(&read);
		}
		error = parallel_pwrite(fd, data, this, (off_t)(to + done));
		int next_error = piece_read_wait(&read);
		if (!error)
			error = next_error;
		done += this;
		if (done >= len)
			break;
	}
	free(buffers[0]);
	free(buffers[1]);
	return error;
}
