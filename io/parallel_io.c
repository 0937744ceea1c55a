/* SPDX-License-Identifier: MIT */
/* Positional transfers split over threads (see parallel_io.h). Each thread moves one
 * contiguous piece with pread/pwrite calls of at most IO_CALL_MAX bytes, carrying on
 * after short transfers. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fault_inject.h"
#include "parallel_io.h"

#define PIECE_MINIMUM ((size_t)8 << 20)
#define THREADS_MAXIMUM 16

struct piece {
	int fd;
	unsigned char *data;
	size_t len;
	off_t offset;
	bool write;
	size_t done;   /* bytes moved */
	int error;     /* negative errno, or 0 */
};

static void *piece_run(void *context)
{
	struct piece *piece = context;
	while (piece->done < piece->len) {
		size_t want = piece->len - piece->done < IO_CALL_MAX ? piece->len - piece->done : IO_CALL_MAX;
		int fault = fault_at_fd(piece->fd);
		if (fault < 0) {
			piece->error = fault;
			break;
		}
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		off_t at = piece->offset + (off_t)piece->done;
		ssize_t moved = piece->write ? pwrite(piece->fd, piece->data + piece->done, want, at)
					     : pread(piece->fd, piece->data + piece->done, want, at);
		if (moved < 0 && errno == EINTR)
			continue;
		if (moved < 0) {
			piece->error = -errno;
			break;
		}
		if (moved == 0) {
			if (piece->write)
				piece->error = -ENOSPC;
			break; /* a read at the end of the file */
		}
		piece->done += (size_t)moved;
	}
	return NULL;
}

static unsigned thread_count(size_t len)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t threads = len / PIECE_MINIMUM;
	if (online > 0 && threads > (size_t)online)
		threads = (size_t)online;
	if (threads > THREADS_MAXIMUM)
		threads = THREADS_MAXIMUM;
	return threads ? (unsigned)threads : 1;
}

/* Piece i of count: page-aligned shares of len rounded up, so that the pieces cover all
 * of it. (Rounding len / count instead lost the last len % count bytes whenever that
 * quotient was already page-aligned: one key of 2^25 + 1 u32 keys on a 16-core machine.) */
void parallel_io_piece(size_t len, unsigned count, unsigned i, size_t *begin, size_t *end)
{
	size_t share = ((len + count - 1) / count + 4095) & ~(size_t)4095;
	*begin = (size_t)i * share < len ? (size_t)i * share : len;
	*end = *begin + share < len ? *begin + share : len;
}

/* Runs the pieces; returns the contiguous bytes moved from the start, or the first
 * error. */
static ssize_t transfer(int fd, void *buffer, size_t len, off_t offset, bool write)
{
	struct piece pieces[THREADS_MAXIMUM];
	pthread_t threads[THREADS_MAXIMUM];
	bool started[THREADS_MAXIMUM] = {false};
	/* a read's threads for the bytes the file has, not for the room it is read into
	 * (the pieces still cover all of it: the file may have grown) */
	size_t work = len;
	struct stat st;
	if (!write && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		work = st.st_size <= offset ? 0 : (uint64_t)(st.st_size - offset) < len ? (size_t)(st.st_size - offset) : len;
	unsigned count = thread_count(work);
	for (unsigned i = 0; i < count; i++) {
		size_t begin, end;
		parallel_io_piece(len, count, i, &begin, &end);
		pieces[i] = (struct piece){fd, (unsigned char *)buffer + begin, end - begin,
					  offset + (off_t)begin, write, 0, 0};
	}
	/* Several pieces go to threads of their own, which start with the signals that end
	 * a process blocked, while the caller waits for them in pthread_join: the kernel
	 * gives such a signal to the caller (the main thread first), where the handler runs
	 * at once, and not to a thread in pwrite asleep past signals, waiting for the file's
	 * lock that another piece's write holds or held back while the page cache writes
	 * back. */
	if (count > 1) {
		sigset_t ending, old;
		sigemptyset(&ending);
		sigaddset(&ending, SIGINT);
		sigaddset(&ending, SIGTERM);
		sigaddset(&ending, SIGHUP);
		pthread_sigmask(SIG_BLOCK, &ending, &old);
		for (unsigned i = 0; i < count; i++)
			started[i] = pthread_create(&threads[i], NULL, piece_run, &pieces[i]) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	for (unsigned i = 0; i < count; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		else
			piece_run(&pieces[i]); /* one piece, or no thread to be had: moved here */
	}
	size_t moved = 0;
	for (unsigned i = 0; i < count; i++) {
		if (pieces[i].error)
			return pieces[i].error;
		moved += pieces[i].done;
		if (pieces[i].done < pieces[i].len)
			break; /* the file ended inside this piece */
	}
	return (ssize_t)moved;
}

ssize_t parallel_pread(int fd, void *buffer, size_t len, off_t offset)
{
	return transfer(fd, buffer, len, offset, false);
}

int parallel_pwrite(int fd, const void *buffer, size_t len, off_t offset)
{
	ssize_t moved = transfer(fd, (void *)buffer, len, offset, true);
	if (moved < 0)
		return (int)moved;
	return (size_t)moved == len ? 0 : -EIO;
}
